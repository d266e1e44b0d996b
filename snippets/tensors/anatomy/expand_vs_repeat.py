"""expand is a stride-0 view that allocates nothing; repeat allocates a real copy; writes into an expand are a trap."""

# --8<-- [start:demo]
import torch

bias = torch.tensor([1.0, 2.0, 3.0])
e = bias.expand(4, 3)  # a view: every row reads the same 3 floats
r = bias.repeat(4, 1)  # a new (4, 3) tensor
print(e.stride(), r.stride())
# > (0, 1) (3, 1)
print(e.untyped_storage().nbytes(), r.untyped_storage().nbytes())
# > 12 48
print(e.untyped_storage().data_ptr() == bias.untyped_storage().data_ptr())
# > True
pair = torch.tensor([1, 2])
print(pair.repeat(2).tolist(), pair.repeat_interleave(2).tolist())
# > [1, 2, 1, 2] [1, 1, 2, 2]
# --8<-- [end:demo]

# --8<-- [start:write_trap]
import textwrap

import torch

bias = torch.tensor([1.0, 2.0, 3.0])
e = bias.expand(4, 3)
e[3, 0] = 10.0  # one element, one address: allowed, but it is bias[0]
print(e[0].tolist())
# > [10.0, 2.0, 3.0]
try:
    e.add_(1)  # four elements per address: refused
except RuntimeError as err:
    print(textwrap.fill(str(err).split(".")[0], 70))
# > unsupported operation: more than one element of the written-to tensor
# > refers to a single memory location
safe = e.clone()  # own memory, ordinary strides
safe.add_(1)
print(safe.stride(), bias.tolist())
# > (3, 1) [10.0, 2.0, 3.0]
# --8<-- [end:write_trap]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import numpy as np
    import pytest

    # expand: zero stride on the new dim, no new memory; repeat: a contiguous copy.
    assert e.stride() == (0, 1) and not e.is_contiguous()
    assert e.untyped_storage().data_ptr() == bias.untyped_storage().data_ptr()
    assert e.untyped_storage().nbytes() == 3 * bias.element_size()
    assert r.is_contiguous() and r.untyped_storage().data_ptr() != bias.untyped_storage().data_ptr()
    assert torch.equal(r, torch.tensor([[1.0, 2.0, 3.0]] * 4))
    # expand only stretches size-1 dims (or adds leading ones); -1 keeps a size.
    with pytest.raises(RuntimeError, match=r"expanded size of the tensor \(6\) must match the existing size \(3\)"):
        bias.expand(6)
    assert bias.unsqueeze(1).expand(-1, 5).stride() == (1, 0)
    # Materialising an expanded tensor allocates the full size, and so does any op's result.
    assert e.contiguous().untyped_storage().nbytes() == 12 * bias.element_size()
    assert (e + 1).untyped_storage().nbytes() == 12 * bias.element_size()
    # Broadcasting does the same expansion implicitly: repeat-then-add gives the same result, after a copy.
    grid = torch.arange(12.0).reshape(4, 3)
    assert torch.equal(grid + bias, grid + bias.repeat(4, 1))
    assert torch.equal(bias.expand_as(grid), bias.expand(4, 3))
    # torch's repeat is NumPy's tile; torch's repeat_interleave is NumPy's repeat.
    assert torch.tensor([1, 2]).repeat(2).tolist() == np.tile([1, 2], 2).tolist()
    assert torch.tensor([1, 2]).repeat_interleave(2).tolist() == np.repeat([1, 2], 2).tolist()

    # Writes into an expanded tensor: a single-address write goes through (and shows up in every row),
    # an in-place op that would write one address several times raises.
    assert bias[0] == 10.0 and torch.equal(e[:, 0], torch.full((4,), 10.0))
    message = "more than one element of the written-to tensor refers to a single memory location"
    for op in (lambda t: t.add_(1), lambda t: t.mul_(2), lambda t: t.copy_(torch.zeros(4, 3)), lambda t: t.relu_()):
        with pytest.raises(RuntimeError, match=message + r".*Please clone\(\) the tensor"):
            op(e)
    assert torch.equal(safe, torch.tensor([[11.0, 3.0, 4.0]] * 4))
    assert bias.tolist() == [10.0, 2.0, 3.0]  # the clone's update did not touch the source
    e[1] = torch.tensor([7.0, 8.0, 9.0])  # a whole row is also one address per element: accepted
    assert bias.tolist() == [7.0, 8.0, 9.0] and torch.equal(e[3], bias)
    with pytest.raises(RuntimeError, match=message):
        e[:] = 0.0
    # Not every in-place op is checked: fill_ on an expanded tensor is accepted and rewrites the source.
    fresh = torch.tensor([1.0, 2.0, 3.0])
    fresh.expand(4, 3).fill_(0.0)
    assert fresh.tolist() == [0.0, 0.0, 0.0]


if __name__ == "__main__":
    _check()
