"""C5 · BatchNorm with running statistics, train and eval."""

# --8<-- [start:prompt]
import torch
from torch import nn


class BatchNorm(nn.Module):
    """Batch normalisation over dim 1 of (N, C) and (N, C, H, W) inputs.

    Parameters weight (ones) and bias (zeros), shape (C,); buffers
    running_mean (zeros), running_var (ones), num_batches_tracked (0,
    int64): the names and the state dict of nn.BatchNorm2d.
    Training: normalise with the batch's mean and biased variance over
    every dim but C; update running = (1 - momentum) * running
    + momentum * batch statistic, where the variance is the unbiased
    one; count the batch. One value per channel raises ValueError.
    Eval: normalise with the running statistics; change nothing.
    Not allowed: F.batch_norm and its aten ops.
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        raise NotImplementedError

    def forward(self, x):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = BatchNorm

# --8<-- [start:wrong]
import torch
from torch import nn


class BatchNorm(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        count = torch.tensor(0, dtype=torch.long)
        self.register_buffer("num_batches_tracked", count)

    def forward(self, x):
        dims = [0, *range(2, x.dim())]  # every dim but C
        shape = [1, -1] + [1] * (x.dim() - 2)  # (C,) -> broadcasts on x
        if self.training:
            n = x.numel() // x.shape[1]  # values per channel
            if n == 1:
                raise ValueError("need more than 1 value per channel")
            mean, var = x.mean(dims), x.var(dims, correction=0)
            with torch.no_grad():
                m = self.momentum
                self.running_mean.mul_(1 - m).add_(m * mean)
                self.running_var.mul_(1 - m).add_(m * var)
                self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean.view(shape)) * torch.rsqrt(var.view(shape) + self.eps)
        return y * self.weight.view(shape) + self.bias.view(shape)
# --8<-- [end:wrong]

_wrong = BatchNorm
WRONG_MESSAGE = "torch normalises with the biased variance but tracks the unbiased one"

# --8<-- [start:solution]
import torch
from torch import nn


class BatchNorm(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        count = torch.tensor(0, dtype=torch.long)
        self.register_buffer("num_batches_tracked", count)

    def forward(self, x):
        dims = [0, *range(2, x.dim())]  # every dim but C
        shape = [1, -1] + [1] * (x.dim() - 2)  # (C,) -> broadcasts on x
        if self.training:
            n = x.numel() // x.shape[1]  # values per channel
            if n == 1:
                raise ValueError("need more than 1 value per channel")
            mean, var = x.mean(dims), x.var(dims, correction=0)
            with torch.no_grad():
                m = self.momentum
                self.running_mean.mul_(1 - m).add_(m * mean)
                self.running_var.mul_(1 - m).add_(m * var * n / (n - 1))
                self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean.view(shape)) * torch.rsqrt(var.view(shape) + self.eps)
        return y * self.weight.view(shape) + self.bias.view(shape)
# --8<-- [end:solution]

_solution = BatchNorm

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, gradcheck64, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "gradcheck64", "on_fake_gpu", "randn")
)


def grade(BatchNorm):
    import torch
    from torch import nn

    step = checks("C5", "construct", "device", "training", "eval", "no_grad", "graph", "gradients", "edges")
    banned = ("batch_norm", "native_batch_norm", "native_batch_norm_legit", "native_batch_norm_legit_functional",
              "native_batch_norm_legit_no_training", "batch_norm_update_stats", "batch_norm_stats")
    names = ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]

    def run(module, x):
        with forbid(*banned):
            return call(module, x)

    def pair(dim, C=3, momentum=0.1, dev="cpu", dtype=torch.float64):
        """The reader's module and torch's, with the same random affine parameters."""
        mine = call(BatchNorm, C, momentum=momentum).to(dev, dtype)
        ref = (nn.BatchNorm1d if dim == 2 else nn.BatchNorm2d)(C, momentum=momentum).to(dev, dtype)
        with torch.no_grad():
            for k, name in enumerate(("weight", "bias")):
                getattr(ref, name).copy_(randn(C, seed=10 + k, dtype=dtype, device=dev))
                getattr(mine, name).copy_(getattr(ref, name))
        return mine, ref

    def same_state(mine, ref, what):
        for name in names:
            close(getattr(mine, name), getattr(ref, name), f"{name} {what}")

    f64 = torch.float64
    with step("construct"):
        bn = call(BatchNorm, 3)
        found = sorted(bn.state_dict())
        assert found == sorted(names), f"the state dict holds {found}; nn.BatchNorm2d's holds {sorted(names)}"
        params = sorted(name for name, _ in bn.named_parameters())
        assert params == ["bias", "weight"], f"the parameters are {params}: the running statistics are buffers"
        same_state(bn, nn.BatchNorm2d(3), "of a new module")
        assert bn.training, "a new module is in training mode"
        run(bn, randn(4, 3, dtype=torch.float32))
    with step("device"):
        note = on_fake_gpu(lambda m, x: m(x), bn, randn(2, 3, 2, 2))
    with step("training"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32):
                for dim, momentum in ((2, 0.1), (4, 0.3)):
                    mine, ref = pair(dim, momentum=momentum, dev=dev, dtype=dtype)
                    shape = (4, 3) if dim == 2 else (2, 3, 2, 2)
                    n = 4 if dim == 2 else 8
                    for k in range(3):
                        x = randn(*shape, seed=k, dtype=dtype, device=dev) * 2 + 1
                        what = f"after training step {k + 1}, x {shape} {dtype} on {dev}, momentum={momentum}"
                        if k == 0:
                            batch = x.var([0, *range(2, dim)], correction=0)
                            biased = (1 - momentum) + momentum * batch
                            close(run(mine, x), ref(x), f"the output at training step 1, x {shape}")
                            assert not torch.allclose(mine.running_var, biased), (
                                f"running_var is off from nn.BatchNorm by a factor n/(n-1) = {n}/{n - 1} on the "
                                f"update, for n = {n} values per channel: torch normalises with the biased "
                                "variance but tracks the unbiased one"
                            )
                        else:
                            close(run(mine, x), ref(x), f"the output {what}")
                        same_state(mine, ref, what)
    with step("eval"):
        mine, ref = pair(4, momentum=0.3)
        for k in range(3):
            x = randn(2, 3, 2, 2, seed=k, dtype=f64) * 2 + 1
            run(mine, x), ref(x)
        mine.eval(), ref.eval()
        x = randn(2, 3, 2, 2, seed=5, dtype=f64) * 2 + 1
        close(run(mine, x), ref(x), "the output in eval mode, after 3 training steps")
        same_state(mine, ref, "after an eval step (eval changes nothing)")
        close(run(mine, x[:1]), ref(x[:1]), "a batch of one in eval mode")
        loaded, ref = pair(4)
        for k in range(2):
            ref(randn(2, 3, 2, 2, seed=k, dtype=f64))
        call(loaded.load_state_dict, ref.state_dict())
        loaded.eval(), ref.eval()
        close(run(loaded, x), ref(x), "eval after load_state_dict from nn.BatchNorm2d")
    with step("no_grad"):
        mine, ref = pair(2)
        x = randn(4, 3, dtype=f64)
        with torch.no_grad():
            run(mine, x), ref(x)
        same_state(mine, ref, "after a training step under torch.no_grad() (the buffers still update)")
    with step("graph"):
        mine, _ = pair(2)
        run(mine, randn(4, 3, dtype=f64).requires_grad_())
        for name in ("running_mean", "running_var"):
            assert getattr(mine, name).grad_fn is None, (
                f"{name} carries a grad_fn: update it under torch.no_grad(), or each step's graph stays alive "
                "through the buffer and the next one grows from it"
            )
    with step("gradients"):
        mine, ref = pair(2)

        def through(x, w, b):
            return torch.func.functional_call(mine, {"weight": w, "bias": b}, (x,))

        def reference(x, w, b):
            return torch.func.functional_call(ref, {"weight": w, "bias": b}, (x,))

        x = randn(4, 3, seed=6, dtype=f64)
        gradcheck64(through, [x, mine.weight, mine.bias], names=["x", "weight", "bias"], reference=reference)
    with step("edges"):
        mine, ref = pair(4)
        x = (randn(2, 3, 2, 2, seed=7, dtype=f64) * 2 + 1).to(memory_format=torch.channels_last)
        close(run(mine, x), ref(x), "a channels_last (non-contiguous) x (2, 3, 2, 2)")
        same_state(mine, ref, "after a channels_last step")
        raised = None
        try:
            with forbid(*banned):
                mine(randn(1, 3, 1, 1, dtype=f64))
        except Exception as error:
            raised = error
        kind = type(raised).__name__ if raised else "no error"
        assert isinstance(raised, ValueError), (
            f"training on one value per channel (x (1, 3, 1, 1)) gave {kind}, not ValueError: the unbiased "
            "variance of one value divides by n - 1 = 0"
        )
        close(run(mine.eval(), x[:1, :, :1, :1]), ref.eval()(x[:1, :, :1, :1]), "x (1, 3, 1, 1) in eval mode")
    where = ", ".join(map(str, devices()))
    return f"C5 passes: outputs and buffers match nn.BatchNorm1d/2d in train and eval on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C5 passes")
    with pytest.raises(AssertionError, match=r"^C5 · check 1/8 \(construct\): BatchNorm raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C5 · check 3/8 \(training\): running_var is off .*"
                       + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: its training output and running_mean are right
    x = randn(8, 3) * 2 + 1
    mine, ref = _wrong(3), torch.nn.BatchNorm1d(3)
    close(mine(x), ref(x))
    close(mine.running_mean, ref.running_mean)
    assert not torch.allclose(mine.running_var, ref.running_var)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        mine(x[:1])
    close(mine.eval()(x), ref.eval()(x), atol=float("inf"))  # eval runs, with the wrong running_var
    assert not torch.allclose(mine(x), ref(x))
    with pytest.raises(NotImplementedError):
        _stub.forward(None, x)
    # torch tracks the unbiased variance and normalises with the biased one (torch 2.14)
    torch.testing.assert_close(ref.running_var, 0.9 + 0.1 * x.var(0, correction=1))

    # the follow-up: momentum=None makes the running mean a cumulative average over num_batches_tracked
    cumulative = torch.nn.BatchNorm1d(3, momentum=None)
    batches = [randn(4, 3, seed=k) for k in range(3)]
    for batch in batches:
        cumulative(batch)
    close(cumulative.running_mean, sum(batch.mean(0) for batch in batches) / 3, atol=1e-6)
    assert cumulative.num_batches_tracked == 3

    class InGraph(_solution):  # right values, but the running mean is left attached to the graph
        def forward(self, x):
            out = super().forward(x)
            self.running_mean = self.running_mean + 0 * x.sum()
            return out

    with pytest.raises(AssertionError, match=r"check 6/8 \(graph\): running_mean carries a grad_fn"):
        grade(InGraph)

    class NoCheck(_solution):  # divides by n - 1 = 0 instead of refusing
        def forward(self, x):
            n = x.numel() // x.shape[1]
            if n == 1 and self.training:
                return x
            return super().forward(x)

    with pytest.raises(AssertionError, match=r"check 8/8 \(edges\): .* gave no error, not ValueError"):
        grade(NoCheck)


if __name__ == "__main__":
    _check()
