"""C34 · k-nearest-neighbour classifier."""

# --8<-- [start:prompt]
import torch
import torch.nn.functional as F


def knn_predict(train_x, train_y, test_x, k, num_classes):
    """k-nearest-neighbour classification by majority vote.

    train_x (N, D), train_y (N,) int64 in [0, num_classes), test_x (M, D).
    Euclidean distance; a tied vote goes to the smallest class id.
    Returns (M,) int64.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = knn_predict


# --8<-- [start:wrong]
import torch
import torch.nn.functional as F


def knn_predict(train_x, train_y, test_x, k, num_classes):
    d = torch.cdist(test_x, train_x)
    idx = d.topk(k, dim=1).indices
    votes = F.one_hot(train_y[idx], num_classes).sum(dim=1)
    return votes.argmax(dim=1)
# --8<-- [end:wrong]


_wrong = knn_predict
WRONG_MESSAGE = 'your neighbours are the k farthest points'


# --8<-- [start:solution]
import torch
import torch.nn.functional as F


def knn_predict(train_x, train_y, test_x, k, num_classes):
    d = torch.cdist(test_x, train_x)
    idx = d.topk(k, dim=1, largest=False).indices
    votes = F.one_hot(train_y[idx], num_classes).sum(dim=1)
    return votes.argmax(dim=1)
# --8<-- [end:solution]


_solution = knn_predict


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
_NAMES = ("devices", "call", "close", "on_fake_gpu", "count_ops")
devices, call, close, on_fake_gpu, count_ops = (_KIT[n] for n in _NAMES)


def grade(knn_predict):
    import torch

    def fail(what, msg):
        raise AssertionError(f"C34 · {what}: {msg}")

    def brute(train_x, train_y, test_x, k, c, far=False):
        out = []
        for t in test_x:
            d = ((train_x - t) ** 2).sum(1)
            near = sorted(range(len(d)), key=lambda i: (-d[i].item() if far else d[i].item()))[:k]
            counts = [sum(int(train_y[i]) == cls for i in near) for cls in range(c)]
            out.append(max(range(c), key=lambda cls: (counts[cls], -cls)))
        return torch.tensor(out, dtype=torch.int64)

    gen = torch.Generator().manual_seed(0)
    train_x = torch.randn(30, 2, generator=gen, dtype=torch.float64)
    train_y = torch.randint(0, 3, (30,), generator=gen)
    test_x = torch.randn(12, 2, generator=gen, dtype=torch.float64)
    call(knn_predict, train_x, train_y, test_x, 3, 3)  # construction and signature, on the CPU
    on_fake_gpu(knn_predict, train_x, train_y, test_x, 3, 3, like="test_x")
    for dev in devices():
        tx, ty, qx = train_x.to(dev), train_y.to(dev), test_x.to(dev)
        for k in (1, 3, 5, 30):
            got = call(knn_predict, tx, ty, qx, k, 3)
            want = brute(train_x, train_y, test_x, k, 3).to(dev)
            if k < 30 and torch.is_tensor(got) and torch.equal(got.cpu(), brute(train_x, train_y, test_x, k, 3, True)):
                fail(f"k={k}", "your neighbours are the k farthest points: topk returns the largest unless "
                     "largest=False")
            close(got, want, f"k={k}: predictions against brute force", 0, 0)
        close(call(knn_predict, tx, ty, tx[:4], 1, 3), ty[:4], "k=1 on training points predicts their own labels",
              0, 0)
        tie_x = torch.tensor([[0.0], [1.0], [3.0], [4.0]], device=dev, dtype=torch.float64)
        tie_y = torch.tensor([2, 1, 1, 2], device=dev)
        close(call(knn_predict, tie_x, tie_y, torch.tensor([[0.4]], device=dev, dtype=torch.float64), 2, 3),
              torch.tensor([1], device=dev), "a 1-1 tie between classes 2 and 1 goes to class 1", 0, 0)
        empty = call(knn_predict, tx, ty, qx[:0], 3, 3)
        close(empty, torch.zeros(0, dtype=torch.int64, device=dev), "M = 0 test points", 0, 0)
    ops = [count_ops(lambda m=m: knn_predict(train_x, train_y, torch.randn(m, 2, dtype=torch.float64), 3, 3))
           for m in (10, 100)]
    if ops[1] > ops[0] + 5:
        fail("vectorised", f"{ops[1]} tensor ops for 100 test points and {ops[0]} for 10: compute all distances "
             "at once")
    return "C34 passes: equals brute-force kNN for k = 1, 3, 5, N, ties to the smallest class, vectorised"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C34 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)

    # a mutant of the reference that predicts one test point at a time
    import torch

    def per_point(train_x, train_y, test_x, k, num_classes):
        rows = [_solution(train_x, train_y, q[None], k, num_classes) for q in test_x]
        return torch.cat(rows or [_solution(train_x, train_y, test_x, k, num_classes)])

    with pytest.raises(AssertionError, match=r"^C34 · vectorised: \d+ tensor ops for 100 test points and \d+ for 10"):
        grade(per_point)


if __name__ == "__main__":
    _check()
