"""An FX pass that rewrites relu into gelu: on a traced graph and inside torch.compile, checked against eager."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import fx, nn


def relu_to_gelu(gm: fx.GraphModule) -> int:
    rewritten = 0
    for node in list(gm.graph.nodes):
        is_relu = (
            node.op == "call_function"
            and node.target in (torch.relu, F.relu)
        ) or (node.op == "call_method" and node.target == "relu")
        if not is_relu:
            continue
        with gm.graph.inserting_after(node):
            gelu = gm.graph.call_function(F.gelu, (node.args[0],))
        node.replace_all_uses_with(gelu)
        gm.graph.erase_node(node)
        rewritten += 1
    gm.graph.lint()
    gm.recompile()  # regenerate gm.code, or the old code runs
    return rewritten


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, x):
        return self.b(F.relu(self.a(x))).relu()  # two spellings


model, x = MLP(), torch.randn(3, 4)
gm = fx.symbolic_trace(model)
print(relu_to_gelu(gm))
# > 2
ref = model.b(F.gelu(model.a(x)))
ref = F.gelu(ref)
print(torch.allclose(gm(x), ref))
# > True
# --8<-- [end:demo]

# --8<-- [start:backend]
seen = []


def gelu_backend(gm, example_inputs):
    seen.append([n.target if n.op == "call_method" else n.target.__name__
                 for n in gm.graph.nodes
                 if n.op in ("call_function", "call_method")])
    relu_to_gelu(gm)
    return gm.forward


out = torch.compile(model, backend=gelu_backend)(x)
print(seen)
# > [['linear', 'relu', 'linear', 'relu']]
print(torch.allclose(out, ref))
# > True
# --8<-- [end:backend]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert "torch._C._nn.gelu" in gm.code
    assert "relu" not in gm.code
    # Dynamo's graph has the inlined functional call, Tensor.relu stays a method call
    kinds = {n.op for n in fx.symbolic_trace(model).graph.nodes}
    assert "call_module" in kinds  # symbolic_trace keeps modules; Dynamo inlines them

    # replace_pattern rewrites a whole pattern: mul + add into addcmul
    def pattern(a, b, c):
        return torch.add(a, torch.mul(b, c))

    def replacement(a, b, c):
        return torch.addcmul(a, b, c)

    def fn(a, b, c):
        return torch.add(a, torch.mul(b, c)).sum()

    traced = fx.symbolic_trace(fn)
    matches = fx.subgraph_rewriter.replace_pattern(traced, pattern, replacement)
    assert len(matches) == 1
    abc = [torch.randn(3) for _ in range(3)]
    torch.testing.assert_close(traced(*abc), fn(*abc))
    assert "addcmul" in traced.code


if __name__ == "__main__":
    _check()
