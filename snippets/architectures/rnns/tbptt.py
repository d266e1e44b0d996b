"""Truncated BPTT: carry the state forward, detached, or the second chunk fails."""

# --8<-- [start:demo]
import torch
from torch import nn

lstm, head = nn.LSTM(4, 32, batch_first=True), nn.Linear(32, 4)
params = [*lstm.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
stream = torch.randn(2, 40, 4)  # two long streams, cut into chunks of 10


def train(detach):
    state = None
    for chunk in stream.split(10, dim=1):
        if state is not None and detach:
            state = tuple(s.detach() for s in state)  # both h and c
        out, state = lstm(chunk, state)
        loss = head(out).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return "ok"


try:
    train(detach=False)
except RuntimeError as e:
    print(str(e).split(" (")[0])
# > Trying to backward through the graph a second time
print(train(detach=True))
# > ok
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    def graph_size(fn):
        seen, todo = set(), [fn]
        while todo:
            node = todo.pop()
            if node is not None and node not in seen:
                seen.add(node)
                todo.extend(n for n, _ in node.next_functions)
        return len(seen)

    # The graph behind the state grows without detach and stays constant with it.
    for detach, expect_growing in ((False, True), (True, False)):
        state, sizes = None, []
        for chunk in stream.split(10, dim=1):
            if state is not None and detach:
                state = tuple(s.detach() for s in state)
            _, state = lstm(chunk, state)
            sizes.append(graph_size(state[0].grad_fn))
        steps = {b - a for a, b in zip(sizes, sizes[1:], strict=False)}
        assert (steps == {0}) != expect_growing and len(steps) == 1, sizes

    # retain_graph=True trades the error for a growing graph and then an in-place error.
    def retain():
        state = None
        for chunk in stream.split(10, dim=1):
            out, state = lstm(chunk, state)
            opt.zero_grad()
            head(out).square().mean().backward(retain_graph=True)
            opt.step()

    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        retain()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        train(detach=False)
    assert train(detach=True) == "ok"


if __name__ == "__main__":
    _check()
