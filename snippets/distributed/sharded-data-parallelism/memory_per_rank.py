"""Memory per rank for training with Adam: 16 bytes per parameter under DDP, divided by the world size under FSDP."""

# --8<-- [start:decision]
# bf16 weights, bf16 grads, fp32 master weights, Adam's m and v in fp32
BYTES_PER_PARAM = 2 + 2 + 4 + 8
GPU_GB = 80


def per_gpu_gb(params: float, gpus: int, sharded: bool) -> float:
    """Model states only: activations, buffers and fragmentation come on top."""
    return params * BYTES_PER_PARAM / (gpus if sharded else 1) / 1e9


for params, gpus in [(7e9, 8), (70e9, 8), (70e9, 64)]:
    ddp = per_gpu_gb(params, gpus, sharded=False)
    fsdp = per_gpu_gb(params, gpus, sharded=True)
    print(f"{params / 1e9:.0f}B on {gpus} GPUs: DDP {ddp:.0f} GB,",
          f"FSDP {fsdp:.1f} GB per GPU (of {GPU_GB})")
# > 7B on 8 GPUs: DDP 112 GB, FSDP 14.0 GB per GPU (of 80)
# > 70B on 8 GPUs: DDP 1120 GB, FSDP 140.0 GB per GPU (of 80)
# > 70B on 64 GPUs: DDP 1120 GB, FSDP 17.5 GB per GPU (of 80)
# --8<-- [end:decision]

# --8<-- [start:zero_stages]
# bytes per parameter: bf16, bf16, fp32 master + m + v
WEIGHTS, GRADS, OPTIMIZER = 2, 2, 12


def bytes_per_param(stage: int, ranks: int) -> float:
    """Stage 1 shards the optimizer state, 2 the grads too, 3 the weights."""
    optimizer = OPTIMIZER / ranks if stage >= 1 else OPTIMIZER
    grads = GRADS / ranks if stage >= 2 else GRADS
    weights = WEIGHTS / ranks if stage >= 3 else WEIGHTS
    return weights + grads + optimizer


names = ["DDP (no sharding)", "ZeRO-1", "ZeRO-2", "ZeRO-3 = FSDP full shard"]
for stage, name in enumerate(names):
    per_rank = bytes_per_param(stage, ranks=8)
    print(f"{name:25} {per_rank:5.2f} bytes per parameter per rank, 8 ranks")
# > DDP (no sharding)         16.00 bytes per parameter per rank, 8 ranks
# > ZeRO-1                     5.50 bytes per parameter per rank, 8 ranks
# > ZeRO-2                     3.75 bytes per parameter per rank, 8 ranks
# > ZeRO-3 = FSDP full shard   2.00 bytes per parameter per rank, 8 ranks
# --8<-- [end:zero_stages]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch
    from torch import nn

    def nbytes(tensors) -> int:
        return sum(t.numel() * t.element_size() for t in tensors)

    def adam_state_bytes(optimizer) -> int:  # m and v; the scalar `step` counters are negligible
        return sum(nbytes([s["exp_avg"], s["exp_avg_sq"]]) for s in optimizer.state.values())

    # Measured, not assumed: plain fp32 training with AdamW also costs 4 + 4 + 8 = 16 bytes per parameter.
    model = nn.Sequential(nn.Linear(64, 64), nn.Linear(64, 8))
    numel = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters())
    model(torch.randn(4, 64)).sum().backward()
    optimizer.step()
    params, grads = list(model.parameters()), [p.grad for p in model.parameters()]
    assert nbytes(params) + nbytes(grads) + adam_state_bytes(optimizer) == 16 * numel

    # Mixed precision: bf16 weights and grads (2 + 2) plus an fp32 master copy (4) that AdamW updates (8).
    low = nn.Sequential(nn.Linear(64, 64), nn.Linear(64, 8)).to(torch.bfloat16)
    master = [p.detach().float().requires_grad_() for p in low.parameters()]
    low(torch.randn(4, 64, dtype=torch.bfloat16)).sum().backward()
    for m, p in zip(master, low.parameters(), strict=True):
        m.grad = p.grad.float()  # the fp32 grad is a transient in the step, not a stored state
    master_optimizer = torch.optim.AdamW(master)
    master_optimizer.step()
    stored = nbytes(low.parameters()) + nbytes(p.grad for p in low.parameters())
    stored += nbytes(master) + adam_state_bytes(master_optimizer)
    assert stored == BYTES_PER_PARAM * numel == 16 * numel

    # The printed figures, exactly.
    assert per_gpu_gb(7e9, 8, sharded=False) == 112 and per_gpu_gb(70e9, 8, sharded=True) == 140
    assert per_gpu_gb(70e9, 64, sharded=True) == 17.5 < GPU_GB < per_gpu_gb(70e9, 8, sharded=True)
    assert [bytes_per_param(stage, 8) for stage in range(4)] == [16, 5.5, 3.75, 2]
    assert bytes_per_param(3, 8) == per_gpu_gb(1e9, 8, sharded=True)  # stage 3 is the FSDP line of the table
    # With one rank every stage is plain DDP; the more ranks, the closer ZeRO-1 gets to its floor of 4 bytes.
    assert all(bytes_per_param(stage, 1) == 16 for stage in range(4))
    assert 4 < bytes_per_param(1, 1024) < 4.02


if __name__ == "__main__":
    _check()
