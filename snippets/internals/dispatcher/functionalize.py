"""Functionalization: views and in-place ops rewritten out of place, input mutation applied once by copy_."""

# --8<-- [start:demo]
import torch
from torch.func import functionalize
from torch.fx.experimental.proxy_tensor import make_fx


def f(x):
    y = x.view(-1)
    y.add_(1)  # mutates x through a view
    x.mul_(2)  # mutates the input directly
    return x.sum()


def inplace_ops(gm):  # ATen in-place overloads end in "_"
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    return [t for t in targets if t.split(".")[1].endswith("_")]


print(inplace_ops(make_fx(f)(torch.ones(2, 2))))
# > ['aten.add_.Tensor', 'aten.mul_.Tensor']
pure = make_fx(functionalize(f))(torch.ones(2, 2))
print(inplace_ops(pure))  # one write-back into the input, at the end
# > ['aten.copy_.default']
a, b = torch.ones(2, 2), torch.ones(2, 2)
print(f(a).item(), pure(b).item(), torch.equal(a, b))
# > 16.0 16.0 True
# --8<-- [end:demo]

# --8<-- [start:export]
import torch
from torch import nn


def kinds(ep):
    return [s.kind.name for s in ep.graph_signature.output_specs]


ep = torch.export.export(nn.BatchNorm1d(4).train(), (torch.randn(8, 4),))
print(kinds(ep))  # training IR: in-place running-stat updates stay inside
# > ['USER_OUTPUT']
functional = ep.run_decompositions()
print(kinds(functional))  # functional: the updates become outputs
# > ['BUFFER_MUTATION', 'BUFFER_MUTATION', 'BUFFER_MUTATION', 'USER_OUTPUT']
# --8<-- [end:export]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    def targets(gm):
        return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]

    last = [n for n in pure.graph.nodes if n.op == "call_function"][-1]
    assert str(last.target) == "aten.copy_.default" and last.args[0].op == "placeholder"
    views = make_fx(functionalize(f, remove="mutations_and_views"))(torch.ones(2, 2))
    assert "aten.view_copy.default" in targets(views) and "aten.view.default" not in targets(views)
    assert inplace_ops(views) == ["aten.copy_.default"]
    training = targets(ep.graph_module)
    assert "aten.add_.Tensor" in training and "aten.batch_norm.default" in training
    decomposed = targets(functional.graph_module)
    assert "aten._native_batch_norm_legit_functional.default" in decomposed
    assert not any(t.startswith("aten.") and t.split(".")[1].endswith("_") for t in decomposed)

    class AddOne(nn.Module):
        def forward(self, x):
            x.add_(1)
            return x * 2

    user = torch.export.export(AddOne(), (torch.ones(3),))
    assert "USER_INPUT_MUTATION" not in kinds(user)
    assert "USER_INPUT_MUTATION" in kinds(user.run_decompositions())


if __name__ == "__main__":
    _check()
