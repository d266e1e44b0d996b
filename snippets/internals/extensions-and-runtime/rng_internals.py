"""The CPU generator is mt19937; splitting a randn call changes the numbers; compiled dropout draws its own."""

# --8<-- [start:cpu]
import torch

print(torch.get_rng_state().dtype, torch.get_rng_state().numel())
# > torch.uint8 5056


def same_when_split(draw, n):
    torch.manual_seed(0)
    whole = draw(n)
    torch.manual_seed(0)
    halves = torch.cat([draw(n // 2), draw(n - n // 2)])
    return torch.equal(whole, halves)


print([same_when_split(torch.rand, n) for n in (8, 32, 64)])
# > [True, True, True]
print([same_when_split(torch.randn, n) for n in (16, 24, 34, 100)])
# > [False, False, False, False]
# --8<-- [end:cpu]

# --8<-- [start:compiled]
import torch
import torch.nn.functional as F


def drop(x):
    return F.dropout(x, p=0.5, training=True)


x = torch.ones(64)
torch.manual_seed(0)
eager = drop(x)
compiled = torch.compile(drop)
torch.manual_seed(0)
print(torch.equal(compiled(x), eager))  # Inductor generates its own RNG
# > False
# --8<-- [end:compiled]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The compiled run is reproducible under a seed.
    torch.manual_seed(0)
    again = compiled(x)
    torch.manual_seed(0)
    assert torch.equal(compiled(x), again)
    # fallback_random=True makes Inductor call the eager RNG: bitwise parity.
    torch._dynamo.reset()
    with torch._inductor.config.patch(fallback_random=True):
        parity = torch.compile(drop)
        torch.manual_seed(0)
        assert torch.equal(parity(x), eager)
    # small randn calls (< 16 elements) take the scalar path and split cleanly
    assert same_when_split(torch.randn, 8)


if __name__ == "__main__":
    _check()
