"""C33 · k-means."""

# --8<-- [start:prompt]
import torch


def kmeans(X, init, iters):
    """Lloyd's algorithm: `iters` (>= 1) rounds of assign, then update.

    X (N, D) float, init (K, D) the starting centroids. Each point goes to
    its nearest centroid (ties to the lowest index); a centroid becomes
    the mean of its points, and keeps its position if it has none.
    Returns (centroids (K, D), assign (N,) int64 from the last round).
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = kmeans


# --8<-- [start:wrong]
import torch


def kmeans(X, init, iters):
    C = init.clone()
    for _ in range(iters):
        assign = torch.cdist(X, C).argmin(dim=1)
        C = torch.stack([X[assign == j].mean(0) for j in range(len(C))])
    return C, assign
# --8<-- [end:wrong]


_wrong = kmeans
WRONG_MESSAGE = 'the mean of zero points is 0/0; keep its previous position'


# --8<-- [start:solution]
import torch


def kmeans(X, init, iters):
    C = init.clone()
    for _ in range(iters):
        assign = torch.cdist(X, C).argmin(dim=1)
        sums = torch.zeros_like(C).index_add_(0, assign, X)
        counts = torch.bincount(assign, minlength=len(C)).to(X.dtype)
        means = sums / counts.clamp(min=1)[:, None]
        C = torch.where(counts[:, None] > 0, means, C)
    return C, assign
# --8<-- [end:solution]


_solution = kmeans


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
_NAMES = ("devices", "call", "close", "on_fake_gpu", "count_ops")
devices, call, close, on_fake_gpu, count_ops = (_KIT[n] for n in _NAMES)


def grade(kmeans):
    import torch

    def fail(what, msg):
        raise AssertionError(f"C33 · {what}: {msg}")

    def reference(X, C, iters):
        for _ in range(iters):
            assign = ((X[:, None] - C[None]) ** 2).sum(-1).argmin(1)
            new = C.clone()
            for j in range(len(C)):
                if (assign == j).any():
                    new[j] = X[assign == j].mean(0)
            C = new
        return C, assign

    gen = torch.Generator().manual_seed(0)
    centres = torch.tensor([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]], dtype=torch.float64)
    X = torch.cat([c + torch.randn(30, 2, generator=gen, dtype=torch.float64) for c in centres])
    init = torch.tensor([[1.0, 1.0], [4.0, 4.0], [50.0, -50.0]], dtype=torch.float64)  # the last one stays empty
    call(kmeans, X, init, 1)  # construction and signature, on the CPU
    on_fake_gpu(kmeans, X, init, 2, like="X")
    for dev in devices():
        Xd, init_d = X.to(dev), init.to(dev)
        for iters in (1, 5):
            C, assign = call(kmeans, Xd, init_d, iters)
            if torch.is_tensor(C) and C.shape == init.shape and torch.isnan(C).any():
                j = int(torch.isnan(C).any(1).nonzero()[0])
                fail("empty cluster", f"centroid {j} is NaN after iteration 1: no point chose it, and the mean of "
                     "zero points is 0/0; keep its previous position")
            rc, ra = reference(Xd, init_d, iters)
            close(C, rc, f"centroids after {iters} iterations (float64, on {dev})")
            close(assign, ra, f"assignments after {iters} iterations", 0, 0)
        C, assign = call(kmeans, Xd[:3], Xd[:3].clone(), 2)
        close(assign, torch.arange(3, device=dev), "N = K with the points as centroids", 0, 0)
        C, _ = call(kmeans, Xd, Xd[:1].clone(), 3)
        close(C, Xd.mean(0, keepdim=True), "K = 1: the centroid is the mean of all points")
        f32 = call(kmeans, Xd.float(), init_d.float(), 3)[0]
        close(f32, reference(Xd, init_d, 3)[0].float(), "float32 input: centroids", 1e-4, 1e-4)
    small, large = (torch.randn(n, 2, generator=gen) for n in (100, 1000))
    ops = [count_ops(lambda x=x: kmeans(x, init.float(), 1)) for x in (small, large)]
    if ops[1] > ops[0] + 5:
        fail("vectorised", f"{ops[1]} tensor ops for 1,000 points and {ops[0]} for 100: compute all the distances "
             "at once, without a loop over points")
    return f"C33 passes: Lloyd's algorithm with an empty cluster kept, vectorised ({ops[0]} ops at N=100 and N=1000)"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C33 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)

    # a mutant of the reference that finds each point's nearest centroid in a Python loop
    import torch

    def per_point(X, init, iters):
        C = init.clone()
        for _ in range(iters):
            assign = torch.stack([torch.cdist(x[None], C)[0].argmin() for x in X])
            sums = torch.zeros_like(C).index_add_(0, assign, X)
            counts = torch.bincount(assign, minlength=len(C)).to(X.dtype)
            C = torch.where(counts[:, None] > 0, sums / counts.clamp(min=1)[:, None], C)
        return C, assign

    with pytest.raises(AssertionError, match=r"^C33 · vectorised: \d+ tensor ops for 1,000 points and \d+ for 100: "):
        grade(per_point)


if __name__ == "__main__":
    _check()
