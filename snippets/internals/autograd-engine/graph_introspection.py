"""Inspecting the autograd graph: nodes, saved tensors, version counters, node hooks, anomaly metadata."""

# --8<-- [start:saved]
import torch

x = torch.randn(3, requires_grad=True)
y = x.exp()
node = y.grad_fn
print(node.name(), [a for a in dir(node) if "saved" in a])
# > ExpBackward0 ['_raw_saved_result', '_saved_result']
print(torch.equal(node._saved_result, y), node._saved_result is y)
# > True False
y.mul_(2)  # bumps y's version counter: 0 -> 1
try:
    y.sum().backward()
except RuntimeError as error:
    print("is at version 1; expected version 0" in str(error))
# > True
# --8<-- [end:saved]

# --8<-- [start:hooks]
import torch

order = []
x = torch.randn(3, requires_grad=True)
y = x.sin()
y.grad_fn.register_prehook(lambda grad_out: order.append("pre"))
y.grad_fn.register_hook(lambda grad_in, grad_out: order.append("post"))
y.sum().backward()
print(order)
# > ['pre', 'post']

with torch.autograd.detect_anomaly():
    z = x.cos()
print("traceback_" in z.grad_fn.metadata)  # where the forward op ran
# > True
# --8<-- [end:hooks]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import inspect

    # allow_mutation_on_saved_tensors clones on mutation instead of failing backward
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        a = torch.randn(3, requires_grad=True)
        b = a.exp()
        b.mul_(2)
        b.sum().backward()
    torch.testing.assert_close(a.grad, 2 * a.detach().exp())
    assert "check_nan" in inspect.signature(torch.autograd.detect_anomaly).parameters
    assert torch.equal(x.grad, x.detach().cos())


if __name__ == "__main__":
    _check()
