"""System design #1 arithmetic: memory and compute for training a 70B model on 8-GPU nodes."""

# --8<-- [start:demo]
N = 70e9  # parameters

# Mixed-precision Adam: bf16 weights and grads, fp32 master weights, m and v
bytes_per_param = 2 + 2 + (4 + 4 + 4)
states = N * bytes_per_param
print(bytes_per_param, "bytes/param ->", states / 1e12, "TB of model state")
# > 16 bytes/param -> 1.12 TB of model state
for gpus in (8, 64, 512):  # FSDP / ZeRO-3 shards all of it evenly
    print(f"{gpus} GPUs: {states / gpus / 1e9:.1f} GB per GPU")
# > 8 GPUs: 140.0 GB per GPU
# > 64 GPUs: 17.5 GB per GPU
# > 512 GPUs: 2.2 GB per GPU

# Activations (bf16, FlashAttention): about 34 * seq * batch * hidden bytes
# per layer (Korthikanti et al. 2022)
layers, hidden, seq, micro_batch = 80, 8192, 4096, 1  # Llama-2-70B shape
per_layer = 34 * seq * micro_batch * hidden
no_checkpoint = layers * per_layer
# layer inputs + one layer live
full_checkpoint = layers * 2 * seq * micro_batch * hidden + per_layer
# TP=8 with sequence parallelism divides both by 8.
print(f"activations per sequence: {no_checkpoint / 1e9:.1f} GB,", end=" ")
print(f"fully checkpointed {full_checkpoint / 1e9:.1f} GB")
# > activations per sequence: 91.3 GB, fully checkpointed 6.5 GB

# Compute: about 6 * N * D FLOPs for D training tokens.
peak = 989e12  # H100 SXM, dense BF16, no 2:4 sparsity (that doubles it)
mfu = 0.4  # achieved / peak FLOP/s: 35-45 % is typical for large runs
runs = {"Chinchilla": 20 * N, "Llama 3": 15e12}  # 20 vs ~214 tokens/param
for name, tokens in runs.items():
    flops = 6 * N * tokens
    gpu_days = flops / (mfu * peak) / 86400
    print(f"{name}: {tokens / N:.0f} tokens/param, {flops:.1e} FLOPs,", end=" ")
    print(f"{gpu_days / 1024:.0f} days on 1,024 GPUs")
# > Chinchilla: 20 tokens/param, 5.9e+23 FLOPs, 17 days on 1,024 GPUs
# > Llama 3: 214 tokens/param, 6.3e+24 FLOPs, 180 days on 1,024 GPUs
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch

    # The compute arithmetic, against the named peak: H100 SXM dense BF16 is
    # 989 TFLOP/s (the 1,979 figure assumes 2:4 sparsity). At 40 % MFU,
    # Chinchilla's 20 tokens/param is ~17,200 GPU-days (a "1e15" peak gave
    # 17,014); Llama 3 70B's 15T tokens is ~214 tokens/param, 10x past it.
    assert peak == 989e12 and mfu == 0.4
    chin = 6 * N * runs["Chinchilla"] / (mfu * peak) / 86400
    assert 17_150 < chin < 17_250 and abs(chin / 1024 - 16.8) < 0.05
    assert abs(6 * N * runs["Chinchilla"] - 5.88e23) < 1e21
    llama = 6 * N * runs["Llama 3"] / (mfu * peak) / 86400
    assert abs(runs["Llama 3"] / N - 214.3) < 0.1
    assert runs["Llama 3"] / runs["Chinchilla"] > 10
    assert abs(llama / 1024 - 180) < 0.5
    # On 16,384 GPUs (the size of Meta's H100 clusters) it is under 12 days.
    assert 11 < llama / 16_384 < 12

    assert bytes_per_param == 16 and states == 1.12e12
    # One 8 x 80 GB node cannot hold the sharded state, before a single activation.
    assert states / 8 > 80e9 and states / 64 < 80e9
    assert (
        per_layer == 1_140_850_688 and abs(no_checkpoint / 1e9 - 91.27) < 0.01
    )
    # Without FlashAttention the s^2 attention term adds 5 * heads * seq / hidden per element: 5.7x more.
    heads = 64
    classic = 80 * seq * hidden * (34 + 5 * heads * seq / hidden)
    assert abs(classic / no_checkpoint - 194 / 34) < 1e-9
    # The 16 bytes/param match a real mixed-precision Adam setup, measured on a small model.
    model = torch.nn.Linear(100, 100)
    n = sum(p.numel() for p in model.parameters())
    low = [
        p.detach().to(torch.bfloat16) for p in model.parameters()
    ]  # compute copy
    model(torch.randn(2, 100)).sum().backward()
    optimizer = torch.optim.Adam(model.parameters())
    optimizer.step()
    state = sum(
        t.numel() * t.element_size()
        for s in optimizer.state.values()
        for k, t in s.items()
        if k != "step"
    )
    master = sum(p.numel() * p.element_size() for p in model.parameters())
    compute_copy = sum(t.numel() * t.element_size() for t in low)
    assert (
        master + state + compute_copy + compute_copy == 16 * n
    )  # fp32 master, m, v; bf16 weights and grads


if __name__ == "__main__":
    _check()
