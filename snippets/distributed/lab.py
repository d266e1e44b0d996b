# %% [markdown]
# # Lab · Shard this model on two ranks
#
# Your team is moving a model from one GPU to several, and the first job is to prove that the split changes
# nothing: two ranks must compute what one process computes on the whole batch. In a live-coding round this
# is "implement data parallelism without DDP", "why does every epoch look the same?", and "split this MLP
# across two GPUs". You write the code that runs inside each rank; the checks run the ranks for real and
# compare them with a single process.
#
# You practise hand-written data parallelism (one all-reduce of the gradients), sharding the data with
# `DistributedSampler`, and Megatron-style tensor parallelism (a column-parallel then a row-parallel
# `Linear`). It takes about 30 minutes, and draws on Module 7 · Data parallelism, Q88 (how DDP keeps the
# replicas in sync) and Q89 (`DistributedSampler` and `set_epoch`), and Model parallelism and collectives,
# Q96 (tensor parallelism) and Q98 (the collectives).
#
# Every check starts two real processes that talk over gloo on the CPU, and finishes in seconds. The
# processes are forked, which works in Jupyter and Colab on Linux; on macOS or Windows, run the lab in Colab
# or on a Linux machine. Colab or any install with torch >= 2.6 has everything; nothing to install.

# %%
import io
import socket
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler

torch.manual_seed(0)
WORLD_SIZE = 2


def _rank_main(rank, fn, port, queue):
    """What each forked process runs: join the group, call fn(rank, world_size), send back what it returns."""
    torch.set_num_threads(1)  # two processes on a small CPU: don't let each grab every core
    dist.init_process_group(
        "gloo",
        init_method=f"tcp://127.0.0.1:{port}",
        rank=rank,
        world_size=WORLD_SIZE,
        timeout=timedelta(seconds=30),  # a rank stuck in a collective raises instead of hanging forever
    )
    try:
        result = fn(rank, WORLD_SIZE)
        buffer = io.BytesIO()
        torch.save(result, buffer)  # plain bytes: safe to send after this process has exited
        queue.put((rank, buffer.getvalue()))
    finally:
        dist.destroy_process_group()


def run_on_two_ranks(fn):
    """Run fn(rank, world_size) on two forked gloo ranks; return {rank: what fn returned}."""
    with socket.socket() as probe:  # ask the OS for a free port for the rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    queue = mp.get_context("fork").SimpleQueue()
    processes = mp.start_processes(
        _rank_main, args=(fn, port, queue), nprocs=WORLD_SIZE, start_method="fork", join=False
    )
    results, finished = {}, False
    while not finished:
        finished = processes.join(timeout=0.05)  # True once both have exited; raises if a rank raised
        while not queue.empty():  # read as results arrive: a large one would block its sender until read
            rank, data = queue.get()
            results[rank] = torch.load(io.BytesIO(data))
    return dict(sorted(results.items()))


# The model and the global batch. Forked ranks inherit them, so every rank starts from the same weights
# (DDP would broadcast rank 0's weights to get the same effect).
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
x = torch.randn(8, 6)
y = torch.randn(8, 1)

# %% [markdown]
# ## Exercise 1 · Average the gradients by hand
#
# `data_parallel_grads` is what each rank runs for one training step: forward and backward on its half of
# the batch, then one `all_reduce` per gradient so that every rank ends with the same gradient. The check
# runs it on two ranks and compares each rank's gradients with one process that runs backward on all 8
# samples. As shipped, every gradient comes out twice the reference.
#
# Fix it so that each rank's gradients equal the single-process, full-batch gradients. Hint: the loss is a
# mean over the samples, and `dist.all_reduce` sums by default. What does the mean of the two half-batch
# means equal?


# %% tags=["exercise"]
def data_parallel_grads(rank, world_size):
    """One data-parallel backward on this rank; returns the gradients every rank should agree on."""
    x_mine, y_mine = x.chunk(world_size)[rank], y.chunk(world_size)[rank]  # this rank's half of the batch
    model.zero_grad()
    F.mse_loss(model(x_mine), y_mine).backward()
    for p in model.parameters():
        dist.all_reduce(p.grad)  # TODO: is the sum over ranks what one process on the whole batch gets?
    return [p.grad for p in model.parameters()]


# %% tags=["check"]
ranks = run_on_two_ranks(data_parallel_grads)

