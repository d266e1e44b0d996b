# %% [markdown]
# # Lab · Review three tensor helpers that pass their author's tests
#
# A colleague opens a pull request with three small helpers for a retrieval service: squared distances
# between query and key embeddings, per-image normalisation, and mean pooling over padded sequences.
# Every helper passes the tests the author wrote. You are the reviewer. Each helper hides a bug that
# those tests can't see: a broadcast that only goes wrong when the shapes differ, an in-place write that
# reaches the caller's tensor through a view, and new tensors created on the wrong device and dtype.
# This is the same ground as a live-coding round, where the interviewer hands you code that "works" and
# asks what is wrong with it.
#
# You practise reading shapes before trusting numbers, telling views from copies, and writing code that
# follows its input's device and dtype. Each check runs the helper the way production will, and says
# what it found. Plan on 30 to 45 minutes.
#
# The lab draws on Module 1 · Tensor anatomy, Q2–Q3; Broadcasting, indexing and vectorization, Q7,
# Q8 and Q11; Devices and asynchronous execution, Q12–Q13; In-place operations and aliasing, Q17.
#
# Everything runs on a CPU in a few seconds. Colab, or any install with torch 2.6 or later, has all it
# needs: there is nothing to install.

# %%
import torch

torch.manual_seed(0)

# Embeddings for exercise 1: 5 queries and 7 keys of dimension 8, and a set far from the origin.
queries = torch.randn(5, 8)
keys = torch.randn(7, 8)
offset_embeddings = 100 + 10 * torch.randn(64, 16)  # unnormalised features that share a large offset

# An image batch for exercise 2, and a padded batch of token vectors for exercise 3.
images = 255 * torch.rand(8, 3, 6, 6)
hidden = torch.randn(3, 5, 4)  # (batch, time, features)
lengths = torch.tensor([5, 2, 3])  # how many time steps of each row are real; the rest is padding


def pairwise_sq_dists_loop(x, y):
    """The slow reference: out[i, j] = ||x[i] - y[j]||^2, one pair at a time."""
    return torch.stack([torch.stack([((a - b) ** 2).sum() for b in y]) for a in x])


def mean_pool_loop(h, n):
    """The slow reference: the mean of each row's first n[b] vectors."""
    return torch.stack([h[b, :count].mean(dim=0) for b, count in enumerate(n.tolist())])


def call_or_fail(fn, *args):
    """Call fn; an error from it fails the check with a message that says which inputs caused it."""
    try:
        return fn(*args)
    except RuntimeError as error:
        inputs = ", ".join(f"{tuple(a.shape)} {a.dtype} on {a.device.type}" for a in args)
        raise AssertionError(f"{fn.__name__}({inputs}) raised: {error}") from None


print(torch.__version__)

# %% [markdown]
# ## Exercise 1 · Fix the pairwise distances that only work for square batches
#
# `pairwise_sq_dists(x, y)` should return the `(N, M)` matrix of squared Euclidean distances between
# the rows of `x` (`(N, D)`) and `y` (`(M, D)`). It uses the expansion
# ‖x‖² + ‖y‖² − 2·x·y, which needs only an `(N, M)` matrix product instead of an `(N, M, D)` difference
# tensor. The author tested it with the same number of queries and keys, got the right shape, and moved
# on. Two things are wrong. Line the shapes up from the right and work out what `xx + yy` really is when
# `N == M`, and what it does when `N != M`. And for embeddings far from the origin, the expansion
# subtracts two large, nearly equal numbers, so a point's distance to itself can come out slightly
# negative, which turns into `nan` as soon as anyone takes the square root.
#
# The check compares the result with the loop on a square batch, asks for shape `(5, 7)` from 5 queries
# and 7 keys, and asks that no squared distance is negative on `offset_embeddings`. Hint: give each
# norm vector the size-1 dimension that sends it along the right axis, and remember `clamp_min`.


# %% tags=["exercise"]
def pairwise_sq_dists(x, y):
    """Squared Euclidean distances between the rows of x (N, D) and y (M, D): shape (N, M)."""
    xx = (x * x).sum(dim=1)  # (N,)
    yy = (y * y).sum(dim=1)  # (M,)
    return xx + yy - 2 * x @ y.T  # TODO: which axis should each norm run along?


