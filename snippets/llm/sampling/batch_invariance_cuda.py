"""GPU lane: a bf16 matmul row at batch 1 vs 64, eager and under Inductor's batch_invariant mode."""

# --8<-- [start:demo]
import torch
import torch._inductor.config as inductor_config

torch.manual_seed(0)
w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
x = torch.randn(64, 4096, device="cuda", dtype=torch.bfloat16)
eager = (x[:1] @ w - (x @ w)[:1]).abs().max().item()
print(f"eager, batch 1 vs 64: max diff {eager:.3g}")  # often not 0

with inductor_config.patch(batch_invariant=True):  # implies deterministic
    matmul = torch.compile(lambda a: a @ w, dynamic=False)
    one, many = matmul(x[:1]), matmul(x)[:1]
print(torch.equal(one, many))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert torch.equal(one, many)  # the batch-invariant mode's promise
    torch.testing.assert_close(one, (x @ w)[:1], atol=0.5, rtol=0.02)  # and still the same matmul


if __name__ == "__main__":
    _check()
