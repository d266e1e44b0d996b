"""Why two runs differ: float addition is not associative, so a different reduction order changes bits."""

# --8<-- [start:demo]
import torch

a, b, c = torch.tensor(1e8), torch.tensor(1.0), torch.tensor(-1e8)  # float32
# same numbers, another order: a split-K matmul or an atomicAdd does this
print((a + b) + c, (a + c) + b)
# > tensor(0.) tensor(1.)

x = torch.randn(100_000)
# another reduction order
chunked = torch.stack([chunk.sum() for chunk in x.split(1000)]).sum()
# compare runs with tolerances, not ==
print(torch.allclose(x.sum(), chunked, rtol=1e-4, atol=1e-3))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # float32 has 24 significant bits: 1e8 + 1 rounds back to 1e8.
    assert (a + b).item() == 1e8 and ((a + c) + b).item() == 1.0
    # Both float32 orders are close to the float64 answer.
    exact = x.double().sum()
    assert (
        abs(x.sum().double() - exact) < 1e-2
        and abs(chunked.double() - exact) < 1e-2
    )


if __name__ == "__main__":
    _check()
