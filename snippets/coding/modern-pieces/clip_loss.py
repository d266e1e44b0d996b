"""C39 · InfoNCE / CLIP contrastive loss."""

# --8<-- [start:prompt]
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    """CLIP's symmetric contrastive loss for B matched pairs.

    img, txt (B, d): embeddings, row i of each is a pair. L2-normalise
    both; logits = exp(logit_scale).clamp(max=100) * img @ txt.T; the
    loss is the mean of the cross-entropies of the rows (image to text)
    and of the columns (text to image), each against arange(B).
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = clip_loss


# --8<-- [start:wrong]
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    img = F.normalize(img, dim=-1)
    txt = F.normalize(txt, dim=-1)
    logits = logit_scale.exp().clamp(max=100) * img @ txt.T
    target = torch.arange(len(img), device=img.device)
    return F.cross_entropy(logits, target)
# --8<-- [end:wrong]


_wrong = clip_loss
WRONG_MESSAGE = 'average the image-to-text (rows) and text-to-image (logits.T) losses'


# --8<-- [start:solution]
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    img = F.normalize(img, dim=-1)
    txt = F.normalize(txt, dim=-1)
    logits = logit_scale.exp().clamp(max=100) * img @ txt.T
    target = torch.arange(len(img), device=img.device)
    return (F.cross_entropy(logits, target)
            + F.cross_entropy(logits.T, target)) / 2
# --8<-- [end:solution]


_solution = clip_loss


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(clip_loss):
    import torch
    import torch.nn.functional as F

    def fail(what, msg):
        raise AssertionError(f"C39 · {what}: {msg}")

    def reference(img, txt, s, both=True):
        img, txt = img / img.norm(dim=-1, keepdim=True), txt / txt.norm(dim=-1, keepdim=True)
        logits = s.exp().clamp(max=100) * img @ txt.T
        t = torch.arange(len(img), device=img.device)
        rows = F.cross_entropy(logits, t)
        return (rows + F.cross_entropy(logits.T, t)) / 2 if both else rows

    gen = torch.Generator().manual_seed(0)
    img = torch.randn(6, 4, generator=gen, dtype=torch.float64)
    txt = img + 0.5 * torch.randn(6, 4, generator=gen, dtype=torch.float64)
    scale = torch.tensor(2.0, dtype=torch.float64)
    call(clip_loss, img, txt, scale)  # construction and signature, on the CPU
    on_fake_gpu(clip_loss, img, txt, scale, like="img")
    for dev in devices():
        i, t, s = (v.to(dev).requires_grad_() for v in (img, txt, scale))
        got = call(clip_loss, i, t, s)
        want = reference(i, t, s)
        if abs(got.item() - reference(i, t, s, both=False).item()) < 1e-9 and abs(got.item() - want.item()) > 1e-6:
            fail("direction", "your loss is the image-to-text cross-entropy alone: average the image-to-text (rows) "
                 "and text-to-image (logits.T) losses")
        i3 = (img * 3).to(dev)
        if abs(call(clip_loss, i3, txt.to(dev), scale.to(dev)).item() - want.item()) > 1e-9:
            fail("normalise", "your loss changed when the image embeddings were scaled by 3: CLIP compares cosine "
                 "similarities, so L2-normalise both sides")
        close(got, want, "the loss against the reference, float64")
        g = torch.autograd.grad(got, (i, t, s))
        r = torch.autograd.grad(want, (i, t, s))
        for name, a, b in zip(("img", "txt", "logit_scale"), g, r, strict=True):
            close(a, b, f"the gradient for {name}")
        big = torch.tensor(200.0, dtype=torch.float64, device=dev).log().requires_grad_()
        loss = call(clip_loss, img.to(dev), txt.to(dev), big)
        close(loss.detach(), reference(img.to(dev), txt.to(dev), big).detach(), "exp(logit_scale) = 200 clamps to 100")
        (gs,) = torch.autograd.grad(loss, big)
        if gs.item() != 0:
            fail("clamp", "above the clamp the loss must not depend on logit_scale (its gradient is 0)")
        one = call(clip_loss, img[:1].to(dev), txt[:1].to(dev), scale.to(dev))
        close(one.detach(), torch.zeros((), dtype=torch.float64, device=dev), "B = 1: the only pair is matched, loss 0")
        f32 = call(clip_loss, img.float().to(dev), txt.float().to(dev), scale.float().to(dev))
        close(f32.detach(), reference(img, txt, scale).float().to(dev), "float32 inputs")
    return "C39 passes: the symmetric loss and its gradients, cosine similarity, the clamp, B = 1"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C39 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)

    # mutants of the reference: no L2 normalisation, and a clamp that lets the gradient through
    import torch
    import torch.nn.functional as F

    def loss_with(normalise, clamp):
        def attempt(img, txt, logit_scale):
            if normalise:
                img, txt = F.normalize(img, dim=-1), F.normalize(txt, dim=-1)
            logits = clamp(logit_scale.exp()) * img @ txt.T
            target = torch.arange(len(img), device=img.device)
            return (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2

        return attempt

    unnormalised = loss_with(False, lambda scale: scale.clamp(max=100))
    straight_through = loss_with(True, lambda scale: scale - (scale - 100).clamp(min=0).detach())  # gradient kept

    with pytest.raises(AssertionError, match=r"^C39 · normalise: your loss changed when the image embeddings were"):
        grade(unnormalised)
    with pytest.raises(AssertionError, match=r"^C39 · clamp: above the clamp the loss must not depend on logit_sca"):
        grade(straight_through)


if __name__ == "__main__":
    _check()
