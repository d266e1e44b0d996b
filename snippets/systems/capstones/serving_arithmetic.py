"""System design #2 arithmetic: KV cache size, how many sequences fit, paging, and the decode floor."""

# --8<-- [start:demo]
# Llama-2-70B: GQA with 8 KV heads, bf16
layers, kv_heads, head_dim, bytes_per_value = 80, 8, 128, 2

# K and V, every layer
kv_per_token = 2 * layers * kv_heads * head_dim * bytes_per_value
per_seq = kv_per_token * 4096 / 2**30
print(kv_per_token // 1024, "KiB per token;", per_seq, "GiB per 4k sequence")
# > 320 KiB per token; 1.25 GiB per 4k sequence

node_memory, weights = 8 * 80e9, 70e9 * 2  # one 8 x 80 GB node, bf16 weights
# keep ~10 % for activations and the allocator
kv_budget = 0.9 * (node_memory - weights)
fit_gqa = int(kv_budget // (kv_per_token * 4096))
# MHA: every one of the 64 heads has its own K and V, 8x the cache
fit_mha = int(kv_budget // (kv_per_token * 8 * 4096))
print(fit_gqa, "concurrent 4k-token sequences;", fit_mha, "with MHA")
# > 335 concurrent 4k-token sequences; 41 with MHA

# Paging: reserving max_len per request vs 16-token blocks, for requests
# of these lengths.
lengths = [120, 600, 2300, 45, 900, 3100, 410, 75]
reserved = len(lengths) * 4096
# round each request up to whole blocks
paged = sum(-(-n // 16) * 16 for n in lengths)
used = sum(lengths)
print(f"used {used / reserved:.0%} of reserved vs {used / paged:.1%} of paged")
# > used 23% of reserved vs 99.3% of paged

# Decode is memory-bound: every token reads all weights once
# (batch 1, TP over 8 H100 SXM GPUs at ~3.35 TB/s each).
print(f"{weights / (8 * 3.35e12) * 1e3:.1f} ms/token floor at batch 1")
# > 5.2 ms/token floor at batch 1
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert kv_per_token == 327_680 and kv_per_token * 4096 == 1.25 * 2**30
    assert int(kv_budget // (kv_per_token * 4096)) == 335
    # Paging wastes less than one block per sequence.
    assert paged - sum(lengths) < 16 * len(lengths)
    # int4 weight-only quantization frees 105 GB of the node for KV cache.
    assert weights - 70e9 * 0.5 == 105e9


if __name__ == "__main__":
    _check()