model.zero_grad()
F.mse_loss(model(x), y).backward()  # the reference: one process, the whole batch
names = [name for name, _ in model.named_parameters()]
reference = [p.grad.clone() for p in model.parameters()]

for rank, grads in ranks.items():
    for name, got, want in zip(names, grads, reference, strict=True):
        ratio = (got.norm() / want.norm()).item()
        assert torch.allclose(got, want, rtol=1e-5, atol=1e-7), (
            f"rank {rank}: the gradient of {name} is {ratio:.2f}x the full-batch gradient. all_reduce sums "
            "the ranks' gradients; the full-batch loss is the mean of the half-batch losses, so divide by "
            "the world size (that is what DDP does)"
        )
for a, b in zip(ranks[0], ranks[1], strict=True):
    assert torch.equal(a, b), "the two ranks ended with different gradients: their optimizers would drift apart"
print("both ranks hold the full-batch gradient")


# %% tags=["solution"]
def data_parallel_grads(rank, world_size):
    """One data-parallel backward on this rank; returns the gradients every rank should agree on."""
    x_mine, y_mine = x.chunk(world_size)[rank], y.chunk(world_size)[rank]  # equal halves: 4 samples each
    model.zero_grad()
    F.mse_loss(model(x_mine), y_mine).backward()
    for p in model.parameters():
        dist.all_reduce(p.grad)  # the sum of the ranks' mean-loss gradients...
        p.grad /= world_size  # ...divided by the world size is the gradient of the mean over all 8 samples
    return [p.grad for p in model.parameters()]


# %% [markdown]
# ## Exercise 2 · Give every epoch a new order
#
# `epoch_orders` runs three epochs of a `DataLoader` over 12 samples on one rank and records the sample ids
# the rank sees in each epoch. `DistributedSampler` reads the rank and the world size from the process
# group, so the two ranks split the data without exchanging a message. The check asks for two things: in
# every epoch the two ranks see disjoint samples that together cover the data set once, and each rank sees
# a different order in each epoch. As shipped, the first holds and the second does not, and nothing warns.
#
# Fix the loop. Hint: the sampler shuffles with a generator seeded by `seed + epoch`, and it only learns the
# epoch if you tell it.

# %% tags=["exercise"]
dataset = torch.arange(12)  # sample ids stand in for a map-style data set


def epoch_orders(rank, world_size, epochs=3):
    """{epoch: the sample ids this rank sees in that epoch, in order}."""
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)  # rank and world size come from the group
    loader = DataLoader(dataset, batch_size=3, sampler=sampler)
    orders = {}
    for epoch in range(epochs):
        # TODO: anything to do before each epoch?
        orders[epoch] = torch.cat(list(loader))
    return orders


# %% tags=["check"]
ranks = run_on_two_ranks(epoch_orders)

for epoch in ranks[0]:
    seen = sorted(ranks[0][epoch].tolist() + ranks[1][epoch].tolist())
    assert seen == list(range(len(dataset))), (
        f"epoch {epoch}: the ranks saw {seen}, not each sample once. The ranks must shuffle with the same "
        "seed (every rank computes the same permutation) and take disjoint slices of it"
    )
for rank, orders in ranks.items():
    for epoch in list(orders)[1:]:
        assert not torch.equal(orders[epoch], orders[0]), (
            f"rank {rank} saw the same order in epoch {epoch} as in epoch 0: call sampler.set_epoch(epoch) "
            "before each epoch, or the sampler replays epoch 0's shuffle forever"
        )
print("disjoint shards, and a new order every epoch")


# %% tags=["solution"]
dataset = torch.arange(12)  # sample ids stand in for a map-style data set


def epoch_orders(rank, world_size, epochs=3):
    """{epoch: the sample ids this rank sees in that epoch, in order}."""
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)  # the same seed on every rank: a partition
    loader = DataLoader(dataset, batch_size=3, sampler=sampler)
    orders = {}
    for epoch in range(epochs):
        sampler.set_epoch(epoch)  # reseeds the shuffle with seed + epoch, identically on every rank
        orders[epoch] = torch.cat(list(loader))
    return orders


