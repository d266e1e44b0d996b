"""C29 · Fix the train/eval loop."""

# --8<-- [start:prompt]
import torch


def train_epoch(model, loader, loss_fn, optimizer, device):
    """One training epoch; returns the mean loss per sample. Five bugs
    hide in these two functions: fix them all."""
    total = 0.0
    for x, y in loader:
        x = x.to(device)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def evaluate(model, loader, loss_fn, device):
    """The mean loss per sample, changing nothing in the model."""
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        total += loss_fn(model(x), y).item() * len(x)
        count += len(x)
    return total / count
# --8<-- [end:prompt]


_stub = (train_epoch, evaluate)


# --8<-- [start:wrong]
import torch


def train_epoch(model, loader, loss_fn, optimizer, device):
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
        count += 1
    return total / count


def evaluate(model, loader, loss_fn, device):
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
    return total / count
# --8<-- [end:wrong]


_wrong = (train_epoch, evaluate)
WRONG_MESSAGE = 'Your epoch loss is the mean of batch means'


# --8<-- [start:solution]
import torch


def train_epoch(model, loader, loss_fn, optimizer, device):
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(x)
        count += len(x)
    return total / count


def evaluate(model, loader, loss_fn, device):
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total += loss_fn(model(x), y).item() * len(x)
            count += len(x)
    return total / count
# --8<-- [end:solution]


_solution = (train_epoch, evaluate)


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(train_epoch, evaluate):
    import torch

    def fail(what, msg):
        raise AssertionError(f"C29 · {what}: {msg}")

    def model_and_data(dev):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                                        torch.nn.Dropout(0.5), torch.nn.Linear(8, 2)).double()
        gen = torch.Generator().manual_seed(1)
        loader = [(torch.randn(n, 3, generator=gen, dtype=torch.float64),
                   torch.randn(n, 2, generator=gen, dtype=torch.float64)) for n in (4, 4, 2)]
        return model.to(dev), loader

    def reference_epoch(model, loader, dev):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model.train()
        losses = []
        for x, y in loader:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x.to(dev)), y.to(dev))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        weighted = sum(v * len(x) for v, (x, _) in zip(losses, loader, strict=True)) / 10
        return weighted, sum(losses) / len(losses)  # the mean per sample, and the mean of batch means

    class FakeLoss:  # on the fake GPU there is no backward pass to run: a loss whose backward does nothing
        def __init__(self, value):
            self.value = value

        def backward(self):
            pass

        def item(self):
            return self.value.item()

    mse = torch.nn.functional.mse_loss
    model, loader = model_and_data("cpu")
    on_fake_gpu(lambda m: train_epoch(m, loader[:1], lambda out, y: FakeLoss(mse(out, y)),
                                      torch.optim.SGD(m.parameters(), lr=0.1), torch.device("cuda")), model, like="x")
    for dev in devices():
        model, loader = model_and_data(dev)
        seen = []
        model.register_forward_pre_hook(lambda m, args, seen=seen: seen.append((m.training, torch.is_grad_enabled())))
        bn = model[1]
        before = bn.running_mean.clone()
        first = call(evaluate, model, loader, mse, dev)
        if any(training for training, _ in seen):
            changed = not torch.equal(bn.running_mean, before)
            fail("evaluate", f"evaluate ran the model in training mode{' and changed running_mean' if changed else ''}"
                 ": call model.eval() (BatchNorm then uses its running statistics and Dropout is off)")
        if any(grad for _, grad in seen):
            fail("evaluate", "evaluate ran with gradients enabled: wrap it in torch.no_grad() (or inference_mode) so "
                 "no graph is built")
        if call(evaluate, model, loader, mse, dev) != first or not torch.equal(bn.running_mean, before):
            fail("evaluate", "evaluating twice gave different results: evaluation must change nothing")
        seen.clear()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(5)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            start = [p.detach().clone() for p in model.parameters()]
            loss = call(train_epoch, model, loader, mse, opt, dev)
        if not all(training for training, _ in seen):
            fail("train mode", "train_epoch ran in eval mode after evaluate(): call model.train() at its top")
        ref, _ = model_and_data(dev)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(5)
            ref_loss, batch_means = reference_epoch(ref, loader, dev)
        if all(torch.equal(a, b) for a, b in zip(start, model.parameters(), strict=True)):
            fail("zero_grad", "the parameters did not move in a whole epoch: zero_grad() between backward() and step() "
                 "wipes the gradients that step() needs")
        for (name, p), q in zip(model.named_parameters(), ref.parameters(), strict=True):
            close(p.detach(), q.detach(), f"parameter {name} after one epoch (against a reference loop)", 1e-10, 1e-10)
        if abs(loss - ref_loss) > 1e-9:
            hint = (" Your epoch loss is the mean of batch means: a last batch of 2 samples counts as much as a "
                    "full one of 4; weight by batch size" if abs(loss - batch_means) < 1e-9 else "")
            fail("epoch loss", f"your epoch loss is {loss:.4f}, expected {ref_loss:.4f} (the mean over 10 samples)."
                 + hint)
    return "C29 passes: eval mode and no grad in evaluate, train mode back, one step per batch, weighted epoch loss"


