"""torch.export's default training IR keeps high-level ops; run_decompositions gives Core ATen."""

# --8<-- [start:demo]
import torch
from torch import nn


def ops(ep):
    return [n.name for n in ep.graph.nodes if n.op == "call_function"]


model = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8), nn.SiLU())
ep = torch.export.export(model, (torch.randn(2, 8),))
print(ops(ep))  # the training IR: composite ops stay whole
# > ['linear', 'layer_norm', 'silu']
core = ep.run_decompositions()  # the default table: Core ATen
print(ops(core))
# > ['permute', 'addmm', 'native_layer_norm', 'getitem', 'sigmoid', 'mul']
table = torch.export.default_decompositions()
del table[torch.ops.aten.linear.default]  # keep linear whole
print(ops(ep.run_decompositions(table))[0])
# > linear
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert torch.Tag.core in torch.ops.aten.addmm.default.tags
    assert torch.Tag.core not in torch.ops.aten.linear.default.tags
    assert torch.Tag.core not in torch.ops.aten.silu.default.tags
    x = torch.randn(2, 8)  # exported with static shapes
    torch.testing.assert_close(core.module()(x), model(x))
    sig = [spec.kind.name for spec in ep.graph_signature.input_specs]
    assert sig == ["PARAMETER"] * 4 + ["USER_INPUT"]
    assert len(table) > 500


if __name__ == "__main__":
    _check()
