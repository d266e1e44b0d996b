"""C24 · SGD with momentum and Nesterov, as an Optimizer."""

# --8<-- [start:prompt]
import torch


class SGD(torch.optim.Optimizer):
    """SGD with momentum, Nesterov and L2 weight decay, as torch.optim.SGD.

    step(closure=None) updates every parameter in place, without autograd,
    skips parameters whose .grad is None, keeps the momentum buffer in
    self.state[p]["momentum_buffer"] and returns the closure's loss.
    """

    def __init__(self, params, lr, momentum=0.0, nesterov=False,
                 weight_decay=0.0):
        raise NotImplementedError

    def step(self, closure=None):
        raise NotImplementedError
# --8<-- [end:prompt]


_stub = SGD


# --8<-- [start:wrong]
import torch


class SGD(torch.optim.Optimizer):
    def __init__(self, params, lr, momentum=0.0, nesterov=False,
                 weight_decay=0.0):
        defaults = dict(lr=lr, momentum=momentum, nesterov=nesterov,
                        weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            mu = group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                d = p.grad.add(p, alpha=group["weight_decay"])
                if mu != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = d.clone()
                    else:
                        state["momentum_buffer"].mul_(mu).add_(d)
                    buf = state["momentum_buffer"]
                    d = buf
                p.add_(d, alpha=-group["lr"])
        return loss
# --8<-- [end:wrong]


_wrong = SGD
WRONG_MESSAGE = 'with nesterov=True your update equals plain momentum'


# --8<-- [start:solution]
import torch


class SGD(torch.optim.Optimizer):
    def __init__(self, params, lr, momentum=0.0, nesterov=False,
                 weight_decay=0.0):
        defaults = dict(lr=lr, momentum=momentum, nesterov=nesterov,
                        weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            mu = group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                d = p.grad.add(p, alpha=group["weight_decay"])
                if mu != 0:
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = d.clone()
                    else:
                        state["momentum_buffer"].mul_(mu).add_(d)
                    buf = state["momentum_buffer"]
                    d = d.add(buf, alpha=mu) if group["nesterov"] else buf
                p.add_(d, alpha=-group["lr"])
        return loss
# --8<-- [end:solution]


_solution = SGD


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, forbid_files = (_KIT[n] for n in ("devices", "call", "close", "forbid_files"))


def grade(SGD):
    import copy

    import torch

    def fail(what, msg):
        raise AssertionError(f"C24 · {what}: {msg}")

    def setup(dev):
        gen = torch.Generator().manual_seed(0)
        w = torch.randn(4, 3, generator=gen, dtype=torch.float64).to(dev).requires_grad_()
        b = torch.randn(3, generator=gen, dtype=torch.float64).to(dev).requires_grad_()
        frozen = torch.randn(2, generator=gen, dtype=torch.float64).to(dev).requires_grad_()
        x = torch.randn(8, 4, generator=gen, dtype=torch.float64).to(dev)
        y = torch.randn(8, 3, generator=gen, dtype=torch.float64).to(dev)
        return [w, b, frozen], lambda ps: ((x @ ps[0] + ps[1] - y) ** 2).mean()

    def run(make, dev, kw, steps=10, groups=False):
        params, loss_of = setup(dev)
        opt = make([{"params": params[:1]}, {"params": params[1:], "lr": 0.05}] if groups else params, **kw)
        trace = []
        for _ in range(steps):
            def closure():
                opt.zero_grad()
                loss = loss_of(params)
                loss.backward()
                return loss
            loss = opt.step(closure)
            trace.append([p.detach().clone() for p in params])
        return params, opt, trace, loss

    configs = [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, nesterov=True),
               dict(lr=0.1, momentum=0.9, weight_decay=0.01),
               dict(lr=0.1, momentum=0.5, nesterov=True, weight_decay=0.1)]
    for dev in devices():
        for kw in configs:
            with forbid_files("torch/optim/sgd.py"):
                params, opt, got, loss = run(lambda *a, **k: call(SGD, *a, **k), dev, kw)
            _, _, want, _ = run(torch.optim.SGD, dev, kw)
            if loss is None or not torch.is_tensor(loss):
                fail("closure", "step(closure) must return the closure's loss")
            if not torch.equal(got[-1][2], want[0][2]) or opt.state.get(params[2]):
                fail("no grad", "a parameter whose .grad is None must stay untouched and get no state")
            for step, (g, ww) in enumerate(zip(got, want, strict=False), start=1):
                if step == 1 and torch.equal(g[0], setup(dev)[0][0].detach()):
                    fail("in place", "after step() the parameters did not move: update them in place "
                         "(p.add_(...)); `p = p - lr * g` only rebinds a local name")
                if not all(torch.allclose(a, b, rtol=1e-10, atol=1e-10) for a, b in zip(g, ww, strict=False)):
                    if kw.get("nesterov"):
                        _, _, plain, _ = run(torch.optim.SGD, dev, {**kw, "nesterov": False})
                        pairs = zip(g, plain[step - 1], strict=True)
                        if all(torch.allclose(a, b, rtol=1e-10, atol=1e-10) for a, b in pairs):
                            fail("nesterov", "with nesterov=True your update equals plain momentum: Nesterov steps "
                                 "along d + momentum * buf, not buf")
                    diff = max((a - b).abs().max().item() for a, b in zip(g, ww, strict=False))
                    fail(f"{kw}", f"after step {step} the parameters differ from torch.optim.SGD by {diff:.3g}")
        # two parameter groups with their own lr
        _, _, got, _ = run(lambda *a, **k: call(SGD, *a, **k), dev, dict(lr=0.1, momentum=0.9), 5, groups=True)
        _, _, want, _ = run(torch.optim.SGD, dev, dict(lr=0.1, momentum=0.9), 5, groups=True)
        for a, b in zip(got[-1], want[-1], strict=False):
            close(a, b, "two parameter groups (lr 0.1 and 0.05)", 1e-10, 1e-10)
        # a state_dict round trip continues identically
        params, opt, _, _ = run(lambda *a, **k: call(SGD, *a, **k), dev, dict(lr=0.1, momentum=0.9), 3)
        twin = [p.detach().clone().requires_grad_() for p in params]
        resumed = call(SGD, twin, lr=0.1, momentum=0.9)
        resumed.load_state_dict(copy.deepcopy(opt.state_dict()))
        for o, ps in ((opt, params), (resumed, twin)):
            o.zero_grad()
            (sum((p ** 2).sum() for p in ps[:2])).backward()
            o.step()
        for a, b in zip(params, twin, strict=False):
            close(b.detach(), a.detach(), "a step after load_state_dict(state_dict())", 1e-12, 1e-12)
    return "C24 passes: equals torch.optim.SGD over 10 steps (momentum, Nesterov, decay, groups, resume)"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C24 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # torch's own SGD running inside the reader's class is refused, however it is reached
    import torch

    class Delegating(torch.optim.SGD):
        pass

    with pytest.raises(AssertionError, match="calls torch/optim/sgd.py"):
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

    class Lazy(_solution):  # evaluates the loss and forgets the update
        def step(self, closure=None):
            return closure()

    class LrOff(_solution):  # a learning rate 1 % too large
        def __init__(self, params, lr, **kw):
            super().__init__(params, lr * 1.01, **kw)

    for attempt, message in [
        (NoLoss, r"^C24 · closure: step\(closure\) must return the closure's loss$"),
        (ZeroGrad, r"^C24 · no grad: a parameter whose .grad is None must stay untouched and get no state$"),
        (Lazy, r"^C24 · in place: after step\(\) the parameters did not move: update them in place"),
        (LrOff, r"^C24 · \{'lr': 0.1\}: after step 1 the parameters differ from torch.optim.SGD by 0.00158$"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
