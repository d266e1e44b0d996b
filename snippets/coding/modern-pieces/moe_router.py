"""C37 · MoE top-k router with a load-balancing loss."""

# --8<-- [start:prompt]
import torch


def route(x, w_gate, k):
    """Top-k routing for a mixture of experts, with the load-balancing loss.

    x (T, d), w_gate (E, d). probs = softmax(x @ w_gate.T) in float32;
    each token's k most probable experts, their probabilities renormalised
    to sum to 1. aux = E * sum_i f_i * P_i, where f_i is the fraction of
    the T*k assignments that went to expert i (no gradient) and P_i the
    mean of probs[:, i]. Returns (weights (T, k) float32, experts (T, k)
    int64, aux 0-dim).
    """
    raise NotImplementedError


def moe_forward(x, experts, weights, idx):
    """sum_j weights[t, j] * experts[idx[t, j]](x[t]) for every token t,
    calling each expert at most once, on exactly the tokens routed to it.
    Returns (T, d) in x's dtype."""
    raise NotImplementedError
# --8<-- [end:prompt]


_stub = (route, moe_forward)


# --8<-- [start:wrong]
import torch


def route(x, w_gate, k):
    probs = torch.softmax((x @ w_gate.T).float(), dim=-1)
    top, experts = probs.topk(k, dim=-1)
    weights = top / top.sum(dim=-1, keepdim=True)
    E = w_gate.shape[0]
    counts = torch.bincount(experts.flatten(), minlength=E)
    f = counts.to(probs.dtype) / experts.numel()
    aux = (f * probs.mean(dim=0)).sum()
    return weights, experts, aux


def moe_forward(x, experts, weights, idx):
    out = torch.zeros_like(x)
    for e, expert in enumerate(experts):
        token, slot = (idx == e).nonzero(as_tuple=True)
        if len(token) > 0:
            w = weights[token, slot, None].to(x.dtype)
            out.index_add_(0, token, w * expert(x[token]))
    return out
# --8<-- [end:wrong]


_wrong = (route, moe_forward)
WRONG_MESSAGE = 'multiply by E, so that uniform routing scores 1'


# --8<-- [start:solution]
import torch


def route(x, w_gate, k):
    probs = torch.softmax((x @ w_gate.T).float(), dim=-1)
    top, experts = probs.topk(k, dim=-1)
    weights = top / top.sum(dim=-1, keepdim=True)
    E = w_gate.shape[0]
    counts = torch.bincount(experts.flatten(), minlength=E)
    f = counts.to(probs.dtype) / experts.numel()
    aux = E * (f * probs.mean(dim=0)).sum()
    return weights, experts, aux


def moe_forward(x, experts, weights, idx):
    out = torch.zeros_like(x)
    for e, expert in enumerate(experts):
        token, slot = (idx == e).nonzero(as_tuple=True)
        if len(token) > 0:
            w = weights[token, slot, None].to(x.dtype)
            out.index_add_(0, token, w * expert(x[token]))
    return out
# --8<-- [end:solution]


_solution = (route, moe_forward)


# ---- grader: the notebook's check cell; hidden on the page ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
devices, call, close, on_fake_gpu = (_KIT[n] for n in ("devices", "call", "close", "on_fake_gpu"))


