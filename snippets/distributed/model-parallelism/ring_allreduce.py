"""Ring all-reduce, simulated: N-1 reduce-scatter then N-1 all-gather steps; each rank sends 2(N-1)/N of its data."""

# --8<-- [start:demo]
import torch


def ring_allreduce(tensors: list[torch.Tensor]):
    """Sum `tensors` (one per simulated rank) the way a ring does; return
    the results and the elements each rank sent. Every step, rank r sends
    one chunk to rank r + 1, all ranks at once."""
    n = len(tensors)
    chunks = [list(t.clone().chunk(n)) for t in tensors]
    sent = 0
    # reduce-scatter: after n - 1 steps rank r owns the full sum of chunk r + 1
    for step in range(n - 1):
        owned = [(r - step) % n for r in range(n)]  # the chunk rank r sends
        outgoing = [(r, c, chunks[r][c].clone()) for r, c in enumerate(owned)]
        for r, c, data in outgoing:
            chunks[(r + 1) % n][c] += data
        sent += outgoing[0][2].numel()
    # all-gather: pass the finished chunks around the ring
    for step in range(n - 1):
        owned = [(r + 1 - step) % n for r in range(n)]
        outgoing = [(r, c, chunks[r][c].clone()) for r, c in enumerate(owned)]
        for r, c, data in outgoing:
            chunks[(r + 1) % n][c] = data
        sent += outgoing[0][2].numel()
    return [torch.cat(c) for c in chunks], sent


size = 1200  # elements per rank
for n in (2, 4, 8):
    tensors = [torch.randn(size) for _ in range(n)]
    results, sent = ring_allreduce(tensors)
    correct = all(torch.allclose(r, sum(tensors), atol=1e-5) for r in results)
    print(f"{n} ranks: correct {correct}, each rank sent {sent} elements",
          f"= {sent / size:.3f} x its data")
# > 2 ranks: correct True, each rank sent 1200 elements = 1.000 x its data
# > 4 ranks: correct True, each rank sent 1800 elements = 1.500 x its data
# > 8 ranks: correct True, each rank sent 2100 elements = 1.750 x its data
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The traffic per rank is 2 (N - 1) / N times the data, whatever N: it tends to 2x, never grows with N.
    for n in (2, 3, 4, 5, 8, 16):
        data = [torch.arange(float(n * 6)) * (r + 1) for r in range(n)]
        results, sent = ring_allreduce(data)
        assert sent == 2 * (n - 1) * (n * 6) // n
        for result in results:
            assert torch.equal(result, sum(data))
    # Every rank ends with the same sum, bit for bit: the ring reduces each chunk in one fixed order.
    results, _ = ring_allreduce([torch.randn(64) for _ in range(4)])
    assert all(torch.equal(results[0], r) for r in results[1:])


if __name__ == "__main__":
    _check()
