"""A Python `if` on a tensor value works in eager mode, breaks the graph in torch.compile and fails torch.export."""

# --8<-- [start:compile]
import torch


def gate(x):
    if x.sum() > 0:  # needs the value of x: unknown while tracing
        return x * 2
    return x - 1


# Dynamo only, no code generation
compiled = torch.compile(gate, backend="eager")
print(compiled(torch.ones(3)), compiled(-torch.ones(3)))  # still correct
# > tensor([2., 2., 2.]) tensor([-2., -2., -2.])
report = torch._dynamo.explain(gate)(torch.ones(3))
print(report.graph_count, report.graph_break_count)  # split in two at the `if`
# > 2 1
try:
    torch.compile(gate, backend="eager", fullgraph=True)(torch.ones(3))
except torch._dynamo.exc.Unsupported as err:
    print(str(err).splitlines()[0])
# > Data-dependent branching
# --8<-- [end:compile]

gate_fn = gate  # kept for the checks

# --8<-- [start:guards]
import torch

graphs = []


# a backend sees each captured graph
def counting_backend(graph_module, example_inputs):
    graphs.append(graph_module)
    return graph_module.forward


def scale(x, training):
    if training:  # a Python bool: specialised and guarded, no graph break
        return x * 0.5
    return x


compiled = torch.compile(scale, backend=counting_backend, fullgraph=True)
compiled(torch.ones(3), True)
compiled(torch.ones(3), True)  # guard passes: reuses the graph
print(len(graphs))
# > 1
compiled(torch.ones(3), False)  # guard fails: recompiles
print(len(graphs))
# > 2
# --8<-- [end:guards]

# --8<-- [start:export]
import torch


class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


try:
    torch.export.export(Gate(), (torch.ones(3),))
except RuntimeError as err:
    print(type(err).__name__)
    print(str(err).splitlines()[0].split(" (unhinted")[0])
# > GuardOnDataDependentSymNode
# > Could not guard on data-dependent expression Eq(u0, 1)
# --8<-- [end:export]

EagerGate = Gate  # kept for the checks

# --8<-- [start:cond]
import torch


class Gate(torch.nn.Module):
    # both branches are traced; the choice is made at run time
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x - 1, (x,))


program = torch.export.export(Gate(), (torch.ones(3),))
gate = program.module()
print(gate(torch.ones(3)), gate(-torch.ones(3)))
# > tensor([2., 2., 2.]) tensor([-2., -2., -2.])
# --8<-- [end:cond]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch._dynamo.utils import counters
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    # Guards: a Python-value branch compiles once per value, never twice for the same one.
    assert len(graphs) == 2
    compiled(torch.ones(3), False)
    assert len(graphs) == 2
    torch.testing.assert_close(compiled(torch.ones(3), True), torch.full((3,), 0.5))

    # Without fullgraph, Dynamo records the data-dependent branch as a graph break and falls back to Python.
    torch._dynamo.reset()
    counters.clear()
    eager_compiled = torch.compile(gate_fn, backend="eager")
    torch.testing.assert_close(eager_compiled(torch.ones(3)), torch.full((3,), 2.0))
    assert any(reason.startswith("Data-dependent branching") for reason in counters["unimplemented"])
    assert counters["stats"]["unique_graphs"] == 2  # the code before the `if`, and the branch that ran
    # fullgraph=True turns the graph break into an error (a RuntimeError subclass).
    assert issubclass(torch._dynamo.exc.Unsupported, RuntimeError)
    torch._dynamo.reset()  # compiled code is cached per function: start clean before recompiling it
    with pytest.raises(torch._dynamo.exc.Unsupported, match="Data-dependent branching"):
        torch.compile(gate_fn, backend="eager", fullgraph=True)(-torch.ones(3))

    # torch.export traces non-strictly by default on this version...
    import inspect

    assert inspect.signature(torch.export.export).parameters["strict"].default is False
    # ...and refuses the data-dependent branch...
    with pytest.raises(GuardOnDataDependentSymNode, match="Could not guard on data-dependent expression"):
        torch.export.export(EagerGate(), (torch.ones(3),))
    # ...and a shape branch is specialised to the example shape, with a guard checked at call time.
    class ShapeGate(torch.nn.Module):
        def forward(self, x):
            return x * 2 if x.shape[0] > 2 else x - 1

    specialised = torch.export.export(ShapeGate(), (torch.ones(3),)).module()
    torch.testing.assert_close(specialised(torch.ones(3)), torch.full((3,), 2.0))
    with pytest.raises(AssertionError, match=r"Guard failed: x\.size\(\)\[0\] == 3"):
        specialised(torch.ones(2))
    # torch.cond exports one program holding both branches, and compiles without a graph break.
    assert gate(torch.tensor([5.0, -1.0, 0.0])).tolist() == [10.0, -2.0, 0.0]
    assert gate(torch.tensor([-5.0, 1.0, 0.0])).tolist() == [-6.0, 0.0, -1.0]
    cond_compiled = torch.compile(Gate(), backend="eager", fullgraph=True)
    torch.testing.assert_close(cond_compiled(-torch.ones(3)), torch.full((3,), -2.0))
    # In eager mode, with no tracer involved, every one of these plain Python branches just works.
    assert EagerGate()(-torch.ones(3)).tolist() == [-2.0, -2.0, -2.0]
    assert EagerGate()(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert gate_fn(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert gate_fn(-torch.ones(3)).tolist() == [-2.0, -2.0, -2.0]
    assert scale(torch.ones(3), True).tolist() == [0.5, 0.5, 0.5]
    assert scale(torch.ones(3), False).tolist() == [1.0, 1.0, 1.0]


if __name__ == "__main__":
    _check()