def _check():
    import re

    import pytest
    import torch

    assert grade(*_solution).startswith("C29 passes")
    with pytest.raises(AssertionError, match="not device-agnostic"):
        grade(*_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(*_wrong)

    # the stub's own bugs, on the CPU: zero_grad between backward and step leaves the weights where they were
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    loader = [(torch.randn(4, 3), torch.randn(4, 2)) for _ in range(2)]
    start = [p.detach().clone() for p in model.parameters()]
    mse = torch.nn.functional.mse_loss
    _stub[0](model, loader, mse, torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    assert all(torch.equal(a, b) for a, b in zip(start, model.parameters(), strict=True))
    before = model[1].running_mean.clone()
    _stub[1](model, loader, mse, "cpu")  # and evaluate in training mode moves BatchNorm's running mean
    assert not torch.equal(model[1].running_mean, before)

    # mutants of the reference, one per remaining failure, each with its exact message
    train_epoch, evaluate = _solution

    def eval_with(set_mode, grad):  # the reference evaluate with another way to set the mode, and grad mode
        def attempt(model, loader, loss_fn, device):
            set_mode(model)
            with torch.set_grad_enabled(grad):
                total = sum(loss_fn(model(x.to(device)), y.to(device)).item() * len(x) for x, y in loader)
            return total / sum(len(x) for x, _ in loader)

        return attempt

    def shallow_eval(model):  # sets the flag on the container only: BatchNorm inside still trains
        model.training = False

    def train_with(set_train=True, zero_after_backward=False):
        def attempt(model, loader, loss_fn, optimizer, device):
            if set_train:
                model.train()
            total = 0.0
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                if not zero_after_backward:
                    optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                if zero_after_backward:
                    optimizer.zero_grad()
                optimizer.step()
                total += loss.item() * len(x)
            return total / sum(len(x) for x, _ in loader)

        return attempt

    for attempt, message in [
        ((train_epoch, eval_with(torch.nn.Module.train, False)),
         r"^C29 · evaluate: evaluate ran the model in training mode and changed running_mean: call model.eval\(\)"),
        ((train_epoch, eval_with(torch.nn.Module.eval, True)), r"^C29 · evaluate: evaluate ran with gradients enabl"),
        ((train_epoch, eval_with(shallow_eval, False)), r"^C29 · evaluate: evaluating twice gave different results"),
        ((train_with(set_train=False), evaluate), r"^C29 · train mode: train_epoch ran in eval mode after evaluate"),
        ((train_with(zero_after_backward=True), evaluate), r"^C29 · zero_grad: the parameters did not move in a who"),
        ((lambda *args: train_epoch(*args) * 10, evaluate), r"^C29 · epoch loss: your epoch loss is \d+.\d+, expected"
                                                           r" \d+.\d+ \(the mean over 10 samples\)\.$"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(*attempt)


if __name__ == "__main__":
    _check()
