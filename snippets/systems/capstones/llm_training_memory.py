"""System design #1 arithmetic: memory and compute for training a 70B model on 8-GPU nodes."""

# --8<-- [start:demo]
N = 70e9  # parameters

# Mixed precision with Adam: bf16 weights + bf16 grads + fp32 master weights, Adam m and v.
bytes_per_param = 2 + 2 + (4 + 4 + 4)
states = N * bytes_per_param
print(bytes_per_param, "bytes/param ->", states / 1e12, "TB of model state")
# > 16 bytes/param -> 1.12 TB of model state
for gpus in (8, 64, 512):  # FSDP / ZeRO-3 shards all of it evenly
    print(f"{gpus} GPUs: {states / gpus / 1e9:.1f} GB per GPU")
# > 8 GPUs: 140.0 GB per GPU
# > 64 GPUs: 17.5 GB per GPU
# > 512 GPUs: 2.2 GB per GPU

# Activations (bf16, FlashAttention): about 34 * seq * batch * hidden bytes per layer (Korthikanti et al.).
layers, hidden, seq, micro_batch = 80, 8192, 4096, 1  # Llama-2-70B shape
per_layer = 34 * seq * micro_batch * hidden
no_checkpoint = layers * per_layer
# layer inputs + one layer live
full_checkpoint = layers * 2 * seq * micro_batch * hidden + per_layer
# TP=8 with sequence parallelism divides both by 8.
print(
    f"activations per sequence: {no_checkpoint / 1e9:.1f} GB, fully checkpointed {full_checkpoint / 1e9:.1f} GB"
)
# > activations per sequence: 91.3 GB, fully checkpointed 6.5 GB

# Compute: about 6 * N * D FLOPs; Chinchilla's 20 tokens per parameter; 40 % MFU of ~1e15 FLOP/s.
tokens = 20 * N
flops = 6 * N * tokens
gpu_days = flops / (0.4 * 1e15) / 86400
print(
    f"{flops:.2e} FLOPs = {gpu_days:,.0f} GPU-days = {gpu_days / 1024:.1f} days on 1024 GPUs"
)
# > 5.88e+23 FLOPs = 17,014 GPU-days = 16.6 days on 1024 GPUs
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch

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
