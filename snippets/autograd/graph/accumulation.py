"""Gradients accumulate into .grad (+=), which is why you zero them, and why micro-batch accumulation works."""

# --8<-- [start:demo]
import torch

w = torch.tensor([1.0, 1.0], requires_grad=True)
for _ in range(2):
    loss = (3 * w).sum()  # a fresh graph each time
    loss.backward()  # adds 3 to w.grad
print(w.grad)
# > tensor([6., 6.])
w.grad = None  # what optimizer.zero_grad() does by default (set_to_none=True)
# --8<-- [end:demo]

# --8<-- [start:micro_batches]
import torch
from torch import nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)

opt.zero_grad()
# 4 micro-batches of 2
for xb, yb in zip(x.chunk(4), y.chunk(4), strict=True):
    loss = nn.functional.mse_loss(model(xb), yb) / 4  # the sum is a mean
    loss.backward()  # grads add up; each micro-batch graph is freed at once
full_batch = nn.functional.mse_loss(model(x), y)
(reference,) = torch.autograd.grad(full_batch, model.weight)
print(torch.allclose(model.weight.grad, reference))
# > True
opt.step()
# --8<-- [end:micro_batches]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Accumulation is a plain +=: two backward calls give twice the gradient.
    assert w.grad is None
    v = torch.tensor([1.0, 1.0], requires_grad=True)
    (3 * v).sum().backward()
    first = v.grad.clone()
    (3 * v).sum().backward()
    assert torch.equal(v.grad, 2 * first)

    # zero_grad() sets .grad to None by default (since torch 2.0); set_to_none=False keeps zeroed tensors.
    p = torch.nn.Parameter(torch.ones(2))
    opt2 = torch.optim.SGD([p], lr=0.1)
    p.sum().backward()
    opt2.zero_grad()
    assert p.grad is None
    p.sum().backward()
    opt2.zero_grad(set_to_none=False)
    assert torch.equal(p.grad, torch.zeros(2))

    # Forgetting zero_grad: after k steps .grad is the sum of all k gradients, yet on an easy problem
    # the loss still goes down at first, so nothing looks broken.
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 1)
    sgd = torch.optim.SGD(lin.parameters(), lr=0.01)
    data, target = torch.randn(16, 3), torch.randn(16, 1)
    seen, losses = [], []
    for _ in range(5):
        step_loss = torch.nn.functional.mse_loss(lin(data), target)
        seen.append(torch.autograd.grad(step_loss, lin.weight, retain_graph=True)[0])
        step_loss.backward()  # no zero_grad
        sgd.step()
        losses.append(step_loss.item())
    torch.testing.assert_close(lin.weight.grad, sum(seen))
    assert losses[-1] < losses[0]

    # The accumulated micro-batch gradient equals the full-batch gradient, for the bias too.
    torch.testing.assert_close(model.weight.grad, reference)
    # The step has moved the weights (w - lr * grad); rebuild the pre-step model to check the bias too.
    start_weight = model.weight.detach() + 0.1 * model.weight.grad
    start_bias = model.bias.detach() + 0.1 * model.bias.grad
    twin = torch.nn.Linear(4, 1)
    with torch.no_grad():
        twin.weight.copy_(start_weight)
        twin.bias.copy_(start_bias)
    for xb, yb in zip(x.chunk(4), y.chunk(4), strict=True):
        (torch.nn.functional.mse_loss(twin(xb), yb) / 4).backward()
    full_w, full_b = torch.autograd.grad(torch.nn.functional.mse_loss(twin(x), y), (twin.weight, twin.bias))
    torch.testing.assert_close(twin.weight.grad, full_w)
    torch.testing.assert_close(twin.bias.grad, full_b)
    # Without the / 4, the accumulated gradient is 4x the mean-loss gradient (a 4x larger effective lr).
    twin.zero_grad()
    for xb, yb in zip(x.chunk(4), y.chunk(4), strict=True):
        torch.nn.functional.mse_loss(twin(xb), yb).backward()
    torch.testing.assert_close(twin.weight.grad, 4 * full_w)
    # Forgetting / 4 is "a 4x learning rate" for SGD only. Adam and AdamW divide by the running RMS
    # of the gradient, so a constant factor cancels (up to eps); the total norm that
    # clip_grad_norm_ sees is 4x, so a max_norm tuned for the mean clips 4x harder.
    def _first_step(opt_class, divide, max_norm=None):
        torch.manual_seed(0)
        net = torch.nn.Linear(4, 1)
        opt_k = opt_class(net.parameters(), lr=0.1)
        data, target = torch.randn(8, 4), torch.randn(8, 1)
        before = torch.nn.utils.parameters_to_vector(net.parameters()).detach()
        for xb, yb in zip(data.chunk(4), target.chunk(4), strict=True):
            micro = torch.nn.functional.mse_loss(net(xb), yb)
            (micro / 4 if divide else micro).backward()
        norm = torch.nn.utils.get_total_norm([q.grad for q in net.parameters()])
        if max_norm is not None:
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm)
        clipped = torch.nn.utils.get_total_norm([q.grad for q in net.parameters()])
        opt_k.step()
        after = torch.nn.utils.parameters_to_vector(net.parameters()).detach()
        return after - before, norm, clipped

    sgd_mean, norm_mean, _ = _first_step(torch.optim.SGD, divide=True)
    sgd_sum, norm_sum, _ = _first_step(torch.optim.SGD, divide=False)
    torch.testing.assert_close(sgd_sum, 4 * sgd_mean)  # SGD: the step is 4x
    torch.testing.assert_close(norm_sum, 4 * norm_mean)  # every optimizer: the norm is 4x
    for adaptive in (torch.optim.Adam, torch.optim.AdamW):
        step_mean, _, _ = _first_step(adaptive, divide=True)
        step_sum, _, _ = _first_step(adaptive, divide=False)
        torch.testing.assert_close(step_sum, step_mean)  # the normaliser absorbs the 4
        assert not torch.allclose(step_sum, 4 * step_mean)  # "a 4x lr" is wrong here
    # A threshold between the two norms: untouched with / 4, clipped without it.
    threshold = 2 * norm_mean.item()
    _, _, kept = _first_step(torch.optim.SGD, divide=True, max_norm=threshold)
    _, _, cut = _first_step(torch.optim.SGD, divide=False, max_norm=threshold)
    torch.testing.assert_close(kept, norm_mean)
    torch.testing.assert_close(cut, torch.tensor(threshold))

    # Each micro-batch graph was freed by its backward: a second pass over the last one raises.
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


if __name__ == "__main__":
    _check()
