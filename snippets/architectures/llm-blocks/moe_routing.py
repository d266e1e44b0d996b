"""MoE routing: top-k, capacity and drops; the Switch aux loss is 1 at balance and E when collapsed."""

# --8<-- [start:demo]
import math

import torch


def route(logits, k, capacity_factor):
    """Top-k routing with a capacity per expert: drops and the aux loss."""
    T, E = logits.shape
    probs = logits.softmax(-1)
    gates, experts = probs.topk(k, dim=-1)  # (T, k)
    capacity = math.ceil(capacity_factor * T * k / E)
    flat = experts.T.reshape(-1)  # first choices first
    one_hot = torch.nn.functional.one_hot(flat, E)
    slot = (one_hot.cumsum(0) * one_hot).sum(-1) - 1  # place in the queue
    dropped = int((slot >= capacity).sum())
    f = one_hot[:T].float().mean(0)  # fraction whose first choice is i
    aux = E * (f * probs.mean(0)).sum()  # Switch load-balancing loss
    return capacity, dropped, round(aux.item(), 3)


T, E = 4096, 8
balanced = torch.randn(T, E) * 0.01  # a near-uniform router
collapsed = balanced.clone()
collapsed[:, 0] += 10.0  # every token prefers expert 0
print(route(balanced, k=1, capacity_factor=1.0))
# > (512, 57, 1.0)
print(route(balanced, k=1, capacity_factor=1.25))
# > (640, 0, 1.0)
print(route(collapsed, k=1, capacity_factor=1.0))
# > (512, 3584, 7.997)
# --8<-- [end:demo]

# --8<-- [start:moe]
import torch
import torch.nn.functional as F
from torch import nn


class TopKMoE(nn.Module):
    def __init__(self, d, hidden, n_experts, k):
        super().__init__()
        self.k = k
        self.router = nn.Linear(d, n_experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(d, hidden), nn.SiLU(), nn.Linear(hidden, d))
            for _ in range(n_experts))

    def forward(self, x):  # x: (T, d)
        top, idx = self.router(x).topk(self.k, dim=-1)
        gates = top.softmax(-1)  # Mixtral: softmax over the k chosen logits
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            token, slot = (idx == e).nonzero(as_tuple=True)
            if token.numel():
                y = expert(x[token]) * gates[token, slot, None]
                out.index_add_(0, token, y)
        return out


moe = TopKMoE(d=16, hidden=32, n_experts=4, k=2)
x = torch.randn(10, 16)
moe(x).square().mean().backward()
print(moe.router.weight.grad.abs().sum() > 0)  # learns through the gates
# > tensor(True)
# --8<-- [end:moe]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # The two gate orders agree: softmax over the top-k logits == softmax, top-k, renormalize.
    logits = torch.randn(6, 8)
    top, _ = logits.topk(2, dim=-1)
    probs_top, _ = logits.softmax(-1).topk(2, dim=-1)
    torch.testing.assert_close(top.softmax(-1), probs_top / probs_top.sum(-1, keepdim=True))
    # k=2 drops a few of 8192 assignments at capacity factor 1.
    cap, dropped, aux = route(balanced, k=2, capacity_factor=1.0)
    assert cap == 1024 and 0 < dropped < 0.02 * 8192 and abs(aux - 1.0) < 0.01
    assert route(collapsed, k=1, capacity_factor=1.0)[1] == T - 512
    # CE is shift-invariant, z-loss is not.
    targets = torch.randint(0, 8, (6,))
    shifted = logits + 30.0
    torch.testing.assert_close(F.cross_entropy(logits, targets), F.cross_entropy(shifted, targets))

    def z_loss(lg):
        return lg.logsumexp(-1).square().mean()

    assert z_loss(shifted) > 100 * z_loss(logits)
    # F.grouped_mm equals per-expert matmuls (bf16, 16-byte aligned strides).
    a = torch.randn(64, 32, dtype=torch.bfloat16)
    w = torch.randn(4, 32, 16, dtype=torch.bfloat16)
    offs = torch.tensor([16, 32, 48, 64], dtype=torch.int32)
    got = F.grouped_mm(a, w, offs=offs)
    ref = torch.cat([a[i * 16 : (i + 1) * 16] @ w[i] for i in range(4)])
    torch.testing.assert_close(got.float(), ref.float(), atol=0.1, rtol=0.02)


if __name__ == "__main__":
    _check()
