"""nn.Embedding: padding_idx masks nothing; sparse grads need SGD/Adagrad/SparseAdam; max_norm is in place."""

# --8<-- [start:padding]
import torch
from torch import nn

emb = nn.Embedding(10, 4, padding_idx=0)
ids = torch.tensor([[3, 5, 0, 0]])  # two tokens, two pads
out = emb(ids)
print(out[0, 2].abs().sum().item())  # the pad row starts at zero
# > 0.0
out.sum().backward()
print(emb.weight.grad[0].abs().sum().item())  # and never gets a gradient
# > 0.0
real_mean = out[:, :2].mean(1)  # the mean over the two real tokens
print(torch.allclose(out.mean(1), real_mean))  # a plain mean counts pads
# > False
# --8<-- [end:padding]

# --8<-- [start:sparse]
import torch
from torch import nn

emb = nn.Embedding(1000, 8, sparse=True)
emb(torch.tensor([1, 5, 5])).sum().backward()
print(emb.weight.grad.layout, emb.weight.grad.coalesce().indices().tolist())
# > torch.sparse_coo [[1, 5]]
for opt in (torch.optim.SGD, torch.optim.Adagrad, torch.optim.SparseAdam,
            torch.optim.Adam):
    try:
        opt(emb.parameters(), lr=0.1).step()
        print(opt.__name__, "ok")
    except RuntimeError as e:
        print(opt.__name__, str(e).split(",")[0])
# > SGD ok
# > Adagrad ok
# > SparseAdam ok
# > Adam Adam does not support sparse gradients
# --8<-- [end:sparse]

# --8<-- [start:bag]
import torch
from torch import nn

bag = nn.EmbeddingBag(10, 4)  # mode="mean" by default
ids, offsets = torch.tensor([1, 2, 4, 5, 4]), torch.tensor([0, 2])
print(torch.allclose(bag(ids, offsets)[0], bag.weight[[1, 2]].mean(0)))
# > True
emb = nn.Embedding(10, 4, max_norm=1.0)
version = emb.weight._version
emb(torch.tensor([3]))  # renormalizes row 3 *in place*
print(round(emb.weight[3].norm().item(), 4), emb.weight._version > version)
# > 1.0 True
# --8<-- [end:bag]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import warnings

    import pytest

    # A loaded non-zero pad row is used and frozen by SGD, but AdamW's decay shrinks it.
    cases = ((torch.optim.SGD, {"lr": 0.1}, 1.0), (torch.optim.AdamW, {"lr": 0.1, "weight_decay": 0.5}, 0.95))
    for opt_cls, kwargs, expected in cases:
        e = nn.Embedding(10, 4, padding_idx=0)
        with torch.no_grad():
            e.weight[0] = 1.0
        opt = opt_cls(e.parameters(), **kwargs)
        e(torch.tensor([0, 3])).sum().backward()
        opt.step()
        torch.testing.assert_close(e.weight[0], torch.full((4,), expected))
    dtype_message = "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"
    with pytest.raises(RuntimeError, match=dtype_message):
        nn.Embedding(10, 4)(torch.tensor([1.0]))
    with pytest.raises(IndexError, match="index out of range in self"):
        nn.Embedding(10, 4)(torch.tensor([10]))
    assert nn.Embedding(10, 4)(torch.tensor([1], dtype=torch.int32)).shape == (1, 4)
    # The optimizer matrix for sparse gradients.
    e = nn.Embedding(1000, 8, sparse=True)

    def step(opt):
        e.zero_grad()
        e(torch.tensor([1, 5])).sum().backward()
        opt.step()

    step(torch.optim.SGD(e.parameters(), lr=0.1, momentum=0.9))
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported"):
        step(torch.optim.SGD(e.parameters(), lr=0.1, weight_decay=0.1))
    with pytest.raises(RuntimeError, match="Adam does not support sparse gradients"):
        step(torch.optim.AdamW(e.parameters()))
    with pytest.raises(RuntimeError, match="RMSprop does not support sparse gradients"):
        step(torch.optim.RMSprop(e.parameters()))
    dense = nn.Embedding(10, 4)
    dense(torch.tensor([1])).sum().backward()
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
        torch.optim.SparseAdam(dense.parameters()).step()
    # EmbeddingBag equivalences.
    b = nn.EmbeddingBag(10, 4, mode="sum")
    two_d = torch.tensor([[1, 2], [4, 5]])
    torch.testing.assert_close(b(two_d), b(two_d.flatten(), torch.tensor([0, 2])))
    psw = torch.tensor([0.5, 2.0, 1.0, 1.0])
    torch.testing.assert_close(b(two_d.flatten(), torch.tensor([0, 2]), per_sample_weights=psw)[0],
                               0.5 * b.weight[1] + 2.0 * b.weight[2])
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        bag(two_d.flatten(), torch.tensor([0, 2]), per_sample_weights=psw)
    padded = nn.EmbeddingBag(10, 4, padding_idx=0)
    torch.testing.assert_close(padded(torch.tensor([[3, 0, 0]]))[0], padded.weight[3])  # pads left out of the mean
    empty = bag(torch.tensor([1, 2]), torch.tensor([0, 2]))  # the second bag is empty
    assert empty[1].abs().sum() == 0
    untouched = nn.Embedding(10, 4, max_norm=1.0)
    with torch.no_grad():
        untouched.weight.mul_(10)
    norm_before = untouched.weight[7].norm()
    untouched(torch.tensor([3]))
    assert untouched.weight[7].norm() == norm_before > 1.0
    assert not nn.Embedding.from_pretrained(torch.randn(5, 3)).weight.requires_grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.zero_grad()
        e(torch.tensor([1, 5])).sum().backward()
        torch.nn.utils.clip_grad_norm_(e.parameters(), 1.0)  # handles a sparse gradient


if __name__ == "__main__":
    _check()
