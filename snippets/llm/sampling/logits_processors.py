"""Temperature, top-k, top-p and min-p as logits processors: kept sets on fixed logits, a frequency test, T = 0."""

# --8<-- [start:processors]
import torch

NEG_INF = float("-inf")


def top_k(logits, k):
    kth = logits.topk(k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, NEG_INF)  # ties at kth stay


def top_p(logits, p):
    sorted_logits, order = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs  # mass strictly before each token
    sorted_logits = sorted_logits.masked_fill(before >= p, NEG_INF)
    return torch.full_like(logits, NEG_INF).scatter(-1, order, sorted_logits)


def min_p(logits, p_min):
    probs = logits.softmax(-1)
    threshold = p_min * probs.amax(-1, keepdim=True)  # follows confidence
    return logits.masked_fill(probs < threshold, NEG_INF)


def sample(logits, temperature=1.0, k=None, p=None, m=None, generator=None):
    if temperature == 0:  # greedy: logits / 0 would give inf and NaN
        return logits.argmax(-1)
    logits = logits / temperature  # temperature first, then truncation
    if k is not None:
        logits = top_k(logits, k)
    if p is not None:
        logits = top_p(logits, p)
    if m is not None:
        logits = min_p(logits, m)
    probs = logits.softmax(-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
# --8<-- [end:processors]


# --8<-- [start:kept]
logits = torch.tensor([2.0, 1.0, 0.5, 0.0, -1.0, -3.0])
print([round(p, 3) for p in logits.softmax(-1).tolist()])
# > [0.561, 0.206, 0.125, 0.076, 0.028, 0.004]


def kept(filtered):
    return filtered.isfinite().nonzero().flatten().tolist()


for t in (0.5, 1.0, 2.0):
    scaled = logits / t
    print(t, kept(top_k(scaled, 3)), kept(top_p(scaled, 0.8)),
          kept(min_p(scaled, 0.1)))
# > 0.5 [0, 1, 2] [0] [0, 1]
# > 1.0 [0, 1, 2] [0, 1, 2] [0, 1, 2, 3]
# > 2.0 [0, 1, 2] [0, 1, 2, 3] [0, 1, 2, 3, 4]

print(kept(top_k(torch.tensor([1.0, 1.0, 1.0, 0.0]), 2)))  # a tie at kth
# > [0, 1, 2]
print((logits / 0).softmax(-1).isnan().all().item(), sample(logits, 0.0))
# > True tensor(0)
# --8<-- [end:kept]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Frequency test: 50,000 seeded draws with top-p 0.8 match the renormalized top-3 distribution.
    g = torch.Generator().manual_seed(0)
    draws = sample(logits.expand(50_000, 6), p=0.8, generator=g)
    freq = torch.bincount(draws, minlength=6) / 50_000
    probs = logits.softmax(-1)
    target = torch.zeros(6)
    target[:3] = probs[:3] / probs[:3].sum()
    assert (freq - target).abs().max() < 0.01, freq  # expected deviation ~0.002
    assert freq[3:].sum() == 0
    # top-k's kept set doesn't depend on temperature; top-p's and min-p's do.
    assert kept(top_p(logits / 0.5, 0.8)) != kept(top_p(logits / 2.0, 0.8))
    # T = 0: logits / 0 is +-inf and NaN; the special case returns the argmax, no NaN.
    assert (logits / 0).isnan().any()
    assert sample(logits, 0.0).item() == 0
    # The off-by-one rule (drop where the cumsum including the token exceeds p) removes every token when
    # p_max > p: all -inf, all-NaN probabilities.
    sharp = torch.tensor([3.0, 1.0, 0.5, 0.0])
    assert sharp.softmax(-1)[0] > 0.5
    s, order = sharp.sort(descending=True)
    wrong = s.masked_fill(s.softmax(-1).cumsum(-1) > 0.5, NEG_INF)
    assert wrong.isinf().all() and wrong.softmax(-1).isnan().all()
    assert kept(top_p(sharp, 0.5)) == [0]  # the right rule always keeps the top token
    # top_p scatters back into vocabulary order.
    shuffled = logits[torch.tensor([3, 0, 5, 1, 4, 2])]
    assert kept(top_p(shuffled, 0.8)) == [1, 3, 5]
    # torch.multinomial(p, 1) is the exponential race argmax(p / Exp(1)): the same draw, same generator.
    p = probs.expand(20, 6)
    a = torch.multinomial(p, 1, generator=torch.Generator().manual_seed(1)).squeeze(1)
    e = torch.empty(20, 6).exponential_(generator=torch.Generator().manual_seed(1))
    assert torch.equal(a, (p / e).argmax(-1))
    # min-p and top-k paths through sample().
    g = torch.Generator().manual_seed(0)
    assert sample(logits, 1.0, k=2, generator=g).item() in (0, 1)
    assert sample(logits, 0.5, m=0.1, generator=g).item() in (0, 1)


if __name__ == "__main__":
    _check()
