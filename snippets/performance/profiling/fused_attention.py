"""Before writing a kernel, look for a fused op: SDPA does attention in one call instead of four."""

# --8<-- [start:demo]
import math

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

# batch, heads, tokens, head dim
q, k, v = (torch.randn(2, 4, 128, 32) for _ in range(3))


# materializes the 128 x 128 score matrix of every head
def manual_attention(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return scores.softmax(dim=-1) @ v


for fn in (manual_attention, F.scaled_dot_product_attention):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        out = fn(q, k, v)
    # the top-level ops only
    print(*[e.name for e in prof.events() if e.cpu_parent is None])
# > aten::transpose aten::matmul aten::div aten::softmax aten::matmul
# > aten::scaled_dot_product_attention
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Same result, to float32 rounding.
    torch.testing.assert_close(manual_attention(q, k, v), F.scaled_dot_product_attention(q, k, v))
    torch.testing.assert_close(out, manual_attention(q, k, v))
    # On CPU the dispatcher picks a fused flash-attention kernel underneath the one call.
    with profile(activities=[ProfilerActivity.CPU]) as p:
        F.scaled_dot_product_attention(q, k, v)
    names = [e.name for e in p.events()]
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in names
    assert "aten::softmax" not in names  # no separate softmax over a materialized score matrix


if __name__ == "__main__":
    _check()
