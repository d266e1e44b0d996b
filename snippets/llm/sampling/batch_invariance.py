"""Why batch composition changes a request's numbers: float addition order, and per-request generators."""

# --8<-- [start:float]
import torch

a, b = torch.tensor(1e8), torch.tensor(1.0)
print(((a + b) - a).item(), ((a - a) + b).item())  # float32, same numbers
# > 0.0 1.0

torch.manual_seed(0)
w = torch.randn(256, 256)
x = torch.randn(8, 256)
alone = torch.nn.functional.linear(x[:1], w)  # the request at batch 1
batched = torch.nn.functional.linear(x, w)[:1]  # the same row at batch 8
rerun = torch.nn.functional.linear(x, w)[:1]
print(torch.equal(batched, rerun), torch.allclose(alone, batched, atol=1e-4))
# > True True
# --8<-- [end:float]

# --8<-- [start:generators]
import torch

probs = torch.tensor([0.25, 0.25, 0.25, 0.25])


def draws(row, per_request=False, steps=20):
    """The tokens request A draws when it sits in `row` of a batch of 2."""
    shared = torch.Generator().manual_seed(0)
    own = {"A": torch.Generator().manual_seed(7),
           "B": torch.Generator().manual_seed(8)}
    order = ["A", "B"] if row == 0 else ["B", "A"]
    mine = []
    for _ in range(steps):
        for request in order:  # the server samples row by row
            gen = own[request] if per_request else shared
            token = torch.multinomial(probs, 1, generator=gen).item()
            if request == "A":
                mine.append(token)
    return mine


# one generator for the batch vs one per request
print(draws(0) == draws(1), draws(0, True) == draws(1, True))
# > False True
# --8<-- [end:generators]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import torch._inductor.config as inductor_config

    assert ((a + b) - a).item() == 0.0 and ((a - a) + b).item() == 1.0
    # Same shapes, same kernel: bitwise reruns. Batch 1 vs batch 8: close; bitwise equality is NOT asserted,
    # because whether the kernel changes its reduction order with the batch is machine-dependent.
    assert torch.equal(batched, rerun)
    torch.testing.assert_close(alone, batched, atol=1e-4, rtol=1e-4)
    # Deterministic mode doesn't promise batch invariance; it only promises run-to-run equality.
    torch.use_deterministic_algorithms(True)
    try:
        again = torch.nn.functional.linear(x, w)[:1]
        assert torch.equal(again, batched)
    finally:
        torch.use_deterministic_algorithms(False)
    # A shared generator: the request's draws depend on its row; per-request generators fix that.
    assert draws(0) != draws(1)
    assert draws(0, per_request=True) == draws(1, per_request=True)
    # 2.14.1 ships the inductor batch-invariant switch, off by default.
    assert inductor_config.batch_invariant is False


if __name__ == "__main__":
    _check()
