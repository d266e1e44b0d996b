"""PagedAttention's bookkeeping: a block pool, block tables, a gather decode equal to the contiguous cache."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F

BLOCK, N_BLOCKS, H, D = 4, 32, 2, 8


class PagedCache:
    def __init__(self):
        self.k = torch.zeros(N_BLOCKS, H, BLOCK, D)  # the physical pool
        self.v = torch.zeros(N_BLOCKS, H, BLOCK, D)
        self.free = torch.randperm(N_BLOCKS).tolist()  # any order works
        self.tables, self.lengths = {}, {}  # logical -> physical blocks

    def append(self, seq, k, v):  # k, v: (H, D) for one new token
        table = self.tables.setdefault(seq, [])
        n = self.lengths.get(seq, 0)
        if n % BLOCK == 0:  # the last block is full: take a new one
            table.append(self.free.pop())
        block, slot = table[n // BLOCK], n % BLOCK
        self.k[block, :, slot], self.v[block, :, slot] = k, v
        self.lengths[seq] = n + 1

    def gather(self, seq):  # real kernels index through the table instead
        table = torch.tensor(self.tables[seq])
        k = self.k[table].transpose(0, 1).reshape(H, -1, D)  # (H, blocks*B, D)
        v = self.v[table].transpose(0, 1).reshape(H, -1, D)
        n = self.lengths[seq]
        return k[:, :n], v[:, :n]  # trim the partly filled last block

    def release(self, seq):
        self.free += self.tables.pop(seq)
        del self.lengths[seq]


torch.manual_seed(0)
cache, contiguous = PagedCache(), {}
lengths = {"a": 10, "b": 3, "c": 7}
for step in range(10):  # the sequences grow interleaved, as in serving
    for seq, n in lengths.items():
        if step < n:
            k, v = torch.randn(2, H, D)
            cache.append(seq, k, v)
            contiguous.setdefault(seq, []).append((k, v))

for seq in lengths:
    q = torch.randn(1, H, 1, D)
    k, v = cache.gather(seq)
    paged = F.scaled_dot_product_attention(q, k[None], v[None])
    pairs = zip(*contiguous[seq], strict=True)  # (keys, values) per position
    ks, vs = (torch.stack(t, dim=1)[None] for t in pairs)
    ref = F.scaled_dot_product_attention(q, ks, vs)
    print(seq, torch.equal(paged, ref), cache.tables[seq])
# > a True [30, 17, 8]
# > b True [7]
# > c True [0, 1]
used = sum(cache.lengths.values())
print(len(sum(cache.tables.values(), [])) * BLOCK, "slots for", used, "tokens")
# > 24 slots for 20 tokens
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    allocated = len(sum(cache.tables.values(), [])) * BLOCK
    # Internal waste is under one block per sequence; no external fragmentation (any free block fits).
    assert 0 <= allocated - used < BLOCK * len(lengths)
    assert len(cache.free) == N_BLOCKS - 6
    cache.release("b")
    assert len(cache.free) == 27 and "b" not in cache.tables
    # Paging changes addressing only: the gathered K equals the contiguous one exactly.
    k, v = cache.gather("a")
    ks = torch.stack([kv[0] for kv in contiguous["a"]], dim=1)
    assert torch.equal(k, ks)
    # 2.14.1's varlen_attn takes block_table= and seqused_k= (and num_splits=, Q156), but its kernel is CUDA-only.
    import inspect

    from torch.nn.attention.varlen import varlen_attn

    assert {"block_table", "seqused_k", "num_splits"} <= inspect.signature(varlen_attn).parameters.keys()

    qv = torch.randn(4, H, D)
    cu = torch.tensor([0, 4], dtype=torch.int32)
    with pytest.raises(NotImplementedError, match="_flash_attention_forward.*'CPU' backend"):
        varlen_attn(qv, qv, qv, cu, cu, 4, 4)


if __name__ == "__main__":
    _check()
