"""torch.export: an ExportedProgram with a signature, shape guards, Dim ranges and torch.cond."""

# --8<-- [start:demo]
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 2)

    def forward(self, x):
        return self.proj(x).relu()


# static shapes by default
ep = torch.export.export(Head(), (torch.randn(8, 4),))
print(type(ep).__name__)
# > ExportedProgram
# weights become inputs
specs = ep.graph_signature.input_specs
print([s.kind.name for s in specs])
# > ['PARAMETER', 'PARAMETER', 'USER_INPUT']
print([s.arg.name for s in specs])
# > ['p_proj_weight', 'p_proj_bias', 'x']
# ATen ops, no Python
print([str(n.target) for n in ep.graph.nodes if n.op == "call_function"])
# > ['aten.linear.default', 'aten.relu.default']
try:
    ep.module()(torch.randn(5, 4))  # batch 8 was baked in
except AssertionError as err:
    print(err)
# > Guard failed: x.size()[0] == 8
# --8<-- [end:demo]

demo_ep = ep

# --8<-- [start:dynamic]
import torch
from torch import nn
from torch.export import Dim

model = nn.Sequential(nn.Linear(4, 2), nn.ReLU())
batch = Dim("batch", min=1, max=64)
ep = torch.export.export(
    model, (torch.randn(8, 4),), dynamic_shapes=({0: batch},)
)
print(ep.module()(torch.randn(5, 4)).shape)  # any batch in [1, 64]
# > torch.Size([5, 2])
try:
    ep.module()(torch.randn(100, 4))
except AssertionError as err:
    print(err)
# > Guard failed: input.size()[0] <= 64
# --8<-- [end:dynamic]

dynamic_ep, dynamic_model = ep, model

# --8<-- [start:cond]
import torch
from torch import nn


class SignGate(nn.Module):
    # `if x.sum() > 0:` would fail to export: the branch depends on data
    def forward(self, x):
        return torch.cond(
            x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,)
        )


ep = torch.export.export(SignGate(), (torch.randn(3),))
x = torch.tensor([-1.0, -2.0, 0.5])
# both branches kept
print(
    torch.equal(ep.module()(x), x.cos()),
    torch.equal(ep.module()(-x), (-x).sin()),
)
# > True True
# --8<-- [end:cond]

cond_ep = ep


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import io

    import pytest
    from torch.fx.experimental.symbolic_shapes import (
        GuardOnDataDependentSymNode,
    )

    # Static export: the exported module agrees with eager at the traced shape.
    x = torch.randn(8, 4)
    head = Head()
    ep_static = torch.export.export(head, (x,))
    torch.testing.assert_close(ep_static.module()(x), head(x))
    assert len(demo_ep.graph_signature.user_outputs) == 1

    # Dynamic export: the range is recorded, and the program round-trips through a .pt2 file.
    assert [str(r) for r in dynamic_ep.range_constraints.values()] == [
        "VR[1, 64]"
    ]
    buf = io.BytesIO()
    torch.export.save(dynamic_ep, buf)
    buf.seek(0)
    loaded = torch.export.load(buf)
    x3 = torch.randn(3, 4)
    torch.testing.assert_close(loaded.module()(x3), dynamic_model(x3))

    # A Python `if` on a tensor's value cannot be exported; torch.cond keeps both branches.
    class PyIf(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x.sin()
            return x.cos()

    ones = torch.ones(3)
    assert torch.equal(PyIf()(ones), ones.sin()) and torch.equal(
        PyIf()(-ones), (-ones).cos()
    )  # eager is fine
    with pytest.raises(
        GuardOnDataDependentSymNode,
        match="Could not guard on data-dependent expression",
    ):
        torch.export.export(PyIf(), (torch.randn(3),))
    assert any(
        "cond" in str(n.target)
        for n in cond_ep.graph.nodes
        if n.op == "call_function"
    )


if __name__ == "__main__":
    _check()
