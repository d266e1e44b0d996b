"""C35 · Box IoU and non-maximum suppression."""

# --8<-- [start:prompt]
import torch


def box_iou(a, b):
    """Pairwise IoU of boxes a (N, 4) and b (M, 4), as (x1, y1, x2, y2)
    with positive area. Returns (N, M)."""
    raise NotImplementedError


def nms(boxes, scores, iou_threshold):
    """Greedy non-maximum suppression, as torchvision.ops.nms: visit boxes
    by decreasing score; keep one unless its IoU with a kept box is
    > iou_threshold. Returns the kept indices (int64), by decreasing score.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = (box_iou, nms)


# --8<-- [start:wrong]
import torch


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.maximum(a[:, None, :2], b[None, :, :2])
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).prod(dim=-1)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def nms(boxes, scores, iou_threshold):
    iou = box_iou(boxes, boxes)
    removed = torch.zeros(len(boxes), dtype=torch.bool)
    keep = []
    for i in scores.argsort(descending=True).tolist():
        if not removed[i]:
            keep.append(i)
            removed |= (iou[i] > iou_threshold).cpu()
    return torch.tensor(keep, dtype=torch.int64, device=boxes.device)
# --8<-- [end:wrong]


_wrong = (box_iou, nms)
WRONG_MESSAGE = 'their overlap width and height are both negative'


# --8<-- [start:solution]
import torch


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.maximum(a[:, None, :2], b[None, :, :2])
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(dim=-1)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def nms(boxes, scores, iou_threshold):
    iou = box_iou(boxes, boxes)
    removed = torch.zeros(len(boxes), dtype=torch.bool)
    keep = []
    for i in scores.argsort(descending=True).tolist():
        if not removed[i]:
            keep.append(i)
            removed |= (iou[i] > iou_threshold).cpu()
    return torch.tensor(keep, dtype=torch.int64, device=boxes.device)
# --8<-- [end:solution]


_solution = (box_iou, nms)


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
_NAMES = ("devices", "call", "close", "on_fake_gpu", "count_ops")
devices, call, close, on_fake_gpu, count_ops = (_KIT[n] for n in _NAMES)


def grade(box_iou, nms):
    import torch
    import torchvision.ops as tv

    def fail(what, msg):
        raise AssertionError(f"C35 · {what}: {msg}")

    def boxes(n, gen):
        xy = torch.rand(n, 2, generator=gen, dtype=torch.float64) * 10
        wh = torch.rand(n, 2, generator=gen, dtype=torch.float64) * 4 + 0.5
        return torch.cat([xy, xy + wh], 1)

    gen = torch.Generator().manual_seed(0)
    a, b = boxes(6, gen), boxes(5, gen)
    call(box_iou, a, b), call(nms, a, torch.rand(6, generator=gen), 0.5)  # construction and signature
    on_fake_gpu(box_iou, a, b, like="a")
    for dev in devices():
        def t(rows, dev=dev):
            return torch.tensor(rows, dtype=torch.float64, device=dev)

        pair = call(box_iou, t([[0, 0, 2, 2]]), t([[3, 3, 4, 4]]))
        if torch.is_tensor(pair) and pair.numel() == 1 and abs(pair.item() - 0.25) < 1e-9:
            fail("disjoint boxes", "two disjoint boxes got IoU 0.25: their overlap width and height are both "
                 "negative and multiply to a positive area; clamp them at 0")
        special = t([[0, 0, 2, 2], [2, 0, 4, 2], [0.5, 0.5, 1.5, 1.5], [0, 0, 2, 2], [5, 5, 6, 7]])
        close(call(box_iou, special, special), tv.box_iou(special, special),
              "touching, nested, identical and disjoint boxes")
        ad, bd = a.to(dev), b.to(dev)
        close(call(box_iou, ad, bd), tv.box_iou(ad, bd), "box_iou against torchvision, float64")
        close(call(box_iou, ad.float(), bd.float()), tv.box_iou(ad.float(), bd.float()), "box_iou in float32")
        close(call(box_iou, ad[:0], bd), torch.zeros(0, 5, dtype=torch.float64, device=dev), "N = 0")
        for n, limit in ((30, 0.5), (30, 0.2), (1, 0.5)):
            bx = boxes(n, gen).to(dev)
            sc = torch.rand(n, generator=gen, dtype=torch.float64).to(dev)
            close(call(nms, bx, sc, limit), tv.nms(bx, sc, limit), f"nms on {n} boxes at threshold {limit}", 0, 0)
        # IoU exactly at the threshold is kept: two unit squares overlapping by a third (IoU 0.5)
        eq = t([[0, 0, 3, 1], [1, 0, 4, 1]])
        close(call(nms, eq, t([0.9, 0.8]), 0.5), torch.tensor([0, 1], device=dev),
              "IoU exactly 0.5 at threshold 0.5 (torchvision keeps it: it suppresses only IoU > threshold)", 0, 0)
        close(call(nms, ad[:0], ad[:0, 0], 0.5), torch.zeros(0, dtype=torch.int64, device=dev),
              "nms of no boxes: an empty int64 tensor", 0, 0)
    n_ops = [count_ops(lambda n=n: box_iou(boxes(n, gen), boxes(n, gen))) for n in (5, 50)]
    if n_ops[1] > n_ops[0] + 5:
        fail("vectorised", f"box_iou ran {n_ops[1]} ops for 50×50 boxes and {n_ops[0]} for 5×5: broadcast instead "
             "of looping over pairs")
    return "C35 passes: box_iou and nms equal torchvision's (disjoint, touching, nested, identical, IoU = threshold)"


def _check():
    import re

    import pytest

    assert grade(*_solution).startswith("C35 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(*_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(*_wrong)
    with pytest.raises(NotImplementedError):
        _stub[1](None, None, 0.5)

    # a mutant of the reference that loops over the rows of boxes1
    import torch

    box_iou, nms = _solution

    def row_by_row(boxes1, boxes2):
        return torch.cat([box_iou(boxes1[i : i + 1], boxes2) for i in range(len(boxes1))] or [box_iou(boxes1, boxes2)])

    with pytest.raises(AssertionError, match=r"^C35 · vectorised: box_iou ran \d+ ops for 50×50 boxes and \d+ for 5"):
        grade(row_by_row, nms)


if __name__ == "__main__":
    _check()