# %% tags=["check"]
square = pairwise_sq_dists(queries, keys[:5])
assert square.shape == (5, 5), f"5 queries against 5 keys should give (5, 5), got {tuple(square.shape)}"
assert torch.allclose(square, pairwise_sq_dists_loop(queries, keys[:5]), atol=1e-4), (
    "right shape, wrong numbers on a square batch: out[i, j] needs ||x[i]||^2 (one value per row) plus "
    "||y[j]||^2 (one value per column), but (N,) + (N,) is one elementwise-summed (N,) vector, which then "
    "broadcasts along every row, so out[i, j] got ||x[j]||^2 + ||y[j]||^2"
)
rect = call_or_fail(pairwise_sq_dists, queries, keys)
assert rect.shape == (5, 7), f"5 queries against 7 keys should give (5, 7), got {tuple(rect.shape)}"
assert torch.allclose(rect, pairwise_sq_dists_loop(queries, keys), atol=1e-4), "(5, 7) values differ from the loop"
self_dists = pairwise_sq_dists(offset_embeddings, offset_embeddings)
assert (self_dists >= 0).all(), (
    f"a squared distance came out as {self_dists.min().item():.4f} for points far from the origin: the "
    "expansion cancels catastrophically in float32, so clamp the result at 0 before anyone takes a sqrt"
)
print("pairwise distances: square, rectangular and far-from-origin batches all pass")


# %% tags=["solution"]
def pairwise_sq_dists(x, y):
    """Squared Euclidean distances between the rows of x (N, D) and y (M, D): shape (N, M)."""
    xx = (x * x).sum(dim=1)  # (N,)
    yy = (y * y).sum(dim=1)  # (M,)
    # (N, 1) + (1, M) broadcasts to (N, M): a column of ||x[i]||^2 (one per row) plus a row of ||y[j]||^2.
    d = xx[:, None] + yy[None, :] - 2 * x @ y.T
    # Rounding in the cancellation can leave tiny negatives; a squared distance is never below 0.
    # (The direct ((x[:, None] - y[None]) ** 2).sum(-1) is exact too, but builds an (N, M, D) tensor.)
    return d.clamp_min(0)


# %% [markdown]
# ## Exercise 2 · Stop the normaliser from editing the caller's batch
#
# `normalize_per_sample(images)` scales each image of an `(N, C, H, W)` batch to zero mean and unit
# standard deviation, and its docstring promises to leave `images` untouched. The author believes
# "`reshape` copies", so the in-place `-=` and `/=` only touch a private buffer. Their test fed a batch
# permuted from NHWC data, which is not contiguous, and there `reshape` did copy, so the test passed.
# Production passes an ordinary contiguous batch, or a slice of one, and for those `reshape` returns a
# view.
#
# The check calls the helper on `batch[:4]`, a slice of a larger batch, and then asks for three things:
# each output image has mean 0 and standard deviation 1, the caller's whole batch is bit-for-bit what
# it was, and the result does not share storage with it. Hint: compute the result out of place (or
# `clone()` first) and only read from anything that might be a view.


# %% tags=["exercise"]
def normalize_per_sample(images):
    """Each image of an (N, C, H, W) batch scaled to mean 0, std 1. Leaves `images` untouched."""
    flat = images.reshape(len(images), -1)  # "reshape copies", so writing into flat is safe?
    flat -= flat.mean(dim=1, keepdim=True)  # TODO: is flat a copy or a view here?
    flat /= flat.std(dim=1, keepdim=True)
    return flat.reshape(images.shape)


# %% tags=["check"]
# The author's test: a batch permuted from NHWC data. It passes even with the bug, because a permuted
# batch is not contiguous and reshape had to copy it.
nhwc = images.permute(0, 2, 3, 1).contiguous()
authors_batch = nhwc.permute(0, 3, 1, 2)
authors_copy = authors_batch.clone()
normalize_per_sample(authors_batch)
assert torch.equal(authors_batch, authors_copy), "even the author's permuted batch was modified"

# Production: a contiguous batch, and the helper called on a slice of it.
batch = images.clone()
before = batch.clone()
out = normalize_per_sample(batch[:4])
assert out.shape == (4, 3, 6, 6), f"expected shape (4, 3, 6, 6), got {tuple(out.shape)}"
per_image = out.flatten(1)
assert torch.allclose(per_image.mean(dim=1), torch.zeros(4), atol=1e-4), "each image should have mean 0"
assert torch.allclose(per_image.std(dim=1), torch.ones(4), atol=1e-4), "each image should have std 1"
changed = (batch != before).flatten(1).any(dim=1).nonzero().flatten().tolist()
assert not changed, (
    f"the caller's batch changed in images {changed}: batch[:4] is a view, reshape of a contiguous tensor "
    "is another view of the same memory, and -= and /= write straight through it"
)
assert out.untyped_storage().data_ptr() != batch.untyped_storage().data_ptr(), (
    "the result shares storage with the caller's batch, so the caller's next in-place op would change it"
)
print("normalize_per_sample leaves its input alone and returns new memory")


# %% tags=["solution"]
def normalize_per_sample(images):
    """Each image of an (N, C, H, W) batch scaled to mean 0, std 1. Leaves `images` untouched."""
    # reshape gives a view when it can (always, for a contiguous input) and a copy only when it must,
    # so treat flat as the caller's memory: read from it, never write into it.
    flat = images.reshape(len(images), -1)
    mean = flat.mean(dim=1, keepdim=True)
    std = flat.std(dim=1, keepdim=True)
    # Out of place: a new tensor. Equally correct: .clone() the reshape first, then the in-place ops.
    return ((flat - mean) / std).reshape(images.shape)


