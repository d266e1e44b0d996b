"""GPU lane: a bf16 ResNet stage, forward + backward, NCHW vs channels_last: timed, and profiled for layout kernels."""

# --8<-- [start:demo]
import torch
from torch import nn
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile
from torch.utils import benchmark
from torchvision.models.resnet import Bottleneck


def setup(fmt):  # a ResNet-50 stage: three 256-channel bottlenecks
    torch.manual_seed(0)
    stage = nn.Sequential(*[Bottleneck(256, 64) for _ in range(3)])
    stage = stage.to("cuda", torch.bfloat16, memory_format=fmt)
    x = torch.randn(32, 256, 56, 56, device="cuda", dtype=torch.bfloat16)
    return stage, x.to(memory_format=fmt).requires_grad_()


def step(stage, x):  # forward + backward
    y = stage(x)
    y.float().square().mean().backward()
    return y


def kernels(stage, x):  # names of the GPU kernels one step launches
    step(stage, x)  # warm-up: cuDNN picks its algorithms here
    torch.cuda.synchronize()
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=acts) as prof:
        step(stage, x)
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == DeviceType.CUDA]


def is_layout(name):  # the conversions cuDNN adds around an NCHW conv
    name = name.lower()
    return "nchwtonhwc" in name or "nhwctonchw" in name


runs = {}
for fmt in (torch.contiguous_format, torch.channels_last):
    stage, x = setup(fmt)
    timer = benchmark.Timer("step(stage, x)", globals=dict(
        step=step, stage=stage, x=x))
    names = kernels(stage, x)
    runs[str(fmt)] = {
        "ms": timer.blocked_autorange(min_run_time=1).median * 1e3,
        "kernels": len(names),
        "layout kernels": sum(map(is_layout, names)),
    }
cl, nchw = runs["torch.channels_last"], runs["torch.contiguous_format"]
print(cl["layout kernels"] <= nchw["layout kernels"])
# > True
y = step(stage, x)  # the last stage is the channels_last one
print(y.is_contiguous(memory_format=torch.channels_last))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import sys

    assert cl["layout kernels"] <= nchw["layout kernels"]
    assert cl["kernels"] > 0 and nchw["kernels"] > 0 and cl["ms"] > 0 and nchw["ms"] > 0
    # The two formats compute the same function: equal up to bf16 rounding (relative error of the norms).
    stage_a, x_a = setup(torch.contiguous_format)
    stage_b, x_b = setup(torch.channels_last)
    assert torch.equal(x_a, x_b) and x_b.is_contiguous(memory_format=torch.channels_last)
    y_a, y_b = step(stage_a, x_a), step(stage_b, x_b)
    assert y_a.is_contiguous() and y_b.is_contiguous(memory_format=torch.channels_last)

    def rel(a, b):
        return ((a.float() - b.float()).norm() / b.float().norm()).item()

    assert rel(y_b, y_a) < 5e-2, rel(y_b, y_a)
    assert rel(x_b.grad, x_a.grad) < 1e-1, rel(x_b.grad, x_a.grad)
    w_a, w_b = stage_a[0].conv2.weight.grad, stage_b[0].conv2.weight.grad
    assert rel(w_b, w_a) < 1e-1, rel(w_b, w_a)
    # Timings and kernel counts are logged, never asserted.
    print(f"layout: {runs}", file=sys.stderr)


if __name__ == "__main__":
    _check()
