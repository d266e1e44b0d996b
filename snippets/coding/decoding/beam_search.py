"""C22 · Beam search."""

# --8<-- [start:prompt]
import torch


def beam_search(step_fn, bos, eos, beam_width, max_len):
    """Return up to beam_width (tokens, score) pairs, best score first.

    step_fn(prefixes) takes (N, t) int64 prefixes and returns (N, V)
    next-token log-probs: call it once per step on all live beams.
    tokens: a list of ints starting with bos; score: the sum of the
    log-probs of the tokens after bos. A hypothesis that emits eos is
    finished. Stop when beam_width are finished or after max_len new
    tokens; unfinished beams then count as finished.
    """
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = beam_search


# --8<-- [start:wrong]
import torch


def beam_search(step_fn, bos, eos, beam_width, max_len):
    beams, scores = [[bos]] * beam_width, [0.0] * beam_width
    finished = []
    for _ in range(max_len):
        logp = step_fn(torch.tensor(beams)).double()
        prev = torch.tensor(scores, dtype=logp.dtype, device=logp.device)
        cand = (prev[:, None] + logp).flatten()
        top = cand.topk(min(2 * beam_width, cand.numel()))
        beams_in, beams, scores = beams, [], []
        for s, i in zip(top.values.tolist(), top.indices.tolist(), strict=True):
            b, tok = divmod(i, logp.shape[1])
            if tok == eos:
                finished.append((beams_in[b] + [tok], s))
            else:
                beams.append(beams_in[b] + [tok])
                scores.append(s)
            if len(beams) == beam_width:
                break
        if len(finished) >= beam_width or not beams:
            break
    finished += list(zip(beams, scores, strict=True))
    return sorted(finished, key=lambda h: -h[1])[:beam_width]
# --8<-- [end:wrong]


_wrong = beam_search
WRONG_MESSAGE = "at the first step every beam is the same prefix"


# --8<-- [start:solution]
import torch


def beam_search(step_fn, bos, eos, beam_width, max_len):
    beams, scores = [[bos]], [0.0]
    finished = []
    for _ in range(max_len):
        logp = step_fn(torch.tensor(beams)).double()
        prev = torch.tensor(scores, dtype=logp.dtype, device=logp.device)
        cand = (prev[:, None] + logp).flatten()
        top = cand.topk(min(2 * beam_width, cand.numel()))
        beams_in, beams, scores = beams, [], []
        for s, i in zip(top.values.tolist(), top.indices.tolist(), strict=True):
            b, tok = divmod(i, logp.shape[1])
            if tok == eos:
                finished.append((beams_in[b] + [tok], s))
            else:
                beams.append(beams_in[b] + [tok])
                scores.append(s)
            if len(beams) == beam_width:
                break
        if len(finished) >= beam_width or not beams:
            break
    finished += list(zip(beams, scores, strict=True))
    return sorted(finished, key=lambda h: -h[1])[:beam_width]
# --8<-- [end:solution]


_solution = beam_search


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call = (_KIT[n] for n in ("devices", "call"))


