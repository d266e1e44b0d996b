"""C21 · Top-p (nucleus) filtering."""

# --8<-- [start:prompt]
import torch


def filter_top_p(logits, p):
    """Nucleus filter for logits (B, V), any float dtype and device.

    Keep each row's smallest set of most probable tokens whose probability
    mass reaches p (the top token is always kept); set the rest to -inf.
    p = 1 keeps every finite logit. Returns a new tensor like `logits`.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = filter_top_p


# --8<-- [start:wrong]
import torch


def filter_top_p(logits, p):
    sorted_z, order = logits.sort(dim=-1, descending=True)
    probs = torch.softmax(sorted_z.float(), dim=-1)
    mass_before = probs.cumsum(dim=-1)
    remove_sorted = mass_before > p
    remove = remove_sorted.scatter(-1, order, remove_sorted)
    return logits.masked_fill(remove, float("-inf"))
# --8<-- [end:wrong]


_wrong = filter_top_p
WRONG_MESSAGE = "you removed every token, and softmax then gives NaN"


# --8<-- [start:solution]
import torch


def filter_top_p(logits, p):
    sorted_z, order = logits.sort(dim=-1, descending=True)
    probs = torch.softmax(sorted_z.float(), dim=-1)
    mass_before = probs.cumsum(dim=-1) - probs
    remove_sorted = mass_before >= p
    remove = remove_sorted.scatter(-1, order, remove_sorted)
    return logits.masked_fill(remove, float("-inf"))
# --8<-- [end:solution]


_solution = filter_top_p


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(filter_top_p):
    import torch

    def kept_by_brute_force(row, p):
        # the smallest prefix of the descending order whose mass reaches p
        probs = torch.softmax(row.double(), -1)
        order = probs.argsort(descending=True)
        keep = torch.zeros_like(row, dtype=torch.bool)
        mass = 0.0
        for i in order.tolist():
            keep[i] = True
            mass += probs[i].item()
            if mass >= p:
                break
        return keep

    call(filter_top_p, torch.randn(2, 11), 0.9)  # construction and signature, on the CPU
    on_fake_gpu(filter_top_p, torch.randn(2, 11), 0.9, like="logits")
    for dev in devices():
        peaked = torch.tensor([[4.0, 1.0, 0.5, 0.0, -1.0]], device=dev)  # top token 0.91
        out = call(filter_top_p, peaked, 0.5)
        kept = int(torch.isfinite(out).sum())
        if kept == 0:
            raise AssertionError(
                "C21 · peaked row: with p=0.5 and a top token at 0.91 you removed every token, and softmax then "
                "gives NaN: a token stays while the mass *before* it is below p; shift the mask by one")
        close(out, peaked.masked_fill(torch.arange(5, device=dev) > 0, float("-inf")),
              "peaked row (top token 0.91), p=0.5: only the top token stays", 0, 0)
        three = torch.tensor([[0.5, 0.3, 0.2]], device=dev).log()
        out = call(filter_top_p, three, 0.8)
        if int(torch.isfinite(out).sum()) != 2:
            raise AssertionError(
                f"C21 · probabilities [0.5, 0.3, 0.2], p=0.8: you kept {int(torch.isfinite(out).sum())} tokens, "
                "expected 2 (0.5 + 0.3 reaches 0.8)")
        gen = torch.Generator().manual_seed(0)
        logits = (torch.randn(6, 40, generator=gen) * 2).to(dev)
        logits = logits[:, torch.randperm(40, generator=gen).to(dev)]  # shuffled: the scatter back matters
        for p in (0.3, 0.75, 0.95):
            want = torch.stack([kept_by_brute_force(row, p) for row in logits.cpu()]).to(dev)
            got = call(filter_top_p, logits, p)
            close(got, logits.masked_fill(~want, float("-inf")),
                  f"filter_top_p(p={p}) on 6 shuffled rows against brute force", 0, 0)
        close(call(filter_top_p, logits, 1.0), logits, "p = 1 keeps every finite logit", 0, 0)
        bf = logits.bfloat16()
        out = call(filter_top_p, bf, 0.75)
        close(out.isfinite().sum(-1) > 0, torch.ones(6, dtype=torch.bool, device=dev),
              "bfloat16 logits: every row keeps a token", 0, 0)
        if out.dtype != torch.bfloat16:
            raise AssertionError(f"C21 · dtype: bfloat16 logits came back as {out.dtype}")
    return "C21 passes: nucleus sizes per row match brute force, the top token always stays, p=1 keeps all"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C21 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # mutants of the reference: p halved, and an upcast that is never undone
    with pytest.raises(AssertionError, match=r"^C21 · probabilities \[0.5, 0.3, 0.2\], p=0.8: you kept 1 tokens"):
        grade(lambda logits, p: _solution(logits, p / 2))
    with pytest.raises(AssertionError, match=r"^C21 · dtype: bfloat16 logits came back as torch.float32$"):
        grade(lambda logits, p: _solution(logits.float(), p))


if __name__ == "__main__":
    _check()
