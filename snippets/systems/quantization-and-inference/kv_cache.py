"""A KV cache: decoding token by token with cached keys and values gives full causal attention."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F

d, steps = 16, 10
wq, wk, wv = (torch.randn(d, d) / d**0.5 for _ in range(3))
tokens = torch.randn(steps, d)

# Without a cache: every new token recomputes attention over the whole prefix.
full = F.scaled_dot_product_attention(
    tokens @ wq, tokens @ wk, tokens @ wv, is_causal=True
)

# With a cache: each step projects only the new token and appends its key
# and value (torch.cat copies it all each step: real servers write into a
# preallocated buffer or paged blocks instead)
k_cache, v_cache, outputs = [], [], []
with torch.inference_mode():
    for t in range(steps):
        new = tokens[t : t + 1]
        k_cache.append(new @ wk)
        v_cache.append(new @ wv)
        outputs.append(
            F.scaled_dot_product_attention(
                new @ wq, torch.cat(k_cache), torch.cat(v_cache)
            )
        )
# no mask needed: the cache holds only the past
print(torch.allclose(torch.cat(outputs), full, atol=1e-5))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    torch.testing.assert_close(torch.cat(outputs), full, atol=1e-5, rtol=1e-5)
    # The cache grows by one key and one value per step; projections per step stay constant (1 row).
    assert torch.cat(k_cache).shape == (steps, d) and torch.cat(
        v_cache
    ).shape == (steps, d)
    # What servers do instead of torch.cat: a buffer of the maximum length,
    # allocated once ([layers, 2, batch, heads, max_len, head_dim]; here one
    # layer and head), written in place; attention reads the filled prefix.
    max_len = 16
    cache = torch.zeros(2, max_len, d)
    address = cache.data_ptr()
    prealloc = []
    with torch.inference_mode():
        for t in range(steps):
            new = tokens[t : t + 1]
            cache[0, t] = new @ wk
            cache[1, t] = new @ wv
            prealloc.append(
                F.scaled_dot_product_attention(
                    new @ wq, cache[0, : t + 1], cache[1, : t + 1]
                )
            )
    assert cache.data_ptr() == address  # never reallocated
    torch.testing.assert_close(torch.cat(prealloc), full, atol=1e-5, rtol=1e-5)
    # inference_mode tensors cannot be saved for backward later.
    assert outputs[0].is_inference()


if __name__ == "__main__":
    _check()
