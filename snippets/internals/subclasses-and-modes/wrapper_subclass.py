"""A wrapper tensor subclass: metadata outside, data in an inner tensor, unwrap-run-rewrap in __torch_dispatch__."""

# --8<-- [start:demo]
import torch
from torch.utils._pytree import tree_map_only


class BF16Store(torch.Tensor):
    """Claims float32; keeps its data in an inner bfloat16 tensor."""

    @staticmethod
    def __new__(cls, inner):
        return torch.Tensor._make_wrapper_subclass(
            cls, inner.shape, dtype=torch.float32,
            requires_grad=inner.requires_grad)

    def __init__(self, inner):
        self.inner = inner.to(torch.bfloat16)

    def __repr__(self):  # the default repr would read data the outer lacks
        return f"BF16Store({self.inner})"

    def __tensor_flatten__(self):  # for torch.compile (and FSDP2, DCP)
        return ["inner"], None

    @staticmethod
    def __tensor_unflatten__(inner_tensors, meta, outer_size, outer_stride):
        return BF16Store(inner_tensors["inner"])

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def unwrap(t):
            return t.inner.float()

        args, kwargs = tree_map_only(BF16Store, unwrap, (args, kwargs or {}))
        out = func(*args, **kwargs)
        return tree_map_only(torch.Tensor, BF16Store, out)  # rewrap


x = BF16Store(torch.randn(2, 3)).requires_grad_()
w = BF16Store(torch.randn(3, 4))
print(x.dtype, x.inner.dtype, x.data_ptr())  # the outer tensor has no data
# > torch.float32 torch.bfloat16 0
(x @ w).sum().backward()  # autograd runs above, on the outer tensor
print(type(x.grad).__name__)
# > BF16Store
# --8<-- [end:demo]

# --8<-- [start:dtensor]
import torch
import torch.distributed as dist
from torch.distributed.tensor import Shard, distribute_tensor, init_device_mesh

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
mesh = init_device_mesh("cpu", (1,))
d = distribute_tensor(torch.arange(6.0).reshape(3, 2), mesh, [Shard(0)])
print(d.placements, type(d._local_tensor).__name__, d.data_ptr())
# > (Shard(dim=0),) Tensor 0
print(d.__tensor_flatten__()[0])
# > ['_local_tensor', 'device_mesh']
dist.destroy_process_group()
# --8<-- [end:dtensor]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    with pytest.raises(RuntimeError, match="invalid python storage"):
        x.untyped_storage().data_ptr()
    keys = str(torch._C._dispatch_keys(x))
    assert "Python" in keys and "PythonTLSSnapshot" in keys
    eager = (x @ w).inner
    torch._dynamo.reset()
    compiled = torch.compile(lambda a, b: a @ b, backend="aot_eager", fullgraph=True)(x, w)
    assert type(compiled) is BF16Store
    torch.testing.assert_close(compiled.inner, eager)


if __name__ == "__main__":
    _check()
