"""Grouped-query attention: a KV cache H_q/H_kv times smaller, enable_gqa equals repeat_interleave, repeat is wrong."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F

B, H_Q, H_KV, T, D = 1, 8, 2, 10, 16
group = H_Q // H_KV  # 4 query heads share each KV head

torch.manual_seed(0)
q = torch.randn(B, H_Q, 1, D)  # one decode query per head
k = torch.randn(B, H_KV, T, D)  # the cache stores only H_KV heads
v = torch.randn(B, H_KV, T, D)

mha_cache = 2 * B * H_Q * T * D * 2  # K and V, bf16, one per query head
gqa_cache = 2 * B * H_KV * T * D * 2
print(mha_cache // gqa_cache)
# > 4

# query head h reads KV head h // group
ref = F.scaled_dot_product_attention(
    q, k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1))
fused = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)  # no copies
tiled = F.scaled_dot_product_attention(
    q, k.repeat(1, group, 1, 1), v.repeat(1, group, 1, 1))  # wrong grouping
print(torch.allclose(fused, ref), torch.allclose(tiled, ref))
# > True False
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    assert mha_cache // gqa_cache == group == 4
    # The real tensors agree with the arithmetic.
    kb = k.to(torch.bfloat16)
    full = kb.repeat_interleave(group, dim=1)
    assert full.nbytes // kb.nbytes == group
    torch.testing.assert_close(fused, ref)
    assert not torch.allclose(tiled, ref)
    # repeat_interleave puts head h's KV at h // group; repeat at h % H_KV.
    expanded = k.repeat_interleave(group, dim=1)
    for h in range(H_Q):
        assert torch.equal(expanded[:, h], k[:, h // group])
        assert torch.equal(k.repeat(1, group, 1, 1)[:, h], k[:, h % H_KV])
    # Without the flag, mismatched head counts raise.
    with pytest.raises(RuntimeError, match=r"size of tensor a \(8\) must match the size of tensor b \(2\)"):
        F.scaled_dot_product_attention(q, k, v)


if __name__ == "__main__":
    _check()
