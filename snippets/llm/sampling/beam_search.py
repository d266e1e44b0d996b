"""Beam search with length normalization on a hand-set bigram table: width 1 is greedy, wider can be worse."""

# --8<-- [start:demo]
import math

import torch

EOS, TOKENS = 0, ["EOS", "A", "B", "C"]
# P(next | previous); row 4 is the start of the sequence
P = torch.tensor([[1.00, 0.00, 0.00, 0.00],   # after EOS (never used)
                  [0.40, 0.20, 0.20, 0.20],   # after A
                  [0.05, 0.05, 0.05, 0.85],   # after B
                  [0.95, 0.02, 0.02, 0.01],   # after C
                  [0.30, 0.36, 0.34, 0.00]])  # at the start
LOGP = P.log()


def beam_search(width, alpha=0.0, max_len=4):
    alive, finished = [((), 0.0)], []  # (tokens, summed log-prob)
    for _ in range(max_len):
        candidates = []
        for tokens, score in alive:  # a real model: one batched forward
            last = tokens[-1] if tokens else 4
            for nxt in range(4):
                new_score = score + LOGP[last, nxt].item()
                candidates.append((tokens + (nxt,), new_score))
        candidates.sort(key=lambda c: c[1], reverse=True)
        alive = []
        for tokens, score in candidates[:width]:  # keep the `width` best
            (finished if tokens[-1] == EOS else alive).append((tokens, score))
        if not alive:
            break
    # length normalization: divide by len ** alpha (alpha = 0: raw log-prob)
    best, score = max(finished, key=lambda f: f[1] / len(f[0]) ** alpha)
    return [TOKENS[t] for t in best], round(math.exp(score), 4)


for width in (1, 2, 3, 64):
    print(width, beam_search(width), beam_search(width, alpha=1.0)[0])
# > 1 (['A', 'EOS'], 0.144) ['A', 'EOS']
# > 2 (['B', 'C', 'EOS'], 0.2746) ['B', 'C', 'EOS']
# > 3 (['EOS'], 0.3) ['B', 'C', 'EOS']
# > 64 (['EOS'], 0.3) ['B', 'C', 'EOS']
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import itertools

    # Width 1 is greedy: take the argmax at every step.
    tokens, last, p = [], 4, 1.0
    while not tokens or tokens[-1] != EOS:
        nxt = int(P[last].argmax())
        tokens.append(nxt)
        p *= P[last, nxt].item()
        last = nxt
    assert beam_search(1) == ([TOKENS[t] for t in tokens], round(p, 4))
    # Width 64 (more than all hypotheses) equals exhaustive search over every sequence ending in EOS.
    best = max(
        (seq for n in range(1, 5) for seq in itertools.product(range(4), repeat=n)
         if seq[-1] == EOS and EOS not in seq[:-1]),
        key=lambda seq: sum(LOGP[a, b].item() for a, b in zip((4,) + seq[:-1], seq, strict=True)),
    )
    assert [TOKENS[t] for t in best] == beam_search(64)[0] == ["EOS"]  # the empty output is the mode
    # A wider beam found a worse (shorter) output than width 2; alpha = 1 fixes the winner at every width >= 2.
    assert beam_search(2)[0] == ["B", "C", "EOS"] and beam_search(3)[0] == ["EOS"]
    assert all(beam_search(w, alpha=1.0)[0] == ["B", "C", "EOS"] for w in (2, 3, 64))


if __name__ == "__main__":
    _check()
