"""Step-through (conventions page): the graph of `(w * x + b) ** 2` and the order `backward()` runs it in."""

# --8<-- [start:forward]
import torch

w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
x = torch.tensor(2.0)  # data: needs no gradient
loss = (w * x + b) ** 2
print(loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name())
# > PowBackward0 AddBackward0
# --8<-- [end:forward]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The order the engine runs the nodes in, recorded with a hook on each node: the step-through's order
    # (tests/test_snippet_contract.py also checks the page's steps against this graph).
    ran: list[str] = []
    names = {id(w): "w", id(b): "b"}
    nodes, todo = [], [loss.grad_fn]
    while todo:
        node = todo.pop()
        nodes.append(node)
        todo += [child for child, _ in node.next_functions if child is not None]
    for node in nodes:
        label = type(node).__name__ + (f"({names[id(node.variable)]})" if hasattr(node, "variable") else "")
        node.register_prehook(lambda grad_outputs, label=label: ran.append(label))
    loss.backward()
    assert ran == ["PowBackward0", "AddBackward0", "AccumulateGrad(b)", "MulBackward0", "AccumulateGrad(w)"]
    # The numbers the steps narrate: d(u^2)/du = 2u = 14 at u = w*x + b = 7; x scales it to 28 for w.
    assert b.grad.item() == 14.0 and w.grad.item() == 28.0
    # x needs no gradient: MulBackward0 passes nothing towards it.
    mul = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    assert mul.name() == "MulBackward0" and mul.next_functions[1] == (None, 0) and x.grad is None
    # The graph's saved tensors are freed after one backward().
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


if __name__ == "__main__":
    _check()
