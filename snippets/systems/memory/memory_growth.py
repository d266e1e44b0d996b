"""Memory that grows every iteration: accumulating loss tensors keeps their graphs alive."""

# --8<-- [start:demo]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def graph_size(fn):
    """How many autograd nodes are reachable from `fn`."""
    seen, stack = set(), [fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(next_fn for next_fn, _ in node.next_functions)
    return len(seen)


total = 0
for step in range(1, 11):
    optimizer.zero_grad()
    loss = model(torch.randn(4, 8)).square().mean()
    loss.backward()
    optimizer.step()
    # a tensor: its grad_fn chains this step's graph onto all the previous ones
    total += loss
    if step in (5, 10):
        print(step, graph_size(total.grad_fn))
# > 5 44
# > 10 84
# --8<-- [end:demo]

demo_total = total

# --8<-- [start:retain_graph]
import weakref

import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
weights = {p.data_ptr() for p in model.parameters()}
saved = []  # a weak reference to every activation autograd saves


def pack(t):
    if t.data_ptr() in weights:
        return t
    t = t.detach()  # the graph keeps this alias; it dies with the graph
    saved.append(weakref.ref(t))
    return t


def alive():
    return sum(ref() is not None for ref in saved)


with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    for _ in range(10):
        loss = model(torch.randn(4, 8)).square().mean()
        loss.backward()  # frees what this step saved
    print("backward():", alive())
    for _ in range(10):
        loss = model(torch.randn(4, 8)).square().mean()
        loss.backward(retain_graph=True)  # this step's activations stay ...
    print("retain_graph, plain loop:", alive())  # ... until `loss` is rebound
    total = 0
    for _ in range(10):
        loss = model(torch.randn(4, 8)).square().mean()
        loss.backward(retain_graph=True)
        total = total + loss  # a chain that keeps every graph alive
    print("retain_graph, chained:", alive())
# > backward(): 0
# > retain_graph, plain loop: 4
# > retain_graph, chained: 40
# --8<-- [end:retain_graph]

retain_model, retain_pack, retain_alive, retain_saved = model, pack, alive, saved

# --8<-- [start:buggy]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(50)]


def evaluate(model, batches):
    model.eval()
    losses = []
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        losses.append(loss)
    return sum(losses) / len(losses)


val_loss = evaluate(model, batches)
print(type(val_loss).__name__, val_loss.requires_grad)
# > Tensor True
# --8<-- [end:buggy]

buggy_evaluate, buggy_model, buggy_batches, buggy_val = evaluate, model, batches, val_loss

# --8<-- [start:fixed]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(50)]


@torch.no_grad()  # no graph is built at all
def evaluate(model, batches):
    model.eval()
    losses = []
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        losses.append(loss.item())  # a float: nothing of the batch survives
    return sum(losses) / len(losses)


val_loss = evaluate(model, batches)
print(type(val_loss).__name__)
# > float
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import weakref

    import pytest

    # With .item() the running total is a float and holds no graph.
    running = 0.0
    for _ in range(3):
        running += model(torch.randn(4, 8)).square().mean().item()
    assert isinstance(running, float)
    assert graph_size(demo_total.grad_fn) == 4 + 8 * 10  # 8 nodes per step, plus the 4 shared leaves

    # Q109 and Q42 agree: with a plain backward() each step frees what it saved;
    # summing loss tensors keeps only the growing chain of graph nodes.
    retain_saved.clear()
    chain, sizes = 0, []
    with torch.autograd.graph.saved_tensors_hooks(retain_pack, lambda t: t):
        for _ in range(6):
            step_loss = retain_model(torch.randn(4, 8)).square().mean()
            step_loss.backward()
            chain = chain + step_loss
            sizes.append(graph_size(chain.grad_fn))
            assert retain_alive() == 0  # the step's activations are gone
    assert len(retain_saved) == 6 * 4  # four activations saved per step
    steps = [b - a for a, b in zip(sizes, sizes[1:], strict=False)]
    assert len(set(steps)) == 1 and steps[0] > 0  # same growth every step
    # Reading a kept node's saved tensor proves backward freed it.
    node = chain.grad_fn.next_functions[1][0]  # the last step's MeanBackward0
    with pytest.raises(RuntimeError, match="already been freed"):
        _ = node.next_functions[0][0]._saved_self  # PowBackward0's input

    # retain_graph=True in a plain loop: not a leak. The previous graph lives
    # until `loss` is rebound, so the peak is about two steps' activations and
    # the count never grows; only a chain across steps keeps them all.
    retain_saved.clear()
    peak = 0

    def counting_pack(t):
        nonlocal peak
        out = retain_pack(t)
        peak = max(peak, retain_alive())
        return out

    with torch.autograd.graph.saved_tensors_hooks(counting_pack, lambda t: t):
        after = []
        for _ in range(10):
            step_loss = retain_model(torch.randn(4, 8)).square().mean()
            step_loss.backward(retain_graph=True)
            after.append(retain_alive())
    assert after == [4] * 10  # bounded: one step's activations after each step
    assert 4 < peak <= 8  # during a forward the previous graph is still alive
    del step_loss
    assert retain_alive() == 0  # dropping the last reference frees it
    # Carrying a tensor across steps chains the graphs too (an RNN hidden state
    # that is never detached): then every step's activations stay.
    retain_saved.clear()
    with torch.autograd.graph.saved_tensors_hooks(retain_pack, lambda t: t):
        h = torch.zeros(4, 8)
        for _ in range(5):
            h = torch.tanh(retain_model[0](h)[:, :8] + torch.randn(4, 8))
            h.sum().backward(retain_graph=True)
        assert retain_alive() == len(retain_saved) > 0  # nothing was freed

    # The buggy evaluation keeps every batch's saved activations alive; the fixed one saves none.
    def alive_saved(fn, mdl, data):
        refs = []

        def pack(t):
            refs.append(weakref.ref(t))
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            result = fn(mdl, data)
        return result, sum(r() is not None for r in refs), len(refs)

    result, alive, packed = alive_saved(buggy_evaluate, buggy_model, buggy_batches)
    assert packed > 0 and alive == packed  # nothing freed: it grows with the number of batches
    short, alive_short, _ = alive_saved(buggy_evaluate, buggy_model, buggy_batches[:10])
    assert alive == 5 * alive_short
    fixed_result, _, fixed_packed = alive_saved(evaluate, buggy_model, buggy_batches)
    assert fixed_packed == 0
    assert abs(fixed_result - result.item()) < 1e-6 and abs(buggy_val.item() - result.item()) < 1e-6
    del result, short


if __name__ == "__main__":
    _check()
