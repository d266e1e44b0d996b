"""Watch the engine: a node shared by two paths waits for both gradients, which its input buffer sums."""

# --8<-- [start:forward]
import torch

x = torch.tensor([0.5, 1.0])
w = torch.tensor([2.0, 3.0], requires_grad=True)
y = x * w
z = y.sin() + y.cos()
loss = z.sum()
loss.backward()
print(w.grad)  # x * (cos(y) - sin(y)), both paths summed
# > tensor([-0.1506, -1.1311])
# --8<-- [end:forward]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import threading

    expected = x * (torch.cos(x * w) - torch.sin(x * w))
    torch.testing.assert_close(w.grad, expected.detach())
    # the engine's order, recorded with pre-hooks, on the caller's thread
    w.grad = None
    y2 = x * w
    out = (y2.sin() + y2.cos()).sum()
    ran = []
    nodes = [out.grad_fn, out.grad_fn.next_functions[0][0]]
    nodes += [f for f, _ in nodes[1].next_functions]
    nodes.append(y2.grad_fn)
    for n in nodes:
        n.register_prehook(lambda g, n=n: ran.append((n.name(), threading.get_ident())))
    out.backward()
    assert [name for name, _ in ran][:2] == ["SumBackward0", "AddBackward0"]
    assert [name for name, _ in ran][-1] == "MulBackward0"  # runs once, after both paths
    assert {t for _, t in ran} == {threading.get_ident()}


if __name__ == "__main__":
    _check()
