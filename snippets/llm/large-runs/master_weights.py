"""Why master weights stay fp32: small updates vanish in bf16; stochastic rounding keeps them on
average; AdamW state dtypes."""

# --8<-- [start:demo]
import torch

steps, update = 100, -1e-3  # each step is under half of bf16's spacing
fp32 = torch.ones(1000)
bf16 = torch.ones(1000, dtype=torch.bfloat16)
rounded = torch.ones(1000, dtype=torch.bfloat16)
gen = torch.Generator().manual_seed(0)


def stochastic_round(x):  # fp32 -> bf16, rounding up with p = remainder
    bits = x.view(torch.int32)
    noise = torch.randint(0, 1 << 16, x.shape, generator=gen,
                          dtype=torch.int32)  # random low 16 bits
    kept = (bits + noise) & -65536  # then cut them off
    return kept.view(torch.float32).to(torch.bfloat16)


for _ in range(steps):
    fp32 += update
    bf16 += update  # 1.0 - 0.001 rounds back to 1.0
    rounded = stochastic_round(rounded.float() + update)
print(f"{1 - fp32.mean():.4f} {1 - bf16.float().mean():.4f} "
      f"{1 - rounded.float().mean():.4f}")
# > 0.1000 0.0000 0.1004
# --8<-- [end:demo]

# --8<-- [start:state]
import torch

w = torch.nn.Parameter(torch.randn(4, 4, dtype=torch.bfloat16))
optimizer = torch.optim.AdamW([w])
w.sum().backward()
optimizer.step()
for name, value in optimizer.state[w].items():
    print(name, value.dtype)
# > step torch.float32
# > exp_avg torch.bfloat16
# > exp_avg_sq torch.bfloat16
# --8<-- [end:state]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # bf16 has 8 significand bits: the spacing just below 1.0 is 2**-8, so a 1e-3 step rounds away.
    assert torch.tensor(1 - 2**-8).bfloat16().item() == 1 - 2**-8  # the next value below 1.0
    assert torch.tensor(1 - 0.0019).bfloat16().item() == 1.0  # under half the spacing: rounds back to 1
    assert abs(1 - fp32.mean().item() - 0.1) < 1e-4
    assert torch.equal(bf16, torch.ones(1000, dtype=torch.bfloat16))  # pure bf16 stalled
    assert abs(1 - rounded.float().mean().item() - 0.1) < 0.005  # stochastic rounding: right on average
    assert optimizer.state[w]["exp_avg"].dtype == torch.bfloat16
    assert optimizer.state[w]["exp_avg_sq"].dtype == torch.bfloat16


if __name__ == "__main__":
    _check()
