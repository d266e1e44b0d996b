# %% [markdown]
# # Lab · Make the inherited models fit
#
# You inherit five pieces of model code from a team that has moved on. Each runs on the inputs it was
# written for and breaks, loudly or silently, on the next ones: a U-Net that crashes on odd image sizes,
# a language model whose training loop dies on its second chunk, a checkpoint trained with one RoPE
# layout that must load into a codebase using the other, a model built on the `meta` device whose
# weight tie disappears when it is materialized, and a training script whose attention logits grow
# without limit and whose weights one corrupted batch turns into NaN. Each exercise is one of the
# arithmetic, convention or stability questions of the architecture round, and each check fails until
# your fix is right.
#
# It takes about 40 minutes, and draws on Module 9 · Convolutional networks, Q122 and Q125 (output sizes,
# `output_size=`), Recurrent networks, Q131 (truncated BPTT), The Transformer block, Q136 (RoPE layouts),
# Modern LLM blocks, Q140 and Q141 (weight tying, counting on `meta`), and Initialization and stability,
# Q145 (QK-norm, skipping a non-finite step).
#
# Runs on the CPU in seconds. Colab or any install with torch >= 2.6 has everything; nothing to install.

# %%
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def graph_size(fn):
    """How many autograd nodes are reachable from a grad_fn."""
    seen, todo = set(), [fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(n for n, _ in node.next_functions)
    return len(seen)


# %% [markdown]
# ## Exercise 1 · Make the U-Net decoder fit any size
#
# `TinyUNet` halves the resolution with a k3 s2 p1 conv and doubles it back with a transposed conv, then
# concatenates the skip connection. On 64×64 inputs it works; on 65×65 it crashes in `torch.cat`, because
# 65 and 66 both map to 33 on the way down, and the transposed conv can only guess which one you came
# from. Write `conv_out(h, k, s, p, d)`, the output size of a conv, and use it (or the skip tensor's size)
# in `forward` so that every input of at least 16 pixels round-trips. Hint: `ConvTranspose2d.forward`
# accepts `output_size=`.


# %% tags=["exercise"]
def conv_out(h, k, s=1, p=0, d=1):
    """Output size of a Conv2d or pooling layer along one dimension."""
    return (h + 2 * p - k) // s + 1  # TODO: dilation is missing


class TinyUNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.enc = nn.Conv2d(3, c, 3, padding=1)
        self.down = nn.Conv2d(c, 2 * c, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(2 * c, c, 3, stride=2, padding=1, output_padding=1)
        self.head = nn.Conv2d(2 * c, 3, 1)

    def forward(self, x):
        skip = F.relu(self.enc(x))
        deep = F.relu(self.down(skip))
        up = self.up(deep)  # TODO: the size is a guess: 2 * deep size
        return self.head(torch.cat([up, skip], dim=1))


# %% tags=["check"]
import itertools

for h, k, s, p, d in itertools.product((9, 16, 33), (1, 3, 5), (1, 2), (0, 1, 2), (1, 2)):
    real = F.conv2d(torch.zeros(1, 1, h, h), torch.zeros(1, 1, k, k), stride=s, padding=p, dilation=d)
    assert conv_out(h, k, s, p, d) == real.shape[-1], f"conv_out({h}, k={k}, s={s}, p={p}, d={d})"
net = TinyUNet()
for size in (64, 65, 97, 16):
    try:
        out = net(torch.randn(1, 3, size, size))
    except RuntimeError as error:
        raise AssertionError(f"{size}x{size} input: the decoder does not fit ({error})") from None
    assert out.shape[-2:] == (size, size), f"{size}x{size} in, {tuple(out.shape[-2:])} out"
print("every size round-trips")


# %% tags=["solution"]
def conv_out(h, k, s=1, p=0, d=1):
    """Output size of a Conv2d or pooling layer along one dimension."""
    return (h + 2 * p - d * (k - 1) - 1) // s + 1  # the effective kernel is d * (k - 1) + 1


class TinyUNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.enc = nn.Conv2d(3, c, 3, padding=1)
        self.down = nn.Conv2d(c, 2 * c, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(2 * c, c, 3, stride=2, padding=1, output_padding=1)
        self.head = nn.Conv2d(2 * c, 3, 1)

    def forward(self, x):
        skip = F.relu(self.enc(x))
        deep = F.relu(self.down(skip))
        # Ask for the skip's size: the layer picks the output_padding (0 or 1) that produces it.
        up = self.up(deep, output_size=skip.shape[-2:])
        return self.head(torch.cat([up, skip], dim=1))


# %% [markdown]
# ## Exercise 2 · Train on a long stream with truncated BPTT
#
# A character-level LSTM reads a long stream in chunks of 25 steps and carries its state from one chunk
# to the next, so it keeps its context. The loop crashes on the second chunk with "Trying to backward
# through the graph a second time". Fix `train_stream` so the state is carried but the gradient stops at
# each chunk boundary. The check runs 20 chunks and looks at the graph behind the state after each one:
# it must stay the same size. Hint: an LSTM's state is a pair.


# %% tags=["exercise"]
def train_stream(lstm, head, stream, chunk=25):
    """Train on `stream` (N, T, F) chunk by chunk; returns the graph size behind h after each chunk."""
    opt = torch.optim.SGD([*lstm.parameters(), *head.parameters()], lr=0.1)
    state, sizes = None, []
    for piece in stream.split(chunk, dim=1):
        out, state = lstm(piece, state)  # TODO: the state still links to the previous chunk's graph
        loss = F.mse_loss(head(out[:, :-1]), piece[:, 1:])
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_([*lstm.parameters(), *head.parameters()], 1.0)
        opt.step()
        sizes.append(graph_size(state[0].grad_fn))
    return sizes


# %% tags=["check"]
lstm, head = nn.LSTM(4, 32, batch_first=True), nn.Linear(32, 4)
stream = torch.sin(torch.linspace(0, 60, 500)).repeat(2, 4, 1).permute(0, 2, 1) + 0.05 * torch.randn(2, 500, 4)
try:
    sizes = train_stream(lstm, head, stream)
except RuntimeError as error:
    raise AssertionError(f"the loop fails after the first chunk: {str(error)[:70]}…") from None
assert len(sizes) == 20, f"{len(sizes)} chunks ran, expected 20"
assert len(set(sizes)) == 1, f"the graph behind the state grows: {sizes[:4]}…"
print("20 chunks, graph size constant:", sizes[0])


# %% tags=["solution"]
def train_stream(lstm, head, stream, chunk=25):
    """Train on `stream` (N, T, F) chunk by chunk; returns the graph size behind h after each chunk."""
    opt = torch.optim.SGD([*lstm.parameters(), *head.parameters()], lr=0.1)
    state, sizes = None, []
    for piece in stream.split(chunk, dim=1):
        if state is not None:
            state = tuple(s.detach() for s in state)  # keep the values, cut the graph: both h and c
        out, state = lstm(piece, state)
        loss = F.mse_loss(head(out[:, :-1]), piece[:, 1:])
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_([*lstm.parameters(), *head.parameters()], 1.0)
        opt.step()
        sizes.append(graph_size(state[0].grad_fn))
    return sizes


# %% [markdown]
# ## Exercise 3 · Port a RoPE checkpoint between layouts
#
# A model was trained with *interleaved* RoPE (pairs of dimensions (0, 1), (2, 3), …). The target codebase
# applies *rotate-half* RoPE (pairs (i, i + hd/2)). Loading the weights as they are raises nothing and
# gives different attention scores. Write `convert_qk(w, n_heads)`, which reorders the output rows of a
# W_q or W_k matrix within each head so that rotate-half on the converted weights gives exactly the
# scores interleaved RoPE gave on the original ones. Hint: within a head, the even dimensions must come
# first, then the odd ones.

# %%
def rope_interleaved(x, base=10000.0):  # x: (..., T, hd)
    T, hd = x.shape[-2:]
    angle = torch.arange(T)[:, None] * base ** (-torch.arange(0, hd, 2) / hd)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * angle.cos() - x2 * angle.sin(), x1 * angle.sin() + x2 * angle.cos()], -1).flatten(-2)


def rope_half(x, base=10000.0):  # x: (..., T, hd)
    T, hd = x.shape[-2:]
    angle = torch.arange(T)[:, None] * base ** (-torch.arange(0, hd, 2) / hd)
    cos, sin = angle.cos().repeat(1, 2), angle.sin().repeat(1, 2)
    return x * cos + torch.cat([-x[..., hd // 2 :], x[..., : hd // 2]], -1) * sin


def scores(x, w_q, w_k, n_heads, rope):
    q = (x @ w_q.T).view(x.shape[0], n_heads, -1).transpose(0, 1)  # (heads, T, hd)
    k = (x @ w_k.T).view(x.shape[0], n_heads, -1).transpose(0, 1)
    return rope(q) @ rope(k).mT


# %% tags=["exercise"]
def convert_qk(w, n_heads):
    """Rows of an interleaved-RoPE W_q or W_k, reordered for rotate-half RoPE."""
    return w  # TODO: permute the rows within each head


# %% tags=["check"]
d, heads = 32, 4
x, w_q, w_k = torch.randn(10, d), torch.randn(d, d), torch.randn(d, d)
original = scores(x, w_q, w_k, heads, rope_interleaved)
ported = scores(x, convert_qk(w_q, heads), convert_qk(w_k, heads), heads, rope_half)
assert torch.allclose(ported, original, atol=1e-3), "the converted checkpoint gives different attention scores"
print("converted: the scores match")


# %% tags=["solution"]
def convert_qk(w, n_heads):
    """Rows of an interleaved-RoPE W_q or W_k, reordered for rotate-half RoPE."""
    hd = w.shape[0] // n_heads
    within = torch.cat([torch.arange(0, hd, 2), torch.arange(1, hd, 2)])  # evens first, then odds
    rows = torch.cat([h * hd + within for h in range(n_heads)])
    return w[rows]


# %% [markdown]
# ## Exercise 4 · Count it on the meta device, keep the tie
#
# The training script builds its model on the `meta` device (no memory until the shapes are known),
# materializes it with `to_empty`, and initializes it. Two things are wrong: `count_params` reports a
# number that doesn't match the published GPT-2 small total (124,439,808), and after `materialize` the
# LM head is no longer tied to the embedding. Fix both. Hint: `to_empty` allocates every parameter name
# separately, and the head is tied.

# %%
class TinyGPT(nn.Module):
    def __init__(self, vocab, d, ctx, layers):
        super().__init__()
        self.embed, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(
            nn.ModuleDict({
                "ln1": nn.LayerNorm(d), "qkv": nn.Linear(d, 3 * d), "proj": nn.Linear(d, d),
                "ln2": nn.LayerNorm(d), "fc": nn.Linear(d, 4 * d), "out": nn.Linear(4 * d, d),
            })
            for _ in range(layers)
        )
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.embed.weight  # tied


# %% tags=["exercise"]
def count_params(model):
    """The number of trainable numbers in the model."""
    return sum(t.numel() for t in model.state_dict().values())  # TODO: is every entry a distinct tensor?


def materialize(model):
    """Allocate a meta-device model on the CPU and initialize it."""
    model = model.to_empty(device="cpu")  # TODO: what happens to the tie here?
    for m in model.modules():
        if isinstance(m, (nn.Linear, nn.Embedding, nn.LayerNorm)):
            m.reset_parameters()
    return model


# %% tags=["check"]
with torch.device("meta"):
    gpt2 = TinyGPT(vocab=50257, d=768, ctx=1024, layers=12)
assert count_params(gpt2) == 124_439_808, f"{count_params(gpt2):,} parameters, published: 124,439,808"
with torch.device("meta"):
    small = TinyGPT(vocab=100, d=16, ctx=8, layers=2)
small = materialize(small)
assert small.embed.weight.device.type == "cpu"
assert small.head.weight is small.embed.weight, "after materialize, the head is no longer tied to the embedding"
print(f"GPT-2 small: {count_params(gpt2):,} parameters; tie kept after materializing")


# %% tags=["solution"]
def count_params(model):
    """The number of trainable numbers in the model."""
    # parameters() yields a tied Parameter once; the state_dict has both keys on one storage.
    return sum(p.numel() for p in model.parameters())


def materialize(model):
    """Allocate a meta-device model on the CPU and initialize it."""
    model = model.to_empty(device="cpu")
    model.head.weight = model.embed.weight  # to_empty gave each name its own storage: tie again
    for m in model.modules():
        if isinstance(m, (nn.Linear, nn.Embedding, nn.LayerNorm)):
            m.reset_parameters()
    return model


# %% [markdown]
# ## Exercise 5 · Stabilize the attention
#
# The last piece is a training script run at a deliberately high learning rate (Adam, 0.03) on a
# retrieval task: find the token whose first feature is largest and return its features. Two things
# go wrong. The attention logits grow with the q and k weights, without limit: as shipped, the largest
# one climbs from about 3 to over 100 within 60 steps. The loss still falls on this fp32 toy, but the
# softmax is saturated, which is the growth that precedes loss spikes in large runs (the previous owner
# even declared `q_norm` and `k_norm`, and never used them). And one corrupted value in a batch turns
# the gradients into NaN, the optimizer step writes the NaN into every weight, and the run is lost. Fix
# both: apply QK-norm (an RMSNorm over each head's q and k, before the scores) in `qkv_heads`, and
# make `train_step` measure the total gradient norm first, skip the step (returning False) when the
# norm is not finite, and clip and step otherwise. Hint: `nn.utils.get_total_norm` measures without
# touching the gradients; `nn.utils.clip_grads_with_norm_` clips with a norm you already have.


# %%
def make_batch(gen, n=64, t=16):
    """Retrieval: the target is the features of the token whose first feature is largest."""
    x = torch.randn(n, t, 4, generator=gen)
    return x, x[torch.arange(n), x[..., 0].argmax(1)]


# %% tags=["exercise"]
class Attention(nn.Module):
    def __init__(self, d=32, heads=2):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.q_norm, self.k_norm = nn.RMSNorm(self.hd), nn.RMSNorm(self.hd)

    def qkv_heads(self, x):
        n, t, _ = x.shape
        q, k, v = self.qkv(x).view(n, t, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)  # each (n, heads, t, hd)
        return q, k, v  # TODO: q_norm and k_norm are declared but never applied

    def logits(self, x):
        """The attention scores before the softmax: what a training run should log."""
        q, k, _ = self.qkv_heads(x)
        return q @ k.mT / self.hd**0.5

    def forward(self, x):
        q, k, v = self.qkv_heads(x)
        return self.out(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2))


class Retriever(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.inp, self.attn, self.head = nn.Linear(4, d), Attention(d), nn.Linear(d, 4)

    def forward(self, x):
        h = self.inp(x)
        return self.head(h + self.attn(h))[:, 0]


def train_step(model, opt, x, y, max_norm=1.0):
    """One optimizer step on a batch; returns False when the step was skipped."""
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # TODO: a NaN gradient goes straight into step()
    opt.step()
    return True


# %% tags=["check"]
import copy

torch.manual_seed(0)
model, gen = Retriever(), torch.Generator().manual_seed(0)
grown = copy.deepcopy(model.attn)
with torch.no_grad():
    h = model.inp(make_batch(gen)[0])
    before = grown.logits(h)
    grown.qkv.weight[: 2 * grown.heads * grown.hd] *= 10  # W_q and W_k grow 10x, as they can in a long run
    after = grown.logits(h)
assert torch.allclose(after, before, atol=1e-3), (
    f"W_q and W_k grew 10x and the largest logit went from {before.abs().max():.1f} to {after.abs().max():.1f}"
)
opt = torch.optim.Adam(model.parameters(), lr=0.03)
peaks, losses = [], []
for step in range(60):
    x, y = make_batch(gen)
    with torch.no_grad():
        losses.append(F.mse_loss(model(x), y).item())
    assert train_step(model, opt, x, y) is True, f"step {step}: a clean batch was skipped"
    attn = model.attn
    with torch.no_grad():
        peaks.append(attn.logits(model.inp(x)).abs().max().item())
    # |q.k| / sqrt(hd) <= sqrt(hd) * max|g_q| * max|g_k| once q and k are RMS-normalized (g: the norm weights)
    bound = attn.hd**0.5 * attn.q_norm.weight.abs().max().item() * attn.k_norm.weight.abs().max().item()
    assert peaks[-1] <= bound, f"step {step}: largest logit {peaks[-1]:.1f}, above the QK-norm bound {bound:.1f}"
assert sum(losses[-10:]) < 0.5 * sum(losses[:10]), f"the loss did not fall: {losses[0]:.3f} -> {losses[-1]:.3f}"
snapshot = [p.detach().clone() for p in model.parameters()]
x, y = make_batch(gen)
x[0, 3, 1] = float("nan")  # one corrupted value in one sample
assert train_step(model, opt, x, y) is False, "the step on a batch with a NaN was taken"
unchanged = all(torch.equal(p, s) for p, s in zip(model.parameters(), snapshot, strict=True))
assert unchanged, "the skipped step changed the weights"
assert train_step(model, opt, *make_batch(gen)) is True, "training does not resume after a skipped step"
assert all(p.isfinite().all() for p in model.parameters()), "non-finite weights after the corrupted batch"
print(f"largest logit {max(peaks):.1f} (QK-norm bound {bound:.1f}); loss {losses[0]:.2f} -> {losses[-1]:.2f}")
print("the NaN batch was skipped; the weights stayed finite")


# %% tags=["solution"]
class Attention(nn.Module):
    def __init__(self, d=32, heads=2):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.q_norm, self.k_norm = nn.RMSNorm(self.hd), nn.RMSNorm(self.hd)

    def qkv_heads(self, x):
        n, t, _ = x.shape
        q, k, v = self.qkv(x).view(n, t, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)  # each (n, heads, t, hd)
        # QK-norm: each head's q and k get RMS sqrt(hd) (times the norm weight), whatever W_q and W_k become.
        return self.q_norm(q), self.k_norm(k), v

    def logits(self, x):
        """The attention scores before the softmax: what a training run should log."""
        q, k, _ = self.qkv_heads(x)
        return q @ k.mT / self.hd**0.5

    def forward(self, x):
        q, k, v = self.qkv_heads(x)
        return self.out(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2))


class Retriever(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.inp, self.attn, self.head = nn.Linear(4, d), Attention(d), nn.Linear(d, 4)

    def forward(self, x):
        h = self.inp(x)
        return self.head(h + self.attn(h))[:, 0]


def train_step(model, opt, x, y, max_norm=1.0):
    """One optimizer step on a batch; returns False when the step was skipped."""
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    params = [p for p in model.parameters() if p.grad is not None]
    norm = nn.utils.get_total_norm([p.grad for p in params])  # measure first: nothing is modified yet
    if not norm.isfinite():
        opt.zero_grad()  # skip: neither the weights nor Adam's moments see the NaN (count it in a real run)
        return False
    nn.utils.clip_grads_with_norm_(params, max_norm, norm)
    opt.step()
    return True


# %% [markdown]
# ## What to say in the interview
#
# - "Output size is `floor((H + 2p − d(k−1) − 1)/s) + 1`. A stride-2 layer maps two input sizes to one
#   output size, so a decoder must be told which one to return: `output_size=` on the transposed conv."
# - "In truncated BPTT I carry the state and detach it, both `h` and `c`, at each chunk boundary.
#   `retain_graph=True` is the wrong fix: the graph grows and the optimizer's in-place update breaks it."
# - "Interleaved and rotate-half RoPE are the same maths on permuted dimensions. Converting a checkpoint
#   means permuting the rows of W_q and W_k within each head; without it nothing raises, the model is
#   just worse."
# - "I count parameters with `parameters()`, which yields a tied weight once, never from the state_dict.
#   After `to_empty` I re-tie before initializing."
# - "QK-norm bounds every attention logit by sqrt(hd) times the norm weights, however large W_q and W_k
#   grow. And I measure the gradient norm before I touch anything: a non-finite norm skips the step and
#   is counted, so one bad batch never reaches the weights or Adam's moments. A z-loss and beta2 = 0.95
#   are the other two levers I'd name."
