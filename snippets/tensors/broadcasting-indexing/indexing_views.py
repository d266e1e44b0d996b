"""Basic indexing returns views, advanced and boolean indexing return copies, and indexed assignment writes in place."""

# --8<-- [start:demo]
import torch

grid = torch.arange(12).reshape(3, 4)
basic = grid[1:, ::2]  # ints, slices, None, ...: a view
fancy = grid[[0, 2]]  # a list or an integer tensor: a copy
# a boolean mask: a copy, 1-D, its length known only from the data
masked = grid[grid > 8]
basic[0, 0] = -1
fancy[0, 0] = -2
masked[0] = -3
print(grid)  # only the write through the view reached grid
# > tensor([[ 0,  1,  2,  3],
# >         [-1,  5,  6,  7],
# >         [ 8,  9, 10, 11]])
# --8<-- [end:demo]

# --8<-- [start:assign]
import torch

x = torch.zeros(5)
x[[1, 3]] = 7.0  # on the left of `=`, advanced indexing writes into x
x[x > 5] += 1.0  # reads a copy, adds, writes back through the same mask
# chained: the first [] made a copy, and the write lands in it
x[[1, 3]][0] = 99.0
print(x)
# > tensor([0., 8., 0., 8., 0.])
y = torch.zeros(5)
y[[0, 0, 2]] += 1.0  # a repeated index is read once and written once
z = torch.zeros(5)
# adds once per occurrence
z.index_add_(0, torch.tensor([0, 0, 2]), torch.ones(3))
print(y, z)
# > tensor([1., 0., 1., 0., 0.]) tensor([2., 0., 1., 0., 0.])
# --8<-- [end:assign]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import numpy as np

    base = torch.arange(12).reshape(3, 4)

    def shares(t: torch.Tensor) -> bool:
        return t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()

    # Views: basic indexing and the ops built on it share base's storage.
    views = [
        base[0],
        base[:, 1:3],
        base[1:, ::2],
        base[None],
        base[..., 0],
        base[torch.tensor(1)],  # a 0-d integer tensor index acts like a Python int
        base.narrow(1, 1, 2),
        base.select(0, 1),
        base.unbind(0)[1],
        base.split(2, dim=1)[1],
        base.chunk(3)[0],
        base.diagonal(),
        base.unfold(1, 2, 1),
        base.movedim(0, 1),
        base.unsqueeze(0),
        base.t(),
    ]
    assert all(shares(v) for v in views)
    # Copies: anything with an index tensor, list or mask, and the gathering ops.
    copies = [
        base[[0, 2]],
        base[torch.tensor([0, 2])],
        base[base > 5],
        base[torch.tensor([True, False, True])],
        base[1, [0, 1]],
        base.index_select(0, torch.tensor([0])),
        base.masked_select(base > 5),
        base.gather(1, torch.zeros(3, 1, dtype=torch.long)),
        base.take(torch.tensor([0, 5])),
        base.flip(0),
    ]
    assert not any(shares(c) for c in copies)

    # The demo: only the view's write reached x.
    assert torch.equal(grid, torch.tensor([[0, 1, 2, 3], [-1, 5, 6, 7], [8, 9, 10, 11]]))
    assert fancy[0, 0] == -2 and masked[0] == -3
    assert masked.shape == (3,)  # 9, 10, 11: the shape depends on the values

    # Indexed assignment is index_put_: in place, even with list, tensor or mask indices.
    w = torch.zeros(5)
    w.index_put_((torch.tensor([1, 3]),), torch.tensor(7.0))
    assert torch.equal(w, torch.tensor([0.0, 7.0, 0.0, 7.0, 0.0]))
    assert torch.equal(x, torch.tensor([0.0, 8.0, 0.0, 8.0, 0.0]))  # the chained write was lost
    # Repeated indices: `+=` keeps one update per position; accumulate=True or index_add_ count them all.
    assert y.tolist() == [1.0, 0.0, 1.0, 0.0, 0.0]
    acc = torch.zeros(5)
    acc.index_put_((torch.tensor([0, 0, 2]),), torch.ones(3), accumulate=True)
    assert torch.equal(acc, z) and z.tolist() == [2.0, 0.0, 1.0, 0.0, 0.0]
    # NumPy has the same rule, and np.add.at is its accumulating form.
    arr = np.zeros(5)
    arr[[0, 0, 2]] += 1.0
    assert arr.tolist() == y.tolist()
    np.add.at(arr, [0, 0, 2], 1.0)
    assert (arr - np.array(y.tolist())).tolist() == z.tolist()

    # Advanced indices separated by a slice move their dim to the front (NumPy's rule too).
    cube = torch.zeros(2, 3, 4)
    assert cube[[0, 1], :, [0, 1]].shape == (2, 3)
    assert cube[:, [0, 1], [0, 1]].shape == (2, 2)

    # A small view keeps the whole storage alive; clone() keeps only what it needs.
    big = torch.zeros(1000, 1000)
    small = big[0, :2]
    assert small.untyped_storage().nbytes() == 1000 * 1000 * 4
    assert small.clone().untyped_storage().nbytes() == 2 * 4


if __name__ == "__main__":
    _check()