def grade(route, moe_forward):
    import torch

    def fail(what, msg):
        raise AssertionError(f"C37 · {what}: {msg}")

    def make_expert(e, dev, calls):
        lin = torch.nn.Linear(d, d).double().to(dev)

        def run(rows):
            calls.setdefault(e, []).append(rows.shape[0])
            return lin(rows)

        return lin, run

    gen = torch.Generator().manual_seed(0)
    T, d, E, k = 16, 8, 8, 2
    x = torch.randn(T, d, generator=gen, dtype=torch.float64)
    w_gate = torch.randn(E, d, generator=gen, dtype=torch.float64)
    call(route, x, w_gate, k)  # construction and signature, on the CPU
    on_fake_gpu(lambda x, w: route(x, w, k)[:2], x, w_gate, like="x")
    for dev in devices():
        xd, wd = x.to(dev), w_gate.to(dev).requires_grad_()
        # uniform routing scores exactly 1, whatever the ties
        _, _, flat = call(route, xd, torch.zeros(E, d, dtype=torch.float64, device=dev), k)
        if abs(float(flat) - 1 / E) < 1e-6:
            fail("aux", f"balanced routing (w_gate = 0) gave aux {float(flat):.3f}, not 1.0: multiply by E, so that "
                 "uniform routing scores 1 whatever E is")
        close(torch.as_tensor(flat).double().cpu(), torch.tensor(1.0, dtype=torch.float64),
              "aux for w_gate = 0 (uniform routing) must be exactly 1", 1e-6, 1e-6)
        weights, experts, aux = call(route, xd, wd, k)
        probs = torch.softmax((xd @ wd.T).float(), -1)
        top, want_e = probs.topk(k, -1)
        close(experts, want_e, "experts: each token's k most probable", 0, 0)
        close(weights, (top / top.sum(-1, keepdim=True)).detach(), "weights: the top-k probabilities renormalised")
        f = torch.bincount(want_e.flatten(), minlength=E).float() / (T * k)
        want_aux = E * (f * probs.mean(0)).sum()
        close(aux.detach(), want_aux.detach(), "aux = E * sum(f * P)")
        (g,) = torch.autograd.grad(aux, wd)
        (want_g,) = torch.autograd.grad(want_aux, wd)
        close(g, want_g, "aux's gradient to w_gate (through P only; f carries none)", 1e-5, 1e-5)
        # the dispatch: each expert once, on exactly its tokens
        calls = {}
        made = [make_expert(e, dev, calls) for e in range(E)]
        idx = experts.clone()
        idx[idx == 7] = 6  # expert 7 gets no tokens
        got = call(moe_forward, xd, [run for _, run in made], weights.detach(), idx)
        want = torch.zeros_like(xd)
        for t in range(T):
            for j in range(k):
                want[t] += weights[t, j].double().detach() * made[int(idx[t, j])][0](xd[t])
        close(got.detach(), want.detach(), "moe_forward against a per-token dense loop")
        for e in range(E):
            n = int((idx == e).sum())
            if calls.get(e, []) not in ([n], [] if n == 0 else [n]):
                fail("dispatch", f"expert {e} was called on {calls.get(e, [])} rows; it has {n} routed tokens: call "
                     "each expert once, on exactly its tokens")
    return "C37 passes: top-k routing, renormalised weights, aux (1.0 when uniform) and its gradient, one call each"


def _check():
    import re

    import pytest

    assert grade(*_solution).startswith("C37 passes")
    with pytest.raises(AssertionError, match="raised NotImplementedError"):
        grade(*_stub)
    with pytest.raises(AssertionError, match=re.escape(WRONG_MESSAGE)):
        grade(*_wrong)
    import torch

    with pytest.raises(NotImplementedError):
        _stub[1](None, None, None, None)
    # the wrong attempt's dispatch is right: its bug is the aux loss's missing factor E
    x = torch.randn(6, 4)
    experts = [torch.nn.Linear(4, 4) for _ in range(3)]
    weights, idx, _ = _solution[0](x, torch.randn(3, 4), 2)
    torch.testing.assert_close(_wrong[1](x, experts, weights, idx), _solution[1](x, experts, weights, idx))

    def per_token(x, experts, weights, idx):  # a mutant that calls an expert once per (token, slot)
        rows = [sum(weights[t, j].to(x.dtype) * experts[int(idx[t, j])](x[t : t + 1])[0] for j in range(idx.shape[1]))
                for t in range(len(x))]
        return torch.stack(rows)

    with pytest.raises(AssertionError, match=r"^C37 · dispatch: expert 0 was called on \[1(, 1)+\] rows; it has"):
        grade(_solution[0], per_token)


if __name__ == "__main__":
    _check()
