"""Spot the bug: a scaled-int8 wrapper whose __torch_dispatch__ forgets to rewrap, so the scale is lost."""

# --8<-- [start:buggy]
import torch


class Scaled(torch.Tensor):
    """int8 values q and a scale s: the tensor means q * s."""

    @staticmethod
    def __new__(cls, q, s):
        return torch.Tensor._make_wrapper_subclass(cls, q.shape)

    def __init__(self, q, s):
        self.q, self.s = q, s

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        a, b = args  # matmul only: Scaled @ plain
        out = func(a.q.float(), b)  # the scale factors out
        return out


x = Scaled(torch.tensor([[2, 4], [6, 8]], dtype=torch.int8), s=0.5)
y = x @ torch.eye(2)
print(type(y).__name__, y[0].tolist())
# > Tensor [2.0, 4.0]
# --8<-- [end:buggy]

buggy_y = y

# --8<-- [start:fixed]
import torch


class Scaled(torch.Tensor):
    """int8 values q and a scale s: the tensor means q * s."""

    @staticmethod
    def __new__(cls, q, s):
        return torch.Tensor._make_wrapper_subclass(cls, q.shape)

    def __init__(self, q, s):
        self.q, self.s = q, s

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        a, b = args  # matmul only: Scaled @ plain
        out = func(a.q.float(), b)  # the scale factors out
        return Scaled(out, a.s)  # rewrap: the result keeps the scale

    def dequantize(self):
        return self.q * self.s


x = Scaled(torch.tensor([[2, 4], [6, 8]], dtype=torch.int8), s=0.5)
y = x @ torch.eye(2)
print(type(y).__name__, y.dequantize()[0].tolist())
# > Scaled [1.0, 2.0]
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    expected = x.dequantize() @ torch.eye(2)
    assert type(buggy_y) is torch.Tensor  # the subclass is gone
    torch.testing.assert_close(buggy_y * x.s, expected)  # off by exactly the scale
    assert type(y) is Scaled
    torch.testing.assert_close(y.dequantize(), expected)
    # a second matmul keeps going: still a Scaled tensor, still right
    z = y @ (2 * torch.eye(2))
    torch.testing.assert_close(z.dequantize(), 2 * expected)


if __name__ == "__main__":
    _check()
