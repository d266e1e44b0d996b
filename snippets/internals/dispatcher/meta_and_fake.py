"""Meta tensors (shape without data) and FakeTensor (a subclass on the Python key that can claim any device)."""

# --8<-- [start:meta]
import torch
from torch import nn

big = torch.empty(100_000, 100_000, device="meta")
print(big.nbytes / 1e9, "GB described, none allocated")
# > 40.0 GB described, none allocated
conv = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, device="meta")
print(conv(torch.empty(8, 3, 224, 224, device="meta")).shape)
# > torch.Size([8, 64, 112, 112])
# --8<-- [end:meta]

# --8<-- [start:fake]
import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

with FakeTensorMode():  # no GPU on this machine, and no CUDA call made
    a = torch.empty(4, 8, device="cuda")
    out = a @ torch.empty(8, 2, device="cuda")
print(type(out).__name__, out.shape, out.device)
# > FakeTensor torch.Size([4, 2]) cuda:0

with FakeTensorMode(shape_env=ShapeEnv()) as mode:  # sizes become symbols
    idx = mode.from_tensor(torch.tensor([0.0, 1.0, 2.0])).nonzero()
print(idx.shape)  # u0: an unbacked size, known only at run time
# > torch.Size([u0, 1])
# --8<-- [end:fake]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest
    from torch._subclasses.fake_tensor import DynamicOutputShapeException
    from torch.utils._python_dispatch import TorchDispatchMode

    assert big.is_meta
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        big[0, 0].item()
    assert issubclass(FakeTensorMode, TorchDispatchMode)
    assert "Python" in str(torch._C._dispatch_keys(out))
    assert isinstance(out, FakeTensor) and out.fake_device == torch.device("cuda", 0)
    with FakeTensorMode() as plain:  # no ShapeEnv: a data-dependent shape is an error
        with pytest.raises(DynamicOutputShapeException):
            plain.from_tensor(torch.tensor([0.0, 1.0])).nonzero()

    # a Dynamo backend gets real example inputs and a graph whose nodes carry fake values
    seen = {}

    def backend(gm, example_inputs):
        seen["inputs"] = [type(t) for t in example_inputs]
        seen["values"] = {type(n.meta["example_value"]) for n in gm.graph.nodes if "example_value" in n.meta}
        return gm.forward

    torch._dynamo.reset()
    torch.compile(lambda t: (t.sin() + 1).sum(), backend=backend, fullgraph=True)(torch.randn(3))
    assert seen["inputs"] == [torch.Tensor]
    assert seen["values"] == {FakeTensor}


if __name__ == "__main__":
    _check()
