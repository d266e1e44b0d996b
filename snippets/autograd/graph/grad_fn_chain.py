"""The recorded graph of `(x @ w + b).sum()`: its nodes, the order backward runs them, and what they save."""

# --8<-- [start:chain]
import torch

w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
x = torch.ones(5)
loss = (x @ w + b).sum()

leaf_names = {id(w): "w", id(b): "b"}


def label(node):
    if node is None:
        return "None"  # an input that needs no gradient: x
    # AccumulateGrad: the node that writes a leaf's .grad
    if hasattr(node, "variable"):
        return f"AccumulateGrad({leaf_names[id(node.variable)]})"
    return node.name()


def show(node, depth=0):
    print("  " * depth + label(node))
    for child, _ in node.next_functions if node is not None else ():
        show(child, depth + 1)


show(loss.grad_fn)  # the root: the op that produced loss
# > SumBackward0
# >   AddBackward0
# >     SqueezeBackward4
# >       MmBackward0
# >         None
# >         AccumulateGrad(w)
# >     AccumulateGrad(b)
# --8<-- [end:chain]

# --8<-- [start:order]
import torch

w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
x = torch.ones(5)
loss = (x @ w + b).sum()

leaf_names = {id(w): "w", id(b): "b"}
ran = []


def record(node):  # a pre-hook fires when the engine is about to run a node
    if hasattr(node, "variable"):
        name = f"AccumulateGrad({leaf_names[id(node.variable)]})"
    else:
        name = node.name()
    node.register_prehook(lambda grad_outputs: ran.append(name))
    for child, _ in node.next_functions:
        if child is not None:
            record(child)


record(loss.grad_fn)
loss.backward()
print(*ran, sep="\n")
# > SumBackward0
# > AddBackward0
# > AccumulateGrad(b)
# > SqueezeBackward4
# > MmBackward0
# > AccumulateGrad(w)
# --8<-- [end:order]

order_w, order_b = w, b  # kept for the checks

# --8<-- [start:saved]
import torch

w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
x = torch.ones(5)

saved = []


def pack(tensor):  # called once for every tensor a node saves for backward
    saved.append(tuple(tensor.shape))
    return tensor


with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
    h = torch.tanh(x @ w + b)
    loss = h.sum()
print(saved)  # mm keeps x (to get dL/dw); tanh keeps its output (to get dL/dz)
# > [(1, 5), (3,)]
# --8<-- [end:saved]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The structure printed above, checked node by node through next_functions.
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    x = torch.ones(5)
    fresh = (x @ w + b).sum()
    root = fresh.grad_fn
    assert root.name() == "SumBackward0" and len(root.next_functions) == 1
    add = root.next_functions[0][0]
    assert add.name() == "AddBackward0"
    squeeze, acc_b = (node for node, _ in add.next_functions)
    assert squeeze.name() == "SqueezeBackward4" and acc_b.variable is b
    (mm,) = (node for node, _ in squeeze.next_functions)
    assert mm.name() == "MmBackward0"
    assert mm.next_functions[0][0] is None and mm.next_functions[1][0].variable is w
    assert acc_b.name() == "torch::autograd::AccumulateGrad"
    # Leaves have no grad_fn; the non-leaf results each point at the node that made them.
    assert w.grad_fn is None and b.grad_fn is None and x.grad_fn is None
    assert w.is_leaf and b.is_leaf and x.is_leaf and not fresh.is_leaf
    # x is 1-D: matmul unsqueezes it to (1, 5) and runs mm, which is the tensor mm saves (x, not w).
    assert mm._saved_self.shape == (1, 5) and torch.equal(mm._saved_self, x.unsqueeze(0))
    assert mm._saved_mat2 is None  # w's value is only needed for dL/dx, and x needs no gradient

    # Execution order: the engine starts at the root, runs a node once all its gradients arrived,
    # and the AccumulateGrad nodes write into .grad, which then holds the chain-rule result.
    assert ran == [
        "SumBackward0",
        "AddBackward0",
        "AccumulateGrad(b)",  # b's gradient is complete after AddBackward0, so it is written first
        "SqueezeBackward4",
        "MmBackward0",
        "AccumulateGrad(w)",
    ]
    assert torch.equal(order_w.grad, torch.ones(5, 3)) and torch.equal(order_b.grad, torch.ones(3))

    # Saved tensors: exactly x (as (1, 5)) for mm and tanh's (3,) output, which is the tensor h itself.
    assert saved == [(1, 5), (3,)]
    assert torch.equal(h.grad_fn._saved_result, h)
    # After backward the saved tensors are freed: touching them again raises.
    loss.backward()  # the `saved` section's loss, first backward
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = h.grad_fn._saved_result


if __name__ == "__main__":
    _check()
