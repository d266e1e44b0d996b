"""Guards and recompiles: a new shape costs one recompile, then the dimension turns dynamic; read the reason."""

# --8<-- [start:shapes]
import torch

graphs = []


# a backend is a function: it sees every graph Dynamo compiles
def counting_backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


def scale(x):
    return torch.tanh(x) * 2


compiled = torch.compile(scale, backend=counting_backend)
for batch in [8, 16, 24, 32, 40]:
    compiled(torch.randn(batch, 4))
# 8: static; 16 fails the size guard -> one recompile with a symbolic size
print(len(graphs))
# > 2

graphs.clear()
# never generalize
static = torch.compile(scale, backend=counting_backend, dynamic=False)
for batch in [8, 16, 24, 32, 40]:
    static(torch.randn(batch, 4))
print(len(graphs))  # one graph per shape
# > 5
# --8<-- [end:shapes]

shapes_scale = scale  # kept for the checks

# --8<-- [start:mark_dynamic]
import torch

graphs = []


def counting_backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


def scale(x):
    return torch.tanh(x) * 2


compiled = torch.compile(scale, backend=counting_backend)
for batch in [8, 16, 24, 32, 40]:
    x = torch.randn(batch, 4)
    # declare dim 0 dynamic up front: no first recompile
    torch._dynamo.mark_dynamic(x, 0)
    compiled(x)
print(len(graphs))
# > 1
# --8<-- [end:mark_dynamic]

dynamic_scale = scale  # kept for the checks

# --8<-- [start:reasons]
import torch


def scale(x):
    return torch.tanh(x) * 2


compiled = torch.compile(scale, backend="eager")
compiled(torch.randn(8, 4))  # warm up: compile once
# e.g. in a test, after warm-up
with torch.compiler.set_stance("fail_on_recompile"):
    try:
        compiled(torch.randn(8, 4, dtype=torch.float64))
    except RuntimeError as err:
        # "- <frame>/<entry>: <the guard that failed>"
        failed_guard = str(err).splitlines()[-1]
        print(failed_guard.split(": ", 1)[1])
# > tensor 'x' dtype mismatch. expected Float, actual Double
# --8<-- [end:reasons]


FACTOR = 1  # a module-level global for the checks


def uses_global(t):
    return t * FACTOR


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The stance is restored when the with-block ends, and the recompile then happens normally.
    doubles = torch.ones(8, 4, dtype=torch.float64)
    torch.testing.assert_close(compiled(doubles), scale(doubles))
    # fail_on_recompile refuses even a first compile: warm up before switching it on.
    fresh = torch.compile(lambda t: t + 1, backend="eager")
    with torch.compiler.set_stance("fail_on_recompile"):
        with pytest.raises(RuntimeError, match="Detected recompile when torch.compile stance is 'fail_on_recompile'"):
            fresh(torch.ones(2))

    # What else is guarded: a Python int argument (one recompile, then it is treated as dynamic too),
    # grad mode, train/eval, and every global Python value the code reads.
    guarded = []

    def count(gm, example_inputs):
        guarded.append(gm)
        return gm.forward

    def times(t, k):
        return t * k

    torch._dynamo.reset()
    f = torch.compile(times, backend=count)
    for k in range(6):
        f(torch.ones(2), k)
    assert len(guarded) == 2

    guarded.clear()
    torch._dynamo.reset()
    f = torch.compile(times, backend=count)
    for k in range(6):
        f(torch.ones(2), 0.5 + k)  # floats: one recompile too
    assert len(guarded) == 2

    guarded.clear()
    torch._dynamo.reset()
    h = torch.compile(uses_global, backend=count)
    for k in range(4):
        globals()["FACTOR"] = k
        h(torch.ones(2))
    assert len(guarded) == 4  # a changing global int: a recompile on every change

    # Sizes 0 and 1 are always specialized: a graph made dynamic for batch >= 2 doesn't serve batch 1.
    guarded.clear()
    torch._dynamo.reset()
    d = torch.compile(scale, backend=count)
    for batch in [8, 16, 24, 1]:
        d(torch.randn(batch, 4))
    assert len(guarded) == 3

    # Re-wrapping the same module every iteration reuses the cache: wasteful, but no recompiles.
    guarded.clear()
    torch._dynamo.reset()
    net = torch.nn.Linear(4, 4)
    for _ in range(4):
        torch.compile(net, backend=count)(torch.randn(2, 4))
    assert len(guarded) == 1

    guarded.clear()
    torch._dynamo.reset()
    lin = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.1))
    g = torch.compile(lin, backend=count)
    g(torch.ones(1, 2))
    with torch.no_grad():
        g(torch.ones(1, 2))
    lin.eval()
    g(torch.ones(1, 2))
    assert len(guarded) == 3

    # Eagerly, the same functions give the same numbers.
    t = torch.randn(3, 4)
    for fn in (shapes_scale, dynamic_scale, scale):
        torch.testing.assert_close(fn(t), torch.tanh(t) * 2)
    torch.testing.assert_close(times(t, 3), t * 3)
    torch.testing.assert_close(uses_global(t), t * FACTOR)

    # The recompile limit: 8 graphs per function, then Dynamo gives up and runs it eagerly.
    assert torch._dynamo.config.recompile_limit == 8
    assert torch._dynamo.config.cache_size_limit == 8  # the older name, still an alias
    assert torch._dynamo.config.automatic_dynamic_shapes is True


if __name__ == "__main__":
    _check()
