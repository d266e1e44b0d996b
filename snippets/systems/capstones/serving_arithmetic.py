"""System design #2 arithmetic: KV cache size, how many sequences fit, paging, and the decode floor."""

# --8<-- [start:demo]
layers, kv_heads, head_dim, bytes_per_value = 80, 8, 128, 2  # Llama-2-70B: GQA with 8 KV heads, bf16

kv_per_token = 2 * layers * kv_heads * head_dim * bytes_per_value  # K and V, every layer
print(kv_per_token // 1024, "KiB per token;", kv_per_token * 4096 / 2**30, "GiB per 4k-token sequence")
# > 320 KiB per token; 1.25 GiB per 4k-token sequence

node_memory, weights = 8 * 80e9, 70e9 * 2  # one 8 x 80 GB node, bf16 weights
kv_budget = 0.9 * (node_memory - weights)  # keep ~10 % for activations and the allocator
print(int(kv_budget // (kv_per_token * 4096)), "concurrent 4k-token sequences;",
      int(kv_budget // (kv_per_token * 8 * 4096)), "if every head had its own K and V (MHA)")
# > 335 concurrent 4k-token sequences; 41 if every head had its own K and V (MHA)

# Paging: reserving max_len per request vs 16-token blocks, for requests of these lengths.
lengths = [120, 600, 2300, 45, 900, 3100, 410, 75]
reserved = len(lengths) * 4096
paged = sum(-(-n // 16) * 16 for n in lengths)  # round each request up to whole blocks
print(f"used {sum(lengths) / reserved:.0%} of reserved slots vs {sum(lengths) / paged:.1%} of paged ones")
# > used 23% of reserved slots vs 99.3% of paged ones

# Decode is memory-bound: every token reads all weights once (batch 1, TP over 8 GPUs at ~3.35 TB/s each).
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
