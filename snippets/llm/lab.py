# %% [markdown]
# # Lab · Make a toy LLM generate, sample and fine-tune correctly
#
# A colleague wrote the three pieces of a small LLM stack: the sampler, the decode step that attends to the
# KV cache, and the loss of a supervised fine-tune with gradient accumulation. Each piece runs without an
# error, and each one is subtly wrong in a way that a quick look at the output would not reveal. Your job is
# to find out with checks, and fix them.
#
# You practise writing top-p sampling and testing a sampler with a frequency test, the causal mask of a
# decode step over a cache, and normalizing a token-level loss across micro-batches. It takes about 30
# minutes, and draws on Module 10 · Sampling and search, Q152 (logits processors), The decode loop, Q150
# (`is_causal` and the bottom-right mask), and Fine-tuning, Q164 (SFT loss normalization).
#
# Runs on the CPU in seconds. Colab or any install with torch >= 2.6 has everything; nothing to install.

# %%
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
NEG_INF = float("-inf")


def kept(filtered_logits):
    """The token ids a processor left finite."""
    return filtered_logits.isfinite().nonzero().flatten().tolist()


# %% [markdown]
# ## Exercise 1 · Top-p that keeps the right tokens
#
# `top_p(logits, p)` should keep the smallest set of most likely tokens whose probability mass reaches `p`,
# set every other logit to `-inf`, and return the logits in vocabulary order. The shipped version drops a
# token as soon as the cumulative mass *including* it exceeds `p`. The check runs it on fixed logits, on a
# confident distribution (the top token alone above `p`), and with a 20,000-draw frequency test against
# the renormalized distribution. Hint: compare `p` with the mass *before* each token.


# %% tags=["exercise"]
def top_p(logits, p):
    sorted_logits, order = logits.sort(dim=-1, descending=True)
    cumulative = sorted_logits.softmax(-1).cumsum(-1)
    sorted_logits = sorted_logits.masked_fill(cumulative > p, NEG_INF)  # TODO: is this the right mass?
    return torch.full_like(logits, NEG_INF).scatter(-1, order, sorted_logits)


# %% tags=["check"]
logits = torch.tensor([2.0, 1.0, 0.5, 0.0, -1.0, -3.0])  # probabilities 0.561, 0.206, 0.125, ...
assert kept(top_p(logits, 0.8)) == [0, 1, 2], f"top-p 0.8 should keep tokens [0, 1, 2], kept {kept(top_p(logits, 0.8))}"
confident = torch.tensor([3.0, 1.0, 0.5, 0.0])  # the top token alone has probability 0.79
assert kept(top_p(confident, 0.5)) == [0], "top-p must always keep the most likely token"
shuffled = logits[torch.tensor([3, 0, 5, 1, 4, 2])]
assert kept(top_p(shuffled, 0.8)) == [1, 3, 5], "return the logits in vocabulary order (scatter back)"
generator = torch.Generator().manual_seed(0)
draws = torch.multinomial(top_p(logits, 0.8).softmax(-1).expand(20_000, 6), 1, generator=generator)
freq = torch.bincount(draws.flatten(), minlength=6) / 20_000
expected = torch.zeros(6)
expected[:3] = logits[:3].softmax(-1)
assert (freq - expected).abs().max() < 0.015, f"sampled frequencies {freq} differ from {expected}"
print("top-p: right tokens, right frequencies")


# %% tags=["solution"]
def top_p(logits, p):
    sorted_logits, order = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs  # the mass of the tokens ranked above this one
    sorted_logits = sorted_logits.masked_fill(before >= p, NEG_INF)
    return torch.full_like(logits, NEG_INF).scatter(-1, order, sorted_logits)


# %% [markdown]
# ## Exercise 2 · The decode step that attends to its cache
#
# `decode_attention(q_new, k_cache, v_cache)` computes attention for the one newest token, whose key and
# value were already written into the last slot of the cache. The check compares it with the last row of a
# full causal attention over all the tokens (what the model would compute without a cache). Hint: which keys
# may the newest token see, and which triangle does `is_causal=True` build when there is 1 query and 6 keys?


# %% tags=["exercise"]
def decode_attention(q_new, k_cache, v_cache):
    return F.scaled_dot_product_attention(q_new, k_cache, v_cache, is_causal=True)  # TODO: the right mask


# %% tags=["check"]
q_all, k_all, v_all = torch.randn(3, 1, 2, 6, 8)
full = F.scaled_dot_product_attention(q_all, k_all, v_all, is_causal=True)
step = decode_attention(q_all[:, :, 5:], k_all, v_all)
assert torch.allclose(step, full[:, :, 5:], atol=1e-6), (
    "the cached decode step should equal the last row of the full causal attention"
)
print("decode step equals the full recompute")


# %% tags=["solution"]
def decode_attention(q_new, k_cache, v_cache):
    # The cache holds only the past and this token: the newest token may see every key, so no mask.
    # (is_causal=True aligns the triangle top-left: one query would see key 0 only.)
    return F.scaled_dot_product_attention(q_new, k_cache, v_cache)


# %% [markdown]
# ## Exercise 3 · A fine-tuning loss that weighs every token the same
#
# `accumulate(model, micro_batches)` runs the backward passes of one optimizer step over micro-batches of
# token logits, with labels `-100` on prompt and padding tokens. The micro-batches have 2 and 11 target
# tokens. The check compares the accumulated gradient with the gradient of one big batch's token-mean loss.
# Hint: `F.cross_entropy` averages over the target tokens of *its* micro-batch.


# %% tags=["exercise"]
def accumulate(model, micro_batches):
    model.zero_grad()
    for x, labels in micro_batches:
        loss = F.cross_entropy(model(x), labels) / len(micro_batches)  # TODO: weigh every token equally
        loss.backward()


# %% tags=["check"]
model = nn.Linear(8, 5)
x, labels = torch.randn(24, 8), torch.randint(0, 5, (24,))
labels[2:12] = -100  # micro-batch 1: 2 target tokens
labels[23:] = -100  # micro-batch 2: 11 target tokens
accumulate(model, list(zip(x.split(12), labels.split(12), strict=True)))
reference = torch.autograd.grad(F.cross_entropy(model(x), labels), model.weight)[0]
assert torch.allclose(model.weight.grad, reference, atol=1e-6), (
    "the accumulated gradient should equal the one-big-batch token mean"
)
print("every token weighs the same")


# %% tags=["solution"]
def accumulate(model, micro_batches):
    total = sum((labels != -100).sum() for _, labels in micro_batches)  # the step's target tokens
    model.zero_grad()
    for x, labels in micro_batches:
        loss = F.cross_entropy(model(x), labels, reduction="sum") / total
        loss.backward()


# %% [markdown]
# ## What to say in the interview
#
# - "Top-p keeps the smallest prefix of the sorted distribution whose mass reaches p: I drop a token when
#   the mass *before* it already reaches p, so the top token always survives. I test a sampler with a
#   seeded frequency test, never with one draw."
# - "For a decode step over a cache that holds only the past, no mask is needed. `is_causal=True` aligns
#   the triangle top-left when the query and key lengths differ, so one query would see key 0 only; for a
#   chunk of new tokens I use `causal_lower_right`."
# - "Under gradient accumulation a token-level loss is the sum of token losses divided by the target
#   tokens of the whole optimizer step (all-reduced across ranks). Averaging each micro-batch and dividing
#   by the number of steps over-weights short answers."
