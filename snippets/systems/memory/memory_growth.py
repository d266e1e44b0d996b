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
    total += loss  # a tensor: this step's graph is chained onto all the previous ones
    if step in (5, 10):
        print(step, graph_size(total.grad_fn))
# > 5 44
# > 10 84
# --8<-- [end:demo]

demo_total = total

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

    # With .item() the running total is a float and holds no graph.
    running = 0.0
    for _ in range(3):
        running += model(torch.randn(4, 8)).square().mean().item()
    assert isinstance(running, float)
    assert graph_size(demo_total.grad_fn) == 4 + 8 * 10  # 8 nodes per step, plus the 4 shared leaves

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
