"""Spot the bug: a Python int attribute mutated in forward is guarded on, so every call recompiles."""

# --8<-- [start:buggy]
import torch
from torch import nn

graphs = []


# stands in for Inductor and counts compilations
def counting_backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        self.calls = 0

    def forward(self, x):
        self.calls += 1  # usage statistics
        return self.body(x)


model = torch.compile(Classifier(), backend=counting_backend)
x = torch.randn(8, 16)
for _ in range(6):
    logits = model(x)
print("compilations:", len(graphs))
# > compilations: 6
# --8<-- [end:buggy]

BuggyClassifier, buggy_graphs, buggy_model = Classifier, graphs, model

# --8<-- [start:fixed]
import torch
from torch import nn

graphs = []


# stands in for Inductor and counts compilations
def counting_backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        calls = torch.zeros((), dtype=torch.long)
        self.register_buffer("calls", calls, persistent=False)

    def forward(self, x):
        # a tensor: updated inside the graph, nothing to guard on
        self.calls += 1
        return self.body(x)


model = torch.compile(Classifier(), backend=counting_backend)
x = torch.randn(8, 16)
for _ in range(6):
    logits = model(x)
print("compilations:", len(graphs), "| calls:", model.calls.item())
# > compilations: 1 | calls: 6
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The buggy model counted correctly too -- it just recompiled for every new value of self.calls.
    assert buggy_model.calls == 6 and len(buggy_graphs) == 6
    # The guard that failed is the int's value, and Dynamo says so.
    with torch.compiler.set_stance("fail_on_recompile"):
        with pytest.raises(RuntimeError, match=r"self\.calls == 5"):
            buggy_model(x)

    # Past the recompile limit (8 by default; 3 here to keep the check fast), Dynamo stops compiling this
    # frame and runs it eagerly: still correct, but every compilation before that was paid for.
    assert torch._dynamo.config.recompile_limit == 8
    torch._dynamo.reset()
    counted = []

    def count(gm, example_inputs):
        counted.append(gm)
        return gm.forward

    import io
    import logging

    eager = BuggyClassifier()
    limited = torch.compile(eager, backend=count)
    captured = io.StringIO()
    handler = logging.StreamHandler(captured)
    dynamo_log = logging.getLogger("torch._dynamo")
    dynamo_log.addHandler(handler)
    try:
        with torch._dynamo.config.patch(recompile_limit=3):
            outs = [limited(x) for _ in range(6)]
    finally:
        dynamo_log.removeHandler(handler)
    assert "hit config.recompile_limit (3)" in captured.getvalue()
    assert "considers integer attributes of the nn.Module to be static" in captured.getvalue()
    assert len(counted) == 3 and eager.calls == 6
    torch.testing.assert_close(outs[-1], eager.body(x))

    # The fixed model: one graph, and the buffer mutation happens inside it; results match eager.
    assert len(graphs) == 1 and model.calls.item() == 6
    torch.testing.assert_close(logits, model._orig_mod(x))  # eager forward: same logits, and it counts too
    assert model.calls.item() == 7
    # Other fixes with the same effect: count outside the compiled call, or let Dynamo treat module
    # ints as dynamic (one recompile, then a symbolic int).
    torch._dynamo.reset()
    counted.clear()
    with torch._dynamo.config.patch(allow_unspec_int_on_nn_module=True):
        unspec = torch.compile(BuggyClassifier(), backend=count)
        for _ in range(6):
            unspec(x)
    assert len(counted) == 2


if __name__ == "__main__":
    _check()
