"""Dynamo -> AOTAutograd -> Inductor: a backend that prints what each stage hands to the next."""

# --8<-- [start:demo]
import torch
from functorch.compile import make_boxed_func
from torch import nn
from torch._dynamo.backends.common import aot_autograd

graphs = {}


def op_names(gm):
    return [getattr(node.target, "__name__", str(node.target))
            for node in gm.graph.nodes if node.op == "call_function"]


def keep(stage):
    def compiler(gm, example_inputs):  # receives an ATen-level FX graph
        graphs[stage] = op_names(gm)
        # run it as is; Inductor would generate kernels here
        return make_boxed_func(gm.forward)

    return compiler


# Dynamo hands every backend a torch-level FX graph
def my_backend(gm, example_inputs):
    graphs["dynamo"] = op_names(gm)
    aot = aot_autograd(fw_compiler=keep("forward"),
                       bw_compiler=keep("backward"))
    return aot(gm, example_inputs)


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
compiled = torch.compile(model, backend=my_backend)
# the backward graph is compiled at the first backward()
compiled(torch.randn(2, 4)).sum().backward()
# 1. Dynamo: the Python bytecode, captured as torch calls
print(graphs["dynamo"])
# > ['linear', 'relu', 'linear']
print(*graphs["forward"])  # 2. AOTAutograd: the same forward in ATen ops...
# > t.default addmm.default relu.default detach.default t.default addmm.default
# ...and the backward, ahead of time
backward_ops = graphs["backward"]
print(len(backward_ops), "threshold_backward.default" in backward_ops)
# > 16 True
# --8<-- [end:demo]


def _add_one(t):  # for the TorchScript check below
    return t + 1


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The forward graph returns the output plus what the backward needs: the input, ReLU's output and its
    # detached copy (read by threshold_backward), and the transposed second weight.
    saved = {}

    def outputs_of(stage):
        def compiler(gm, example_inputs):
            saved[stage] = [str(a) for a in next(iter(gm.graph.find_nodes(op="output"))).args[0]]
            return make_boxed_func(gm.forward)

        return compiler

    def inspect_backend(gm, example_inputs):
        return aot_autograd(fw_compiler=outputs_of("forward"), bw_compiler=outputs_of("backward"))(gm, example_inputs)

    torch._dynamo.reset()
    probe = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    torch.compile(probe, backend=inspect_backend)(torch.randn(2, 4))
    assert saved["forward"] == ["addmm_1", "primals_3", "relu", "detach", "t_1"]
    assert "backward" not in saved  # already partitioned, but handed to the compiler only at the first backward()
    # The compiled model trains like the eager one: same output, same gradients.
    x = torch.randn(3, 4)
    eager = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    eager.load_state_dict(model.state_dict())
    model.zero_grad()
    compiled(x).sum().backward()
    eager(x).sum().backward()
    for a, b in zip(model.parameters(), eager.parameters(), strict=True):
        torch.testing.assert_close(a.grad, b.grad)
    # The compiled module shares the original's parameters (it wraps it, it doesn't copy it).
    assert compiled._orig_mod is model
    # TorchScript is the older, separate system, and deprecated: scripting warns on 2.14.
    import pytest

    with pytest.warns(FutureWarning, match="`torch.jit.script` is deprecated"):
        scripted = torch.jit.script(_add_one)
    assert scripted(torch.ones(1)).item() == 2.0 and _add_one(torch.ones(1)).item() == 2.0
    # aot_eager is the built-in name for "Dynamo + AOTAutograd, no code generation".
    assert "aot_eager" in torch._dynamo.list_backends(exclude_tags=())
    assert {"inductor", "cudagraphs"} <= set(torch.compiler.list_backends())


if __name__ == "__main__":
    _check()
