"""C23 · Speculative decoding: verify the draft."""

# --8<-- [start:prompt]
import torch


def verify(draft, q, p, generator=None):
    """Speculative decoding's verification of K drafted tokens per row.

    draft (B, K) int64: tokens drafted from q (B, K, V), the draft model's
    probabilities; p (B, K+1, V): the target's at the same positions plus
    one. Accept draft i with probability min(1, p/q), left to right. At
    the first rejection emit a token from normalise(max(p - q, 0)) and
    stop; if all K are accepted, emit a bonus token from p[:, K].
    Draw every random number with `generator` (on p's device).
    Returns tokens (B, K+1) int64 padded with -1, n_accepted (B,) int64.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = verify


# --8<-- [start:wrong]
import torch


def verify(draft, q, p, generator=None):
    B, K = draft.shape
    rows = torch.arange(B, device=draft.device)
    q_pad = torch.cat([q, torch.zeros_like(q[:, :1])], dim=1)  # q_K = 0
    p_x = p[:, :K].gather(-1, draft[..., None]).squeeze(-1)
    q_x = q_pad[:, :K].gather(-1, draft[..., None]).squeeze(-1)
    u = torch.rand(B, K, generator=generator, device=p.device, dtype=p.dtype)
    n = (u < p_x / q_x).long().cumprod(dim=-1).sum(dim=-1)
    residual = p[rows, n]
    extra = torch.multinomial(residual, 1, generator=generator)
    pos = torch.arange(K + 1, device=draft.device)
    tokens = torch.cat([draft, draft[:, :1]], dim=1)
    tokens = torch.where(pos < n[:, None], tokens, -1)
    tokens[rows, n] = extra.squeeze(-1)
    return tokens, n
# --8<-- [end:wrong]


_wrong = verify
WRONG_MESSAGE = "On rejection sample from max(p - q, 0) renormalised"


# --8<-- [start:solution]
import torch


def verify(draft, q, p, generator=None):
    B, K = draft.shape
    rows = torch.arange(B, device=draft.device)
    q_pad = torch.cat([q, torch.zeros_like(q[:, :1])], dim=1)  # q_K = 0
    p_x = p[:, :K].gather(-1, draft[..., None]).squeeze(-1)
    q_x = q_pad[:, :K].gather(-1, draft[..., None]).squeeze(-1)
    u = torch.rand(B, K, generator=generator, device=p.device, dtype=p.dtype)
    n = (u < p_x / q_x).long().cumprod(dim=-1).sum(dim=-1)
    residual = (p[rows, n] - q_pad[rows, n]).clamp(min=0)
    extra = torch.multinomial(residual, 1, generator=generator)
    pos = torch.arange(K + 1, device=draft.device)
    tokens = torch.cat([draft, draft[:, :1]], dim=1)
    tokens = torch.where(pos < n[:, None], tokens, -1)
    tokens[rows, n] = extra.squeeze(-1)
    return tokens, n
# --8<-- [end:solution]


_solution = verify


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "on_fake_gpu"))


def grade(verify):
    import torch

    def fail(what, msg):
        raise AssertionError(f"C23 · {what}: {msg}")

    def tv(draws, probs):
        freq = torch.bincount(draws, minlength=probs.numel()).double() / draws.numel()
        return 0.5 * (freq - probs.cpu().double()).abs().sum().item()

    probs = torch.tensor([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    small = (torch.tensor([[0, 2]]), probs[None, :2], probs[None, :3])
    call(verify, *small)  # construction and signature, on the CPU
    on_fake_gpu(verify, *small, like="p")
    for dev in devices():
        gen = torch.Generator(device=dev).manual_seed(0)
        p_t, q_t, p_k = probs.to(dev)
        # exact cases: p = q accepts all K and adds a bonus token from p[:, K]
        B, K = 4, 3
        q = q_t.expand(B, K, 3)
        p = torch.cat([q, p_k.expand(B, 1, 3)], dim=1)
        draft = torch.tensor([[0, 1, 2]] * B, device=dev)
        tokens, n = call(verify, draft, q, p, gen)
        if tokens.dtype != torch.int64 or n.dtype != torch.int64 or tokens.shape != (B, K + 1) or n.shape != (B,):
            fail("types", f"got tokens {tuple(tokens.shape)} {tokens.dtype}, n {tuple(n.shape)} {n.dtype}; expected "
                 f"({B}, {K + 1}) and ({B},), both int64")
        if n.tolist() != [K] * B or not torch.equal(tokens[:, :K], draft):
            fail("p = q", f"every draft token must be accepted; n_accepted {n.tolist()}")
        # p(x) = 0 at the first draft token: rejected at once, the rest is -1
        p0 = p.clone()
        p0[:, 0] = torch.tensor([0.0, 0.5, 0.5], device=dev)
        tokens, n = call(verify, draft, q, p0, gen)
        if n.tolist() != [0] * B or (tokens[:, 1:] != -1).any() or (tokens[:, 0] == 0).any():
            fail("p(x) = 0", f"draft token 0 has target probability 0: it must be rejected at once and the rest padded "
                 f"with -1; got tokens {tokens[0].tolist()}, n_accepted {n[0].item()}")
        # 50,000 rows (noise in total variation is about 0.003, thresholds at 10 sigma): the first
        # emitted token follows p, whatever q drafted
        N = 50_000
        dgen = torch.Generator().manual_seed(7)
        draft1 = torch.multinomial(probs[1].expand(N, 3), 1, replacement=True, generator=dgen).to(dev)
        q1 = q_t.expand(N, 1, 3)
        p1 = torch.stack([p_t, p_k]).expand(N, 2, 3)
        tokens, n = call(verify, draft1, q1, p1, gen)
        first = tokens[:, 0].cpu()
        dist = tv(first, p_t)
        if dist > 0.03:
            fail("distribution", f"the first emitted token is {dist:.2f} (total variation) from the target "
                 "distribution, where noise is about 0.003. On rejection sample from max(p - q, 0) renormalised: "
                 "that correction keeps the output exactly the target's")
        rate = n.double().mean().item()
        want = torch.minimum(p_t, q_t).sum().item()
        if abs(rate - want) > 0.022:
            fail("acceptance", f"acceptance rate {rate:.3f}, expected sum(min(p, q)) = {want:.3f}: accept x with "
                 "probability min(1, p(x)/q(x))")
        bonus = tokens[n.cpu() == 1, 1].cpu()
        if tv(bonus, p_k) > 0.03:
            fail("bonus", f"after K accepted tokens the bonus token is {tv(bonus, p_k):.2f} (total variation) from "
                 "p[:, K]; sample it from the target's last position")
    return "C23 passes: p = q accepts all, p(x) = 0 rejects, first token within 0.03 TV of p over 50,000 rows"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C23 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)

    # mutants of the reference, one per remaining failure, each with its exact message
    def changed(change):
        def attempt(draft, q, p, generator=None):
            tokens, n = _solution(draft, q, p, generator)
            return change(draft, p, generator, tokens, n)

        return attempt

    def bonus_repeats(draft, p, g, tokens, n):  # the bonus token repeats the last draft token
        tokens[:, -1] = torch.where(n == draft.shape[1], draft[:, -1], tokens[:, -1])
        return tokens, n

    def half_skip(draft, p, g, tokens, n):  # half the rows sample p directly: right tokens, half the acceptances
        if draft.shape[1] == 1:
            skip = torch.rand(len(n), generator=g, device=p.device) < 0.5
            direct = torch.multinomial(p[:, 0], 1, generator=g).squeeze(-1)
            tokens[:, 0] = torch.where(skip, direct, tokens[:, 0])
            tokens[:, 1] = torch.where(skip, -1, tokens[:, 1])
            n = torch.where(skip, 0, n)
        return tokens, n

    for change, message in [
        (lambda d, p, g, t, n: (t, n.int()), r"^C23 · types: got tokens \(4, 4\) torch.int64, n \(4,\) torch.int32;"),
        (lambda d, p, g, t, n: (t, n.clamp(max=d.shape[1] - 1)), r"^C23 · p = q: every draft token must be accepted"),
        (lambda d, p, g, t, n: (t, n.clamp(min=1)), r"^C23 · p\(x\) = 0: draft token 0 has target probability 0"),
        (half_skip, r"^C23 · acceptance: acceptance rate 0.3\d\d, expected sum\(min\(p, q\)\) = 0.600"),
        (bonus_repeats, r"^C23 · bonus: after K accepted tokens the bonus token is 0.\d\d \(total variation\)"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(changed(change))


if __name__ == "__main__":
    _check()