# %% [markdown]
# ## Exercise 3 · Split an MLP across the ranks (tensor parallelism)
#
# `mlp` is too wide for one device, so each rank keeps half of it, the way Megatron-LM splits a transformer
# MLP. The first `Linear` is column-parallel: rank `r` keeps its rows of the weight (its half of the hidden
# units) and their biases, and computes its half of the hidden activations from the full input. The second
# `Linear` is row-parallel: rank `r` keeps the matching columns of the weight, so its product is a partial
# sum of the output, and one `all_reduce` adds the partial sums.
#
# The check runs `tensor_parallel_forward` on two ranks and compares each rank's output with the unsharded
# `mlp(x)`. As shipped the output is off by the same amount in every row. Fix it. Hint: how many times is
# the second layer's bias added to the final sum?

# %% tags=["exercise"]
mlp = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))


def tensor_parallel_forward(rank, world_size):
    """This rank's part of mlp(x), completed by one all-reduce; every rank returns the full output."""
    first, second = mlp[0], mlp[2]
    width = first.out_features // world_size
    mine = slice(rank * width, (rank + 1) * width)  # the hidden units this rank owns
    with torch.no_grad():
        hidden = F.relu(F.linear(x, first.weight[mine], first.bias[mine]))  # column-parallel: (8, 4) of (8, 8)
        partial = F.linear(hidden, second.weight[:, mine], second.bias)  # row-parallel: a partial sum
        dist.all_reduce(partial)  # TODO: what does the sum over ranks contain?
    return partial


# %% tags=["check"]
ranks = run_on_two_ranks(tensor_parallel_forward)

with torch.no_grad():
    expected = mlp(x)  # the unsharded MLP, in one process
for rank, out in ranks.items():
    assert out.shape == expected.shape, f"rank {rank} returned {tuple(out.shape)}, not {tuple(expected.shape)}"
    offset = (out - expected).mean(dim=0)
    assert torch.allclose(out, expected, atol=1e-5), (
        f"rank {rank}'s output differs from the unsharded MLP by {[round(v, 4) for v in offset.tolist()]} per "
        f"output feature, and the second layer's bias is {[round(v, 4) for v in mlp[2].bias.tolist()]}. The "
        "all-reduce adds the row-parallel layer's partial sums, so its bias must be added once, after the "
        "reduction, not on every rank"
    )
assert torch.equal(ranks[0], ranks[1]), "after the all-reduce every rank should hold the same output"
print("two half-MLPs plus one all-reduce equal the whole MLP")


# %% tags=["solution"]
mlp = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))


def tensor_parallel_forward(rank, world_size):
    """This rank's part of mlp(x), completed by one all-reduce; every rank returns the full output."""
    first, second = mlp[0], mlp[2]
    width = first.out_features // world_size
    mine = slice(rank * width, (rank + 1) * width)  # the hidden units this rank owns
    with torch.no_grad():
        # Column-parallel: the ReLU is elementwise, so it applies to this rank's hidden units locally.
        hidden = F.relu(F.linear(x, first.weight[mine], first.bias[mine]))
        partial = F.linear(hidden, second.weight[:, mine])  # row-parallel: a partial sum, no bias yet
        dist.all_reduce(partial)  # the sum of the partial sums is the full product
        out = partial + second.bias  # the bias once, after the reduction (or on exactly one rank before it)
    return out


# %% [markdown]
# ## What to say in the interview
#
# - "Data parallelism is one all-reduce of the gradients, divided by the world size. With a mean loss and
#   equal shards, the average of the ranks' gradients is exactly the full-batch gradient, so every rank
#   takes the same step and the replicas never need to exchange weights. DDP does the same, in buckets
#   that overlap backward."
# - "`all_reduce` sums. The averaging is the caller's job (DDP divides for you). With unequal shards you
#   weight by sample counts instead of dividing by the world size."
# - "`DistributedSampler` gives each rank a disjoint slice of one permutation seeded by `seed + epoch`.
#   Without `set_epoch` every epoch replays the same order, silently. The seed must be the same on every
#   rank, or the shards overlap."
# - "Tensor parallelism splits the first `Linear` by output features (column-parallel) and the second by
#   input features (row-parallel), so the activation needs no communication, and one all-reduce per MLP
#   in forward (one more in backward) finishes the job. The row-parallel bias goes in once, after the
#   reduction."
# - "Those all-reduces sit between layers on the critical path, which is why tensor parallelism stays
#   inside a node on NVLink, while data parallelism and FSDP span nodes."
