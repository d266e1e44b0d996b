"""torch.func: grad as a transform, vmap for per-sample gradients, functional_call to run a module on other weights."""

# --8<-- [start:grad]
import torch
from torch.func import grad


def f(x):
    return (x**3).sum()


df = grad(f)  # a new function: x -> df/dx, no .backward(), no .grad
d2f = grad(lambda x: df(x).sum())  # transforms compose
x = torch.tensor([1.0, 2.0])
print(df(x), d2f(x))
# > tensor([ 3., 12.]) tensor([ 6., 12.])
# --8<-- [end:grad]

# --8<-- [start:per_sample]
import torch
from torch import nn
from torch.func import grad, vmap

model = nn.Linear(3, 1)
params = {name: p.detach() for name, p in model.named_parameters()}
xs, ys = torch.randn(8, 3), torch.randn(8, 1)


# the loss of ONE sample, written as a pure function
def loss_one(params, x, y):
    # model, run on `params`
    pred = torch.func.functional_call(model, params, (x.unsqueeze(0),))
    return nn.functional.mse_loss(pred, y.unsqueeze(0))


per_sample = vmap(grad(loss_one), in_dims=(None, 0, 0))(params, xs, ys)
# one gradient per sample
print({name: tuple(g.shape) for name, g in per_sample.items()})
# > {'weight': (8, 1, 3), 'bias': (8, 1)}
# --8<-- [end:per_sample]

pm_model, pm_xs, pm_ys, pm_grads = model, xs, ys, per_sample  # kept for the checks

# --8<-- [start:functional_call]
import torch
from torch import nn
from torch.func import functional_call

model = nn.Linear(2, 1)
x, y = torch.randn(4, 2), torch.randn(4, 1)
params = dict(model.named_parameters())

inner_loss = nn.functional.mse_loss(functional_call(model, params, (x,)), y)
grads = torch.autograd.grad(
    inner_loss, list(params.values()), create_graph=True
)
# one SGD step, as a graph
fast = {
    name: p - 0.1 * g
    for (name, p), g in zip(params.items(), grads, strict=True)
}

# the model, on the adapted weights
outer_loss = nn.functional.mse_loss(functional_call(model, fast, (x,)), y)
outer_loss.backward()  # differentiates through the inner step (MAML)
print(model.weight.grad.shape, torch.equal(model.weight, params["weight"]))
# > torch.Size([1, 2]) True
# --8<-- [end:functional_call]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch.func import grad as func_grad

    # grad(f) is the derivative function: 3x^2, and its derivative 6x.
    torch.testing.assert_close(df(torch.tensor([1.0, 2.0])), torch.tensor([3.0, 12.0]))
    torch.testing.assert_close(d2f(torch.tensor([1.0, 2.0])), torch.tensor([6.0, 12.0]))

    # Per-sample gradients match a Python loop of one backward per sample.
    for i in range(8):
        pm_model.zero_grad()
        nn.functional.mse_loss(pm_model(pm_xs[i : i + 1]), pm_ys[i : i + 1]).backward()
        torch.testing.assert_close(pm_grads["weight"][i], pm_model.weight.grad)
        torch.testing.assert_close(pm_grads["bias"][i], pm_model.bias.grad)
    # Their mean is the ordinary batch gradient of the mean loss.
    pm_model.zero_grad()
    nn.functional.mse_loss(pm_model(pm_xs), pm_ys).backward()
    torch.testing.assert_close(pm_grads["weight"].mean(0), pm_model.weight.grad)

    # functional_call ran the module on `fast` without touching its own parameters, and the outer
    # gradient includes the second-order term: it differs from the plain gradient at the fast weights.
    assert model.weight.grad is not None and model.bias.grad is not None
    adapted = {name: t.detach().requires_grad_() for name, t in fast.items()}
    first_order = torch.autograd.grad(
        nn.functional.mse_loss(functional_call(model, adapted, (x,)), y), adapted["weight"]
    )[0]
    assert not torch.allclose(model.weight.grad, first_order)
    # The classic mistake: calling model(x) inside the transformed function ignores the passed dict,
    # so torch.func.grad reports zeros for it.
    ignored = {k: v.detach() for k, v in model.named_parameters()}
    wrong = torch.func.grad(lambda p: nn.functional.mse_loss(model(x), y))(ignored)
    assert all(torch.equal(g, torch.zeros_like(g)) for g in wrong.values())
    # BatchNorm in train mode mutates its running stats in place, which the transforms refuse;
    # replace_all_batch_norm_modules_ stops the tracking so the same call works.
    bn_model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    bn_params = {k: v.detach() for k, v in bn_model.named_parameters()}

    def bn_loss(p, sample):
        buffers = dict(bn_model.named_buffers())
        return functional_call(bn_model, (p, buffers), (sample.unsqueeze(0).expand(2, 3),)).sum()

    with pytest.raises(RuntimeError, match="attempted to call in-place operation"):
        torch.func.vmap(func_grad(bn_loss), in_dims=(None, 0))(bn_params, torch.randn(5, 3))
    torch.func.replace_all_batch_norm_modules_(bn_model)
    batched = torch.func.vmap(func_grad(bn_loss), in_dims=(None, 0))(bn_params, torch.randn(5, 3))
    assert batched["0.weight"].shape == (5, 4, 3)
    # Check the exact MAML gradient against torch.func composing grad through the inner step.
    def outer(p):
        inner = func_grad(lambda q: nn.functional.mse_loss(functional_call(model, q, (x,)), y))(p)
        stepped = {k: p[k] - 0.1 * inner[k] for k in p}
        return nn.functional.mse_loss(functional_call(model, stepped, (x,)), y)

    exact = func_grad(outer)({k: v.detach() for k, v in params.items()})
    torch.testing.assert_close(model.weight.grad, exact["weight"])
    torch.testing.assert_close(model.bias.grad, exact["bias"])


if __name__ == "__main__":
    _check()
