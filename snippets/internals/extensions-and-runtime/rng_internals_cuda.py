"""The CUDA generator is Philox: (seed, offset) state, and each random kernel advances the offset."""

# --8<-- [start:demo]
import torch

print(torch.cuda.get_rng_state().numel())  # seed and offset, 8 bytes each
# > 16
torch.cuda.manual_seed(0)
start = torch.cuda._get_rng_state_offset()
a = torch.rand(8, device="cuda")
print(torch.cuda._get_rng_state_offset() - start)  # in multiples of 4
# > 4
torch.cuda.manual_seed(0)
halves = torch.cat([torch.rand(4, device="cuda"), torch.rand(4, device="cuda")])
print(torch.equal(a, halves))  # the second call starts at a new offset
# > False
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    torch.cuda.manual_seed(0)
    assert torch.equal(torch.rand(8, device="cuda"), a)  # same seed, same launch: same numbers
    assert torch.cuda.get_rng_state().dtype == torch.uint8


if __name__ == "__main__":
    _check()
