"""Watch the engine: a node shared by two paths waits for both gradients, which its input buffer sums."""

# --8<-- [start:forward]
import torch

x = torch.tensor([0.5, 1.0])  # data: needs no gradient
w = torch.tensor([2.0, 3.0], requires_grad=True)
y = x * w
z = y.sin() + y.cos()  # two paths from y
loss = z.sum()
print(loss.grad_fn.name(), y.grad_fn.name())
# > SumBackward0 MulBackward0
# --8<-- [end:forward]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import threading

    ran = []
    names = {id(w): "w"}
    nodes, todo = [], [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node not in nodes:
            nodes.append(node)
            todo += [child for child, _ in node.next_functions if child is not None]
    for node in nodes:
        label = type(node).__name__ + (f"({names[id(node.variable)]})" if hasattr(node, "variable") else "")
        node.register_prehook(lambda grad_outputs, label=label: ran.append((label, threading.get_ident())))
    loss.backward()
    order = [label for label, _ in ran]
    # later-created nodes first: cos was recorded after sin; MulBackward0 waits for both
    assert order == ["SumBackward0", "AddBackward0", "CosBackward0", "SinBackward0", "MulBackward0",
                     "AccumulateGrad(w)"]
    assert {thread for _, thread in ran} == {threading.get_ident()}  # all on the caller's thread
    # the input buffer summed both paths: x * (cos(y) - sin(y))
    expected = x * (torch.cos(x * w) - torch.sin(x * w))
    torch.testing.assert_close(w.grad, expected.detach())
    assert [round(v, 4) for v in w.grad.tolist()] == [-0.1506, -1.1311]


if __name__ == "__main__":
    _check()
