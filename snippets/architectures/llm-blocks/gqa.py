"""GQA: consecutive query heads share a KV head: repeat_interleave (or enable_gqa), never repeat."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F

N, Hq, Hkv, T, hd = 1, 8, 2, 5, 16
q = torch.randn(N, Hq, T, hd)
k, v = torch.randn(N, Hkv, T, hd), torch.randn(N, Hkv, T, hd)
g = Hq // Hkv  # query heads per KV head

out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
inter = F.scaled_dot_product_attention(
    q, k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1))
tiled = F.scaled_dot_product_attention(
    q, k.repeat(1, g, 1, 1), v.repeat(1, g, 1, 1))  # wrong pairing
print(torch.allclose(out, inter, atol=1e-6), torch.allclose(out, tiled))
# > True False
# --8<-- [end:demo]

# --8<-- [start:kv_cache]
def kv_cache_gib(layers, kv_heads, head_dim, tokens, bytes_per=2):
    return 2 * layers * kv_heads * head_dim * tokens * bytes_per / 2**30


for name, kv in [("MHA", 32), ("GQA", 8), ("MQA", 1)]:
    print(name, kv_cache_gib(32, kv, 128, 8192), "GiB")
# > MHA 4.0 GiB
# > GQA 1.0 GiB
# > MQA 0.125 GiB
# --8<-- [end:kv_cache]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    torch.testing.assert_close(out, inter)
    # expand + reshape defers the copy and pairs the same way.
    expanded = k[:, :, None].expand(N, Hkv, g, T, hd).reshape(N, Hq, T, hd)
    torch.testing.assert_close(expanded, k.repeat_interleave(g, dim=1))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(8\) must match the size of tensor b \(2\)"):
        F.scaled_dot_product_attention(q, k, v)
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide the number of heads in"):
        F.scaled_dot_product_attention(torch.randn(N, 6, T, hd), torch.randn(N, 4, T, hd),
                                       torch.randn(N, 4, T, hd), enable_gqa=True)
    # Attention projection parameters at d=4096, 32 query heads, 8 KV heads of 128.
    d = 4096
    with torch.device("meta"):
        gqa = [torch.nn.Linear(d, n, bias=False) for n in (d, 8 * 128, 8 * 128, d)]
        mha = [torch.nn.Linear(d, d, bias=False) for _ in range(4)]

    def count(layers):
        return sum(m.weight.numel() for m in layers)

    assert count(gqa) == 2 * d * d + 2 * d * 8 * 128 == 41_943_040
    assert count(mha) == 4 * d * d == 67_108_864


if __name__ == "__main__":
    _check()
