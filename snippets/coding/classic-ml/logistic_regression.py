"""C32 · Logistic regression with hand-written gradients."""

# --8<-- [start:prompt]
import torch


def bce_with_logits(z, y):
    """Mean binary cross-entropy of logits z against targets y in [0, 1],
    finite for every finite z (the loss behind a sigmoid output)."""
    raise NotImplementedError


def fit_logistic(X, y, lr, steps, weight_decay=0.0):
    """Full-batch gradient descent on bce_with_logits(X @ w + b, y)
    + weight_decay / 2 * ||w||² (no decay on b), from w = 0 and b = 0,
    with gradients written by hand (no autograd).
    X (N, D) float, y (N,) float in {0, 1}. Returns (w (D,), b 0-dim).
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = (bce_with_logits, fit_logistic)


# --8<-- [start:wrong]
import torch


def bce_with_logits(z, y):
    p = torch.sigmoid(z)
    return -(y * p.log() + (1 - y) * (1 - p).log()).mean()


def fit_logistic(X, y, lr, steps, weight_decay=0.0):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device)
    b = torch.zeros((), dtype=X.dtype, device=X.device)
    for _ in range(steps):
        err = torch.sigmoid(X @ w + b) - y
        w = w - lr * (X.T @ err / len(y) + weight_decay * w)
        b = b - lr * err.mean()
    return w, b
# --8<-- [end:wrong]


_wrong = (bce_with_logits, fit_logistic)
WRONG_MESSAGE = 'the loss is inf at a logit of -100'


# --8<-- [start:solution]
import torch


def bce_with_logits(z, y):
    return (z.clamp(min=0) - z * y + torch.log1p(torch.exp(-z.abs()))).mean()


def fit_logistic(X, y, lr, steps, weight_decay=0.0):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device)
    b = torch.zeros((), dtype=X.dtype, device=X.device)
    for _ in range(steps):
        err = torch.sigmoid(X @ w + b) - y
        w = w - lr * (X.T @ err / len(y) + weight_decay * w)
        b = b - lr * err.mean()
    return w, b
# --8<-- [end:solution]


_solution = (bce_with_logits, fit_logistic)


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
_NAMES = ("devices", "call", "close", "forbid_files", "on_fake_gpu")
devices, call, close, forbid_files, on_fake_gpu = (_KIT[n] for n in _NAMES)


def grade(bce_with_logits, fit_logistic):
    import torch
    import torch.nn.functional as F

    def fail(what, msg):
        raise AssertionError(f"C32 · {what}: {msg}")

    def reference_fit(X, y, lr, steps, wd):
        w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
        b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
        for _ in range(steps):
            loss = F.binary_cross_entropy_with_logits(X @ w + b, y) + wd / 2 * (w * w).sum()
            gw, gb = torch.autograd.grad(loss, (w, b))
            with torch.no_grad():
                w -= lr * gw
                b -= lr * gb
        return w.detach(), b.detach()

    gen = torch.Generator().manual_seed(0)
    X = torch.randn(40, 3, generator=gen, dtype=torch.float64)
    y = (X @ torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64) + 0.3 * torch.randn(40, generator=gen,
         dtype=torch.float64) > 0).double()
    with forbid_files("torch/autograd/__init__.py"):
        call(bce_with_logits, X[:, 0], y), call(fit_logistic, X, y, 0.1, 1)  # construction and signature
    on_fake_gpu(lambda X, y: (bce_with_logits(X[:, 0], y), fit_logistic(X, y, 0.1, 2)), X, y, like="X")
    for dev in devices():
        z = torch.randn(50, generator=gen, dtype=torch.float64).to(dev) * 3
        soft = torch.rand(50, generator=gen, dtype=torch.float64).to(dev)
        close(call(bce_with_logits, z, soft), F.binary_cross_entropy_with_logits(z, soft),
              "bce_with_logits against F.binary_cross_entropy_with_logits, float64, soft targets")
        extreme = torch.tensor([-100.0, 100.0, 30.0, -30.0], device=dev)
        target = torch.tensor([1.0, 0.0, 1.0, 0.0], device=dev)
        got = call(bce_with_logits, extreme, target)
        if not torch.isfinite(got):
            fail("extreme logits", "the loss is inf at a logit of -100: float32 sigmoid(-100) is exactly 0 and log 0 = "
                 "-inf. Use max(z, 0) - z*y + log1p(exp(-|z|))")
        close(got, F.binary_cross_entropy_with_logits(extreme, target), "bce_with_logits at z = ±100, float32")
        Xd, yd = X.to(dev), y.to(dev)
        for lr, steps, wd in ((0.5, 30, 0.0), (0.3, 25, 0.1)):
            with forbid_files("torch/autograd/__init__.py"):
                w, b = call(fit_logistic, Xd, yd, lr, steps, wd)
            rw, rb = reference_fit(Xd, yd, lr, steps, wd)
            close(w, rw, f"w after {steps} steps (lr {lr}, weight_decay {wd}) against autograd", 1e-8, 1e-8)
            close(b, rb, f"b after {steps} steps (lr {lr}, weight_decay {wd}), no decay on b", 1e-8, 1e-8)
        sep = torch.cat([Xd[:, :1] + 10, Xd[:, :1] - 10]).float()  # the logits reach ±300
        w, b = call(fit_logistic, sep, torch.cat([torch.ones(40), torch.zeros(40)]).to(dev), 5.0, 200)
        if not (torch.isfinite(w).all() and torch.isfinite(b)):
            fail("separable data", "w or b became non-finite on separable float32 data after 200 steps, where the "
                 "logits reach ±300: exp(z) overflows float32 past 88; torch.sigmoid does not")
    return "C32 passes: a stable BCE at z = ±100, and gradient descent equal to autograd's to 1e-8"


def _check():
    import re

    import pytest

    assert grade(*_solution).startswith("C32 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(*_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(*_wrong)
    # gradients from autograd instead of by hand are refused
    import torch

    def autograd_fit(X, y, lr, steps, weight_decay=0.0):
        w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
        b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
        for _ in range(steps):
            loss = _solution[0](X @ w + b, y) + weight_decay / 2 * (w * w).sum()
            gw, gb = torch.autograd.grad(loss, (w, b))
            w, b = (w - lr * gw).detach().requires_grad_(), (b - lr * gb).detach().requires_grad_()
        return w.detach(), b.detach()

    with pytest.raises(AssertionError, match="calls torch/autograd/__init__.py"):
        grade(_solution[0], autograd_fit)
    with pytest.raises(NotImplementedError):
        _stub[1](None, None, 0.1, 1)

    # a mutant of the reference with the sigmoid written as exp(z) / (1 + exp(z)): inf / inf past z = 88
    def exp_sigmoid_fit(X, y, lr, steps, weight_decay=0.0):
        w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device)
        b = torch.zeros((), dtype=X.dtype, device=X.device)
        for _ in range(steps):
            e = torch.exp(X @ w + b)
            err = e / (1 + e) - y
            w = w - lr * (X.T @ err / len(y) + weight_decay * w)
            b = b - lr * err.mean()
        return w, b

    with pytest.raises(AssertionError, match=r"^C32 · separable data: w or b became non-finite on separable float32"):
        grade(_solution[0], exp_sigmoid_fit)


if __name__ == "__main__":
    _check()
