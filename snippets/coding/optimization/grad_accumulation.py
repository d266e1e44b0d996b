"""C28 · Gradient accumulation."""

# --8<-- [start:prompt]


def accumulate_step(model, loss_fn, micro_batches, optimizer):
    """One optimizer step over micro_batches, a list of (x, y) pairs.

    The update must equal one step on the concatenated batch with the
    mean loss_fn (loss_fn returns a per-batch mean), even when the
    micro-batches have different sizes. Gradients left over from before
    must not leak in. Return the big batch's mean loss (a 0-dim tensor).
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = accumulate_step


# --8<-- [start:wrong]


def accumulate_step(model, loss_fn, micro_batches, optimizer):
    n_total = sum(len(x) for x, _ in micro_batches)
    optimizer.zero_grad()
    total = 0.0
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss / len(micro_batches)).backward()
        total += loss.detach() * len(x)
    optimizer.step()
    return total / n_total
# --8<-- [end:wrong]


_wrong = accumulate_step
WRONG_MESSAGE = 'weight each mean loss by n_i/N, not 1/k'


# --8<-- [start:solution]


def accumulate_step(model, loss_fn, micro_batches, optimizer):
    n_total = sum(len(x) for x, _ in micro_batches)
    optimizer.zero_grad()
    total = 0.0
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        (loss * len(x) / n_total).backward()
        total += loss.detach() * len(x)
    optimizer.step()
    return total / n_total
# --8<-- [end:solution]


_solution = accumulate_step


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close = (_KIT[n] for n in ("devices", "call", "close"))


def grade(accumulate_step):
    import torch

    def fail(what, msg):
        raise AssertionError(f"C28 · {what}: {msg}")

    def fixture(dev, sizes):
        gen = torch.Generator().manual_seed(0)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
        model = model.double().to(dev)
        xs = [torch.randn(n, 4, generator=gen, dtype=torch.float64).to(dev) for n in sizes]
        ys = [torch.randn(n, 2, generator=gen, dtype=torch.float64).to(dev) for n in sizes]
        return model, list(zip(xs, ys, strict=False))

    def reader(dev, sizes):
        model, batches = fixture(dev, sizes)
        for p in model.parameters():
            p.grad = torch.full_like(p, 7.0)  # stale gradients from an earlier step
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        steps = []
        real_step = opt.step
        opt.step = lambda *a, **k: (steps.append(1), real_step(*a, **k))[1]
        loss = call(accumulate_step, model, torch.nn.functional.mse_loss, batches, opt)
        return model, loss, len(steps)

    def big_batch(dev, sizes, weights=None):
        model, batches = fixture(dev, sizes)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        if weights is None:
            x, y = (torch.cat(t) for t in zip(*batches, strict=False))
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
        else:
            loss = None
            for (x, y), wgt in zip(batches, weights, strict=False):
                (torch.nn.functional.mse_loss(model(x), y) * wgt).backward()
        opt.step()
        return model, loss

    def same(a, b):
        pairs = zip(a.parameters(), b.parameters(), strict=True)
        return all(torch.allclose(p, q, rtol=1e-10, atol=1e-12) for p, q in pairs)

    for dev in devices():
        for sizes in ((4, 4), (3, 5, 2), (1,)):
            model, loss, n_steps = reader(dev, sizes)
            ref, ref_loss = big_batch(dev, sizes)
            if n_steps != 1:
                fail("step", f"optimizer.step() ran {n_steps} times; accumulation takes exactly one step")
            if not same(model, ref):
                k = len(sizes)
                if same(model, big_batch(dev, sizes, [1 / k] * k)[0]):
                    fail(f"sizes {sizes}", f"with micro-batches of {', '.join(map(str, sizes))} samples your update "
                         f"differs from the {sum(sizes)}-sample step: weight each mean loss by n_i/N, not 1/k")
                fail(f"sizes {sizes}", "your update differs from one step on the concatenated batch (stale .grad from "
                     "before the call? zero the gradients first)")
            if not torch.is_tensor(loss) or loss.dim() != 0:
                fail("return", f"return the big batch's mean loss as a 0-dim tensor; got {loss!r}")
            close(loss.detach(), ref_loss.detach(), f"the returned loss, sizes {sizes}", 1e-10, 1e-10)
    return "C28 passes: one step equal to the big-batch step for sizes (4, 4), (3, 5, 2), (1,), stale grads cleared"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C28 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the usual unit test, with equal micro-batches, does not catch the wrong attempt
    import torch

    gen = torch.Generator().manual_seed(0)
    batches = [(torch.randn(4, 3, generator=gen), torch.randn(4, 1, generator=gen)) for _ in range(2)]
    a, b = torch.nn.Linear(3, 1), torch.nn.Linear(3, 1)
    b.load_state_dict(a.state_dict())
    _wrong(a, torch.nn.functional.mse_loss, batches, torch.optim.SGD(a.parameters(), lr=0.1))
    _solution(b, torch.nn.functional.mse_loss, batches, torch.optim.SGD(b.parameters(), lr=0.1))
    for p, q in zip(a.parameters(), b.parameters(), strict=False):
        torch.testing.assert_close(p, q)

    # mutants of the reference, one per remaining failure, each with its exact message
    def step_each(model, loss_fn, micro_batches, optimizer):  # one step per micro-batch
        return [_solution(model, loss_fn, [batch], optimizer) for batch in micro_batches][-1]

    def keep_stale(model, loss_fn, micro_batches, optimizer):  # never zeroes the gradients
        optimizer.zero_grad = lambda set_to_none=True: None
        return _solution(model, loss_fn, micro_batches, optimizer)

    for attempt, message in [
        (step_each, r"^C28 · step: optimizer.step\(\) ran 2 times; accumulation takes exactly one step$"),
        (keep_stale, r"^C28 · sizes \(4, 4\): your update differs from one step on the concatenated batch \(stale"),
        (lambda *args: _solution(*args).item(), r"^C28 · return: return the big batch's mean loss as a 0-dim tensor"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