def grade(beam_search):
    import itertools

    import torch

    def markov(V, seed, dev):
        # a toy language model: the next token depends on the position and the last token (no ties)
        gen = torch.Generator().manual_seed(seed)
        table = torch.log_softmax(torch.randn(9, V, V, generator=gen, dtype=torch.float64) * 2, -1).to(dev)
        calls = []

        def step_fn(prefixes):
            calls.append(tuple(prefixes.shape))
            return table[prefixes.shape[1] - 1, prefixes[:, -1].to(dev)]

        return table, step_fn, calls

    def run(step_fn, calls, bos, eos, width, max_len):
        calls.clear()
        out = call(beam_search, step_fn, bos, eos, width, max_len)
        seqs = [list(map(int, tokens)) for tokens, _ in out]
        for seq in seqs:
            if seqs.count(seq) > 1:
                raise AssertionError(
                    f"C22 · {seq} appears {seqs.count(seq)} times: at the first step every beam is the same prefix, "
                    "so top-k over k×V picks each token k times. Start from one beam, or give the copies -inf")
        if len(calls) > max_len:
            raise AssertionError(f"C22 · step_fn was called {len(calls)} times for max_len={max_len}: call it once "
                                 "per step on all live beams (batched)")
        if any(n > width for n, _ in calls):
            raise AssertionError(f"C22 · step_fn got {max(n for n, _ in calls)} prefixes at once; at most "
                                 f"beam_width={width} beams are alive")
        return [(seq, float(score)) for seq, (_, score) in zip(seqs, out, strict=False)]

    def score_of(table, seq):
        return sum(table[t, a, b].item() for t, (a, b) in enumerate(itertools.pairwise(seq)))

    for dev in devices():
        # a width that covers every prefix: beam search is exhaustive search
        V, bos, eos, max_len = 3, 0, 2, 4
        table, step_fn, calls = markov(V, 1, dev)
        every = [[bos, *t, eos] for n in range(max_len) for t in itertools.product((0, 1), repeat=n)]
        every += [[bos, *t] for t in itertools.product((0, 1), repeat=max_len)]
        want = sorted(((s, score_of(table, s)) for s in every), key=lambda h: -h[1])
        got = run(step_fn, calls, bos, eos, 40, max_len)
        if [s for s, _ in got] != [s for s, _ in want]:
            raise AssertionError(f"C22 · width 40 covers all {len(want)} hypotheses (V=3, max_len=4) and must "
                                 f"equal exhaustive search, best first; your top 3 {got[:3]}, expected {want[:3]}")
        for (seq, score), (_, ref) in zip(got, want, strict=False):
            if abs(score - ref) > 1e-9:
                raise AssertionError(f"C22 · {seq} has score {score:.6f}; the sum of its log-probs is {ref:.6f}")
        # width 1 is greedy
        table, step_fn, calls = markov(6, 2, dev)
        seq = [bos]
        while len(seq) < 8 and (not seq[1:] or seq[-1] != 5):
            seq.append(int(table[len(seq) - 1, seq[-1]].argmax()))
        got = run(step_fn, calls, bos, 5, 1, 7)
        if [s for s, _ in got] != [seq]:
            raise AssertionError(f"C22 · beam_width=1 must be greedy decoding {seq}; you returned {got}")
        # wider beams on V=6: sorted, valid, scores are sums of log-probs
        got = run(step_fn, calls, bos, 5, 4, 6)
        if len(got) != 4 or [s for _, s in got] != sorted((s for _, s in got), reverse=True):
            raise AssertionError(f"C22 · beam_width=4 must return 4 hypotheses, best first; got {got}")
        for seq, score in got:
            if seq[0] != bos or 5 in seq[1:-1] or abs(score - score_of(table, seq)) > 1e-9:
                raise AssertionError(f"C22 · {seq} with score {score:.6f} is not a valid hypothesis")
        # eos as the very first token
        table, step_fn, calls = markov(4, 3, dev)
        table[0, 0] = torch.tensor([0.01, 0.01, 0.01, 0.97], dtype=torch.float64).log()
        got = run(step_fn, calls, 0, 3, 2, 5)
        if got[0][0] != [0, 3]:
            raise AssertionError(f"C22 · eos has probability 0.97 after bos: [0, 3] must come first; got {got[0]}")
    return "C22 passes: exhaustive at full width, greedy at width 1, no duplicates, one batched call per step"


def _check():
    import re

    import pytest

    assert grade(_solution).startswith("C22 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(_wrong)

    # mutants of the reference, one per remaining failure, each with its exact message
    def twice(step_fn, bos, eos, width, max_len):  # a probe call on the first beam before each real one
        return _solution(lambda p: (step_fn(p[:1]), step_fn(p))[1], bos, eos, width, max_len)

    def doubled(step_fn, bos, eos, width, max_len):  # every prefix sent twice
        return _solution(lambda p: step_fn(torch.cat([p, p]))[: len(p)], bos, eos, width, max_len)

    def changed(change, at=None):  # the reference's answer, altered (at one width only, if given)
        def attempt(step_fn, bos, eos, width, max_len):
            out = _solution(step_fn, bos, eos, width, max_len)
            return change(out, step_fn, bos, eos, max_len) if at in (None, width) else out

        return attempt

    for attempt, message in [
        (twice, r"step_fn was called 8 times for max_len=4: call it once per step"),
        (doubled, r"step_fn got 2 prefixes at once; at most beam_width=1 beams are alive"),
        (changed(lambda out, *_: out[::-1]), r"width 40 covers all 31 hypotheses .* must equal exhaustive search"),
        (changed(lambda out, *_: [(s, v + 1) for s, v in out]), r"^C22 · \[0, 0, 2\] has score -?\d+\.\d+; the sum"),
        (changed(lambda out, *_: [(out[0][0][:-1], out[0][1])], 1), r"beam_width=1 must be greedy decoding"),
        (changed(lambda out, *_: out[:3], 4), r"beam_width=4 must return 4 hypotheses, best first"),
        (changed(lambda out, *_: [([9, *s[1:]], v) for s, v in out], 4), r"^C22 · \[9, .* is not a valid hypoth"),
        (changed(lambda out, *_: out[::-1], 2), r"eos has probability 0.97 after bos: \[0, 3\] must come first"),
    ]:
        with pytest.raises(AssertionError, match=message):
            grade(attempt)


if __name__ == "__main__":
    _check()
