"""C25 · AdamW as an Optimizer subclass."""

# --8<-- [start:prompt]
import torch


class AdamW(torch.optim.Optimizer):
    """AdamW with decoupled weight decay, as torch.optim.AdamW.

    Bias-corrected moments, eps added outside the square root, and the
    state self.state[p] = {"step", "exp_avg", "exp_avg_sq"} per parameter.
    step(closure=None) skips parameters whose .grad is None and returns
    the closure's loss.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=1e-2):
        raise NotImplementedError

    def step(self, closure=None):
        raise NotImplementedError
# --8<-- [end:prompt]


_stub = AdamW


# --8<-- [start:wrong]
import torch


class AdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=1e-2):
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, (b1, b2) = group["lr"], group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad.add(p, alpha=group["weight_decay"])
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t = state["step"]
                state["exp_avg"].lerp_(g, 1 - b1)
                state["exp_avg_sq"].mul_(b2).addcmul_(g, g, value=1 - b2)
                m_hat = state["exp_avg"] / (1 - b1**t)
                v_hat = state["exp_avg_sq"] / (1 - b2**t)
                p.addcdiv_(m_hat, v_hat.sqrt() + group["eps"], value=-lr)
        return loss
# --8<-- [end:wrong]


_wrong = AdamW
WRONG_MESSAGE = 'that is Adam with L2'


# --8<-- [start:solution]
import torch


class AdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=1e-2):
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, (b1, b2) = group["lr"], group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t = state["step"]
                p.mul_(1 - lr * group["weight_decay"])
                state["exp_avg"].lerp_(g, 1 - b1)
                state["exp_avg_sq"].mul_(b2).addcmul_(g, g, value=1 - b2)
                m_hat = state["exp_avg"] / (1 - b1**t)
                v_hat = state["exp_avg_sq"] / (1 - b2**t)
                p.addcdiv_(m_hat, v_hat.sqrt() + group["eps"], value=-lr)
        return loss
# --8<-- [end:solution]


_solution = AdamW


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, forbid_files = (_KIT[n] for n in ("devices", "call", "close", "forbid_files"))


def grade(AdamW):
    import copy

    import torch

    def fail(what, msg):
        raise AssertionError(f"C25 · {what}: {msg}")

    def setup(dev):
        gen = torch.Generator().manual_seed(0)
        w = torch.randn(4, 3, generator=gen, dtype=torch.float64).to(dev).requires_grad_()
        b = torch.randn(3, generator=gen, dtype=torch.float64).to(dev).requires_grad_()
        s = torch.tensor(0.5, dtype=torch.float64, device=dev, requires_grad=True)  # a 0-dim parameter
        tiny = torch.ones(3, dtype=torch.float64, device=dev, requires_grad=True)  # grads of 1e-10
        frozen = torch.randn(2, generator=gen, dtype=torch.float64).to(dev).requires_grad_()
        x = torch.randn(8, 4, generator=gen, dtype=torch.float64).to(dev)
        y = torch.randn(8, 3, generator=gen, dtype=torch.float64).to(dev)

        def loss_of(ps):
            return ((x @ ps[0] * ps[2] + ps[1] - y) ** 2).mean() + 1e-10 * ps[3].sum()

        return [w, b, s, tiny, frozen], loss_of

    def run(make, dev, kw, steps=20, groups=False):
        params, loss_of = setup(dev)
        opt = make([{"params": params[:3]}, {"params": params[3:], "weight_decay": 0.0}] if groups else params, **kw)
        for _ in range(steps):
            def closure():
                opt.zero_grad()
                loss = loss_of(params)
                loss.backward()
                return loss
            loss = opt.step(closure)
        return params, opt, loss

    def same(a, b, tol=1e-10):
        return all(torch.allclose(x.detach(), y.detach(), rtol=tol, atol=tol) for x, y in zip(a, b, strict=False))

    for dev in devices():
        for kw, groups in ((dict(lr=0.1, weight_decay=0.1), False), (dict(lr=0.01, betas=(0.8, 0.99)), False),
                           (dict(lr=0.1, weight_decay=0.1), True)):
            with forbid_files("torch/optim/adam.py", "torch/optim/adamw.py"):
                got, opt, loss = run(lambda *a, **k: call(AdamW, *a, **k), dev, kw, groups=groups)
            ref, _, _ = run(lambda *a, **k: torch.optim.AdamW(*a, **k, foreach=False), dev, kw, groups=groups)
            if loss is None:
                fail("closure", "step(closure) must return the closure's loss")
            if not same(got[4:], ref[4:], 0) or opt.state.get(got[4]):
                fail("no grad", "a parameter whose .grad is None must stay untouched and get no state")
            if not same(got, ref):
                l2, _, _ = run(lambda *a, **k: torch.optim.Adam(*a, **k, foreach=False), dev, kw, groups=groups)
                diff = max((a - b).abs().max().item() for a, b in zip(got, ref, strict=False))
                if same(got, l2):
                    fail("decay", f"your parameters drift from torch.optim.AdamW ({diff:.2g} after 20 steps): that is "
                         "Adam with L2. AdamW decays the weights directly, p <- p * (1 - lr * wd)")
                if not same(got[3:4], ref[3:4]):
                    fail("eps", f"a parameter with gradients of 1e-10 moved {(got[3] - 1).abs().max().item():.2g}, "
                         f"torch {(ref[3] - 1).abs().max().item():.2g}: add eps after the square root")
                fail(f"{kw}", f"after 20 steps your parameters differ from torch.optim.AdamW by {diff:.3g}")
            for key in ("step", "exp_avg", "exp_avg_sq"):
                if key not in opt.state[got[0]]:
                    fail("state", f"self.state[p] has no '{key}'")
        # a state_dict round trip continues identically
        params, opt, _ = run(lambda *a, **k: call(AdamW, *a, **k), dev, dict(lr=0.1), 3)
        twin = [p.detach().clone().requires_grad_() for p in params]
        resumed = call(AdamW, twin, lr=0.1)
        resumed.load_state_dict(copy.deepcopy(opt.state_dict()))
        for o, ps in ((opt, params), (resumed, twin)):
            o.zero_grad()
            (sum((p ** 2).sum() for p in ps[:3])).backward()
            o.step()
        for a, b in zip(params, twin, strict=False):
            close(b.detach(), a.detach(), "a step after load_state_dict(state_dict())", 1e-12, 1e-12)
    return "C25 passes: equals torch.optim.AdamW over 20 steps (decay, eps, 0-dim, no-grad, groups, resume)"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C25 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # torch's own AdamW (whose step lives in adam.py) running inside the reader's class is refused
    import torch

    class Delegating(torch.optim.AdamW):
        pass

    with pytest.raises(AssertionError, match="calls torch/optim/adam"):
        grade(Delegating)
    with pytest.raises(NotImplementedError):
        _stub.step(None)

    # mutants of the reference, one per remaining failure, each with its exact message
    class NoLoss(_solution):  # forgets to return the closure's loss
        def step(self, closure=None):
            super().step(closure)

    class ZeroGrad(_solution):  # treats a missing .grad as zeros
        def step(self, closure=None):
            loss = closure()
            for p in (p for g in self.param_groups for p in g["params"] if p.grad is None):
                p.grad = torch.zeros_like(p)
            super().step()
            return loss

    class EpsInside(_solution):  # eps inside the square root: for tiny gradients an eps of sqrt(eps)
        def __init__(self, params, eps=1e-8, **kw):
            super().__init__(params, eps=eps**0.5, **kw)

    class NoDecay0d(_solution):  # puts 0-dim parameters in a group without weight decay
        def __init__(self, params, **kw):
            params = list(params)
            if not isinstance(params[0], dict):
                params = [{"params": [p for p in params if p.dim()]},
                          {"params": [p for p in params if not p.dim()], "weight_decay": 0.0}]
            super().__init__(params, **kw)

    class StepAsT(_solution):  # keeps its step count under the key "t"
        def step(self, closure=None):
            for state in self.state.values():
                state["step"] = state.pop("t")
            loss = super().step(closure)
            for state in self.state.values():
                state["t"] = state.pop("step")
            return loss

    for attempt, message in [
        (NoLoss, r"^C25 · closure: step\(closure\) must return the closure's loss$"),
        (ZeroGrad, r"^C25 · no grad: a parameter whose .grad is None must stay untouched and get no state$"),
        (EpsInside, r"^C25 · eps: a parameter with gradients of 1e-10 moved 0.18, torch 0.2: add eps after"),
        (NoDecay0d, r"^C25 · \{'lr': 0.1, 'weight_decay': 0.1\}: after 20 steps your parameters differ from"),
        (StepAsT, r"^C25 · state: self.state\[p\] has no 'step'$"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
