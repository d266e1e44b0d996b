"""Graph breaks: find them with torch._dynamo.explain, forbid them with fullgraph=True, and rewrite them away."""

# --8<-- [start:explain]
import logging

import torch

log = logging.getLogger("model")


def normalize(x):
    y = torch.relu(x) * 2
    log.debug("activations ready")  # logging: Dynamo can't trace it
    peak = y.max().item()  # a Python float: the value must leave the graph
    return y / peak


report = torch._dynamo.explain(normalize)(torch.randn(16))
print(report.graph_count, report.graph_break_count)
# > 3 2
for reason in report.break_reasons:
    print(reason.reason.splitlines()[0])
# > logging.Logger method not supported for non-export cases
# > Unsupported Tensor.item() call with capture_scalar_outputs=False
# --8<-- [end:explain]

explained = normalize  # kept for the checks

# --8<-- [start:fullgraph]
import logging

import torch

log = logging.getLogger("model")


def normalize(x):
    y = torch.relu(x) * 2
    log.debug("activations ready")
    return y / y.max().item()


try:
    torch.compile(normalize, backend="eager", fullgraph=True)(torch.randn(16))
# a RuntimeError subclass, raised while tracing
except torch._dynamo.exc.Unsupported as err:
    print(str(err).splitlines()[0])
# > logging.Logger method not supported for non-export cases


# log outside the compiled function; divide by a tensor, not a float
def normalize_in_graph(x):
    y = torch.relu(x) * 2
    return y / y.max()


compiled = torch.compile(normalize_in_graph, backend="eager", fullgraph=True)
print(torch._dynamo.explain(normalize_in_graph)(torch.randn(16)).graph_count)
# > 1
# --8<-- [end:fullgraph]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    x = torch.rand(16) + 0.1
    # A break changes where graphs end, not the result.
    torch.testing.assert_close(explained(x), normalize_in_graph(x))
    torch.testing.assert_close(torch.compile(explained, backend="eager")(x), normalize_in_graph(x))
    torch.testing.assert_close(torch.compile(normalize, backend="eager")(x), normalize_in_graph(x))
    torch.testing.assert_close(compiled(x), normalize(x))
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="logging.Logger method not supported"):
        torch.compile(normalize, backend="eager", fullgraph=True)(x)
    assert issubclass(torch._dynamo.exc.Unsupported, RuntimeError)

    # On 2.14, fullgraph=True also turns on scalar capture: .item() alone no longer fails, it becomes a
    # symbolic value inside the one graph. Without fullgraph it is a break unless capture_scalar_outputs=True.
    def scale_by_peak(t):
        y = torch.relu(t) * 2
        return y / y.max().item()

    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    torch.testing.assert_close(torch.compile(scale_by_peak, backend=counting, fullgraph=True)(x), normalize_in_graph(x))
    assert len(graphs) == 1
    assert "item" in [str(n.target) for n in graphs[0].graph.nodes]
    assert torch._dynamo.explain(scale_by_peak)(x).graph_break_count == 1
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        assert torch._dynamo.explain(scale_by_peak)(x).graph_break_count == 0

    # Other classic breaks: print(), a float tensor's .tolist(), a data-dependent `if`.
    def chatty(t):
        t = t + 1
        print("debug")
        return t * 2

    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="Failed to trace builtin operator"):
        torch.compile(chatty, backend="eager", fullgraph=True)(x)

    def as_list(t):
        return t.softmax(-1).tolist()

    with pytest.raises(torch._dynamo.exc.Unsupported, match=r"Tensor\.tolist\(\) with non-integer tensor"):
        torch.compile(as_list, backend="eager", fullgraph=True)(x)

    def branch(t):
        return t if t.sum() > 0 else -t

    with pytest.raises(torch._dynamo.exc.Unsupported, match="Data-dependent branching"):
        torch.compile(branch, backend="eager", fullgraph=True)(x)

    # torch._dynamo.graph_break() forces one, e.g. to test code around a break.
    def forced(t):
        t = t + 1
        torch._dynamo.graph_break()
        return t * 2

    assert torch._dynamo.explain(forced)(x).graph_break_count == 1

    # torch.compiler.disable marks a function Dynamo skips: a deliberate break around it.
    @torch.compiler.disable
    def opaque(t):
        return t * 2

    def around(t):
        return opaque(t + 1) - 1

    skipped = torch._dynamo.explain(around)(x)
    assert skipped.graph_break_count == 1
    assert skipped.break_reasons[0].reason.startswith("Skip calling `torch.compiler.disable()`d function")
    torch.testing.assert_close(around(x), (x + 1) * 2 - 1)

    # Eagerly, with no tracer involved, all of them simply run.
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()) as printed:
        torch.testing.assert_close(chatty(x), (x + 1) * 2)
    assert printed.getvalue() == "debug\n"
    torch.testing.assert_close(scale_by_peak(x), normalize_in_graph(x))
    assert len(as_list(x)) == 16
    torch.testing.assert_close(branch(x), x)
    torch.testing.assert_close(forced(x), (x + 1) * 2)


if __name__ == "__main__":
    _check()
