"""C40 · DPO loss from token log-probabilities."""

# --8<-- [start:prompt]
import torch
import torch.nn.functional as F


def dpo_loss(pol_c, pol_r, ref_c, ref_r, ids_c, ids_r, mask_c, mask_r,
             beta=0.1):
    """DPO from a policy's and a frozen reference's logits (B, T, V).

    c: the chosen response, r: the rejected one. ids (B, T) int64 token
    ids; mask (B, T) bool, True on the response's tokens. A sequence's
    log-prob is the sum over response tokens t of log_softmax(logits at
    t - 1)[id_t], computed in float32. margins = beta * ((pi_c - ref_c)
    - (pi_r - ref_r)); loss = -mean(log sigmoid(margins)). No gradient
    may reach the reference logits. Returns (loss, margins (B,)).
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = dpo_loss


# --8<-- [start:wrong]
import torch
import torch.nn.functional as F


def sequence_logp(logits, ids, mask):
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    tok = logp.gather(-1, ids[:, 1:, None]).squeeze(-1)
    return (tok * mask[:, 1:]).sum(dim=-1)


def dpo_loss(pol_c, pol_r, ref_c, ref_r, ids_c, ids_r, mask_c, mask_r,
             beta=0.1):
    with torch.no_grad():
        ref = (sequence_logp(ref_c, ids_c, mask_c)
               - sequence_logp(ref_r, ids_r, mask_r))
    pol = (sequence_logp(pol_c, ids_c, mask_c)
           - sequence_logp(pol_r, ids_r, mask_r))
    margins = beta * (pol - ref)
    return -torch.sigmoid(margins).log().mean(), margins
# --8<-- [end:wrong]


_wrong = dpo_loss
_wrong_logp = sequence_logp  # the solution below rebinds the name its dpo_loss looks up
WRONG_MESSAGE = 'use F.logsigmoid'


# --8<-- [start:solution]
import torch
import torch.nn.functional as F


def sequence_logp(logits, ids, mask):
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    tok = logp.gather(-1, ids[:, 1:, None]).squeeze(-1)
    return (tok * mask[:, 1:]).sum(dim=-1)


def dpo_loss(pol_c, pol_r, ref_c, ref_r, ids_c, ids_r, mask_c, mask_r,
             beta=0.1):
    with torch.no_grad():
        ref = (sequence_logp(ref_c, ids_c, mask_c)
               - sequence_logp(ref_r, ids_r, mask_r))
    pol = (sequence_logp(pol_c, ids_c, mask_c)
           - sequence_logp(pol_r, ids_r, mask_r))
    margins = beta * (pol - ref)
    return -F.logsigmoid(margins).mean(), margins
# --8<-- [end:solution]


_solution = dpo_loss


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(dpo_loss):
    import torch
    import torch.nn.functional as F

    def fail(what, msg):
        raise AssertionError(f"C40 · {what}: {msg}")

    def seq(logits, ids, mask, shift=True):
        lp = torch.log_softmax(logits.double(), -1)
        if shift:
            return (lp[:, :-1].gather(-1, ids[:, 1:, None]).squeeze(-1) * mask[:, 1:]).sum(-1)
        return (lp.gather(-1, ids[..., None]).squeeze(-1) * mask).sum(-1)

    def reference(pc, pr, rc, rr, ic, ir, mc, mr, beta, shift=True):
        chosen = seq(pc, ic, mc, shift) - seq(rc, ic, mc, shift)
        m = beta * (chosen - (seq(pr, ir, mr, shift) - seq(rr, ir, mr, shift)))
        return -F.logsigmoid(m).mean(), m

    gen = torch.Generator().manual_seed(0)
    B, T, V = 3, 7, 11
    logits = [torch.randn(B, T, V, generator=gen, dtype=torch.float64) for _ in range(4)]
    ids = [torch.randint(0, V, (B, T), generator=gen) for _ in range(2)]
    # prompt of 2 tokens, then a response; rows end in padding of different lengths
    mask = torch.zeros(B, T, dtype=torch.bool)
    mask[:, 2:] = True
    mask[1, 5:] = False
    mask[2, 6:] = False
    masks = [mask, mask.roll(1, 0)]
    args = (*logits, *ids, *masks)
    call(dpo_loss, *args)  # construction and signature, on the CPU
    on_fake_gpu(dpo_loss, *args, like="pol_c")
    for dev in devices():
        a = [t.to(dev) for t in args]
        for i in range(4):
            a[i] = a[i].clone().requires_grad_()
        loss, margins = call(dpo_loss, *a, beta=0.1)
        want_loss, want_m = reference(*a, 0.1)
        unshifted = reference(*a, 0.1, shift=False)[1]
        if torch.is_tensor(margins) and margins.shape == want_m.shape and torch.allclose(
                margins.double(), unshifted, atol=1e-5) and not torch.allclose(margins.double(), want_m, atol=1e-5):
            fail("shift", "the log-prob of token t uses the logits at t; a causal LM's logits at t - 1 predict token "
                 "t: use logits[:, :-1] with ids[:, 1:]")
        close(margins.double(), want_m.detach(), "margins (float32 log-probs) against the reference", 1e-5, 1e-5)
        close(loss.double(), want_loss.detach(), "the loss against the reference", 1e-5, 1e-5)
        if not loss.requires_grad:
            fail("policy", "the loss does not require grad: no gradient can reach the policy logits (no_grad, "
                 "detach or .item() on the policy side?)")
        loss.backward()
        if a[2].grad is not None or a[3].grad is not None:
            fail("reference", "a gradient reached the reference logits: compute the reference log-probs under "
                 "torch.no_grad()")
        if a[0].grad is None or a[1].grad is None:
            fail("policy", "no gradient reached the policy logits")
        plain = [t.detach() for t in a]
        for order in (plain, [plain[i] for i in (1, 0, 3, 2, 5, 4, 7, 6)]):  # both signs of the margins
            big, big_m = call(dpo_loss, *order, beta=1000.0)
            if not torch.isfinite(big):
                worst = float(big_m.min())
                fail("extreme margins", f"the loss is inf at a margin of {worst:.0f}: log(sigmoid(m)) underflows to "
                     "log 0; use F.logsigmoid")
            close(big.double(), reference(*order, 1000.0)[0], "beta = 1000 (margins in the thousands)", 1e-4, 1e-5)
        bf = [t.detach().bfloat16() if i < 4 else t for i, t in enumerate(a)]
        loss_bf, m_bf = call(dpo_loss, *bf)
        if m_bf.dtype != torch.float32:
            fail("dtype", f"bfloat16 logits gave {m_bf.dtype} margins: compute log_softmax in float32")
        close(m_bf.double(), reference(*bf, 0.1)[1], "bfloat16 logits, float32 log-probs", 1e-4, 1e-4)
    return "C40 passes: shifted, masked log-probs, a finite loss at huge margins, no gradient into the reference"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C40 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt's log-probs are right: its bug is log(sigmoid)
    import contextlib

    import torch

    logits, ids = torch.randn(2, 5, 7), torch.randint(0, 7, (2, 5))
    mask = torch.ones(2, 5, dtype=torch.bool)
    assert torch.equal(_wrong_logp(logits, ids, mask), sequence_logp(logits, ids, mask))

    # mutants of the reference, one per remaining failure, each with its exact message
    def dpo_with(shift=True, ref_no_grad=True, policy=lambda c, r: (c, r), upcast=True):
        def logp(logits, ids, mask):
            logits = logits.float() if upcast else logits
            if shift:
                logits, ids, mask = logits[:, :-1], ids[:, 1:], mask[:, 1:]
            return (torch.log_softmax(logits, -1).gather(-1, ids[..., None]).squeeze(-1) * mask).sum(-1)

        def attempt(pol_c, pol_r, ref_c, ref_r, ids_c, ids_r, mask_c, mask_r, beta=0.1):
            with torch.no_grad() if ref_no_grad else contextlib.nullcontext():
                ref = logp(ref_c, ids_c, mask_c) - logp(ref_r, ids_r, mask_r)
            pol_c, pol_r = policy(pol_c, pol_r)
            margins = beta * (logp(pol_c, ids_c, mask_c) - logp(pol_r, ids_r, mask_r) - ref)
            return -torch.nn.functional.logsigmoid(margins).mean(), margins

        return attempt

    for attempt, message in [
        (dpo_with(shift=False), r"^C40 · shift: the log-prob of token t uses the logits at t; a causal LM's logits"),
        (dpo_with(ref_no_grad=False), r"^C40 · reference: a gradient reached the reference logits: compute the ref"),
        (dpo_with(policy=lambda c, r: (c.detach(), r.detach())), r"^C40 · policy: the loss does not require grad"),
        (dpo_with(policy=lambda c, r: (c, r.detach())), r"^C40 · policy: no gradient reached the policy logits$"),
        (dpo_with(upcast=False), r"^C40 · dtype: bfloat16 logits gave torch.bfloat16 margins: compute log_softmax in"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