# %% [markdown]
# ## Exercise 3 · Make the pooling helper follow its input's device and dtype
#
# `mean_pool(hidden, lengths)` averages each sequence's first `lengths[b]` vectors of a padded
# `(B, T, D)` batch, using a mask built by broadcasting and one `einsum`. It matches the loop in the
# author's float32 test on a laptop. It also creates two tensors of its own, and neither follows the
# input: `torch.arange(steps)` lands on the CPU whatever device `hidden` is on, and `.float()` hard-codes
# float32. A float64 evaluation run crashes inside `einsum`, and on the GPU box the mask comparison
# fails with a device mismatch.
#
# No GPU is needed to catch the second one. The `meta` device holds shapes and dtypes but no data, and
# is available on every machine, so it can stand in for a second device. The check runs the helper in
# float32 and float64 against the loop, then on meta tensors, and expects a float64 result on the meta
# device. Hint: create tensors with `device=hidden.device`, and cast with `.to(hidden.dtype)`.


# %% tags=["exercise"]
def mean_pool(hidden, lengths):
    """Mean of each row's first lengths[b] vectors. hidden: (B, T, D) floating, lengths: (B,) int -> (B, D)."""
    batch, steps, dim = hidden.shape
    positions = torch.arange(steps)  # TODO: on which device?
    mask = positions < lengths[:, None]  # (B, T): True for real positions
    weights = mask.float() / lengths[:, None]  # TODO: which dtype?
    return torch.einsum("bt,btd->bd", weights, hidden)


# %% tags=["check"]
pooled32 = call_or_fail(mean_pool, hidden, lengths)
assert torch.allclose(pooled32, mean_pool_loop(hidden, lengths), atol=1e-6), "float32 result differs from the loop"
hidden64 = hidden.double()
pooled64 = call_or_fail(mean_pool, hidden64, lengths)
assert pooled64.dtype == torch.float64, f"a float64 input came back as {pooled64.dtype}: don't hard-code float32"
assert torch.allclose(pooled64, mean_pool_loop(hidden64, lengths), rtol=0, atol=1e-12), (
    "float64 result differs from the float64 loop by more than float64 rounding: was something computed in float32?"
)
pooled_meta = call_or_fail(mean_pool, hidden64.to("meta"), lengths.to("meta"))
assert pooled_meta.device.type == "meta", f"meta inputs gave a result on {pooled_meta.device}"
assert pooled_meta.shape == (3, 4) and pooled_meta.dtype == torch.float64, (
    f"meta inputs gave {tuple(pooled_meta.shape)} {pooled_meta.dtype}, expected (3, 4) float64"
)
print("mean_pool follows its input's dtype and device")


# %% tags=["solution"]
def mean_pool(hidden, lengths):
    """Mean of each row's first lengths[b] vectors. hidden: (B, T, D) floating, lengths: (B,) int -> (B, D)."""
    batch, steps, dim = hidden.shape
    positions = torch.arange(steps, device=hidden.device)  # create it where the data is: no copy, no mismatch
    mask = positions < lengths[:, None]  # (T,) against (B, 1) broadcasts to (B, T)
    weights = mask.to(hidden.dtype) / lengths[:, None]  # the input's dtype, whatever it is
    return torch.einsum("bt,btd->bd", weights, hidden)


# %% [markdown]
# ## What to say in the interview
#
# - Broadcasting lines shapes up from the right, so `(N,) + (M,)` raises when the sizes differ and is
#   silently an elementwise sum when they are equal. Say the intended shape out loud (`xx[:, None]` is
#   `(N, 1)`, `yy[None, :]` is `(1, M)`), and test with sizes that differ, because square test data hides
#   exactly this bug.
# - The expansion ‖x‖² + ‖y‖² − 2·x·y trades memory (`N·M` instead of `N·M·D`) for accuracy: it cancels
#   badly for points far from the origin. Clamp at 0 before a square root, or centre the data first.
# - "`reshape` copies" is lore. It returns a view whenever one exists, and slicing, `view`, `transpose`
#   and `detach()` always do. An in-place op on a view writes into the caller's tensor. Compute out of
#   place, or `clone()` first, and test for sharing with `untyped_storage().data_ptr()`.
# - Autograd's version counter protects tensors saved for backward, not your caller's data: the write in
#   exercise 2 raises nothing.
# - A helper creates new tensors on its input's device and dtype: `device=x.device`, `x.new_zeros(...)`,
#   `torch.zeros_like(x)`, `.to(x.dtype)` or `.to(x)`. `.float()` and a bare `torch.arange(n)` are hidden
#   assumptions. Test the helper with float64 and on the `meta` device, and the GPU-only crash shows on a
#   laptop.
