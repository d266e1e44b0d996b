"""C12 · GRU cell."""

# --8<-- [start:prompt]
import torch
from torch import nn


class GRUCell(nn.Module):
    """One step of a GRU, a drop-in for nn.GRUCell.

    Parameters named and shaped as in nn.GRUCell: weight_ih (3H, I),
    weight_hh (3H, H), bias_ih (3H,), bias_hh (3H,), gates stacked as
    (r, z, n) and initialised uniformly in ±1/√H. forward(x (B, I),
    h=None) returns the new h (B, H); h None means zeros. Not allowed:
    torch.gru_cell, nn.GRUCell / nn.GRU.
    """

    def __init__(self, input_size, hidden_size):
        super().__init__()
        raise NotImplementedError

    def forward(self, x, h=None):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = GRUCell

# --8<-- [start:wrong]
import torch
from torch import nn


class GRUCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = H = hidden_size
        k = H**-0.5

        def u(*shape):
            return nn.Parameter(torch.empty(shape).uniform_(-k, k))

        self.weight_ih, self.weight_hh = u(3 * H, input_size), u(3 * H, H)
        self.bias_ih, self.bias_hh = u(3 * H), u(3 * H)

    def forward(self, x, h=None):
        if h is None:
            h = x.new_zeros(x.shape[0], self.hidden_size)
        i_r, i_z, i_n = (x @ self.weight_ih.T + self.bias_ih).chunk(3, -1)
        h_r, h_z, h_n = (h @ self.weight_hh.T + self.bias_hh).chunk(3, -1)
        r, z = (i_r + h_r).sigmoid(), (i_z + h_z).sigmoid()
        w_hn, b_hn = self.weight_hh.chunk(3)[2], self.bias_hh.chunk(3)[2]
        n = (i_n + (r * h) @ w_hn.T + b_hn).tanh()  # the 2014 paper's form
        return (1 - z) * n + z * h
# --8<-- [end:wrong]

_wrong = GRUCell
WRONG_MESSAGE = "PyTorch applies r to (W_hn·h + b_hn), after the matmul, not to h before it"

# --8<-- [start:solution]
import torch
from torch import nn


class GRUCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = H = hidden_size
        k = H**-0.5

        def u(*shape):
            return nn.Parameter(torch.empty(shape).uniform_(-k, k))

        self.weight_ih, self.weight_hh = u(3 * H, input_size), u(3 * H, H)
        self.bias_ih, self.bias_hh = u(3 * H), u(3 * H)

    def forward(self, x, h=None):
        if h is None:
            h = x.new_zeros(x.shape[0], self.hidden_size)
        i_r, i_z, i_n = (x @ self.weight_ih.T + self.bias_ih).chunk(3, -1)
        h_r, h_z, h_n = (h @ self.weight_hh.T + self.bias_hh).chunk(3, -1)
        r, z = (i_r + h_r).sigmoid(), (i_z + h_z).sigmoid()
        n = (i_n + r * h_n).tanh()  # r scales W_hn·h + b_hn
        return (1 - z) * n + z * h
# --8<-- [end:solution]

_solution = GRUCell

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "on_fake_gpu", "randn")
)


def grade(GRUCell):
    import torch
    from torch import nn

    step = checks("C12", "construct", "parameters", "device", "values", "unroll", "gradients", "edges")
    banned = ("gru_cell", "gru", "_thnn_fused_gru_cell")

    def run(cell, *args):
        with forbid(*banned):
            return call(cell, *args)

    def pair(dtype=torch.float64, device="cpu", seed=0):
        torch.manual_seed(seed)
        ref = nn.GRUCell(3, 5).to(device, dtype)
        mine = call(GRUCell, 3, 5).to(device, dtype)
        call(mine.load_state_dict, ref.state_dict(), strict=True)
        return mine, ref

    with step("construct"):
        cell = call(GRUCell, 3, 5)
        run(cell, randn(2, 3))
    with step("parameters"):
        ref = nn.GRUCell(3, 5)
        got = {k: tuple(v.shape) for k, v in cell.state_dict().items()}
        want = {k: tuple(v.shape) for k, v in ref.state_dict().items()}
        assert got == want, f"your parameters are {got}; nn.GRUCell's are {want}"
        bound = 5**-0.5
        assert all(p.abs().max() <= bound for p in cell.parameters()), "initialise uniformly in ±1/√H"
    with step("device"):
        note = on_fake_gpu(lambda m, x: m(x), cell, randn(2, 3))
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32):
                mine, ref = pair(dtype, dev)
                x = randn(4, 3, dtype=dtype, device=dev)
                state = randn(4, 5, seed=1, dtype=dtype, device=dev)
                got, want = run(mine, x, state), ref(x, state)
                try:
                    close(got, want, f"h after one step, {dtype} on {dev}")
                except AssertionError as error:
                    raise AssertionError(
                        f"with nn.GRUCell's weights your h differs ({error}). PyTorch applies r to "
                        "(W_hn·h + b_hn), after the matmul, not to h before it"
                    ) from None
    with step("unroll"):
        mine, ref = pair()
        xs = randn(20, 2, 3, dtype=torch.float64)
        s_mine = s_ref = None
        for t in range(20):
            s_mine, s_ref = run(mine, xs[t], s_mine), ref(xs[t], s_ref)
        close(s_mine, s_ref, "h after 20 steps from h=None")
    with step("gradients"):
        mine, ref = pair()
        xs = randn(3, 2, 3, dtype=torch.float64)
        for cell in (mine, ref):
            state = None
            for t in range(3):
                state = run(cell, xs[t], state) if cell is mine else cell(xs[t], state)
            (state * randn(2, 5, seed=7, dtype=torch.float64)).sum().backward()
        for (name, p), q in zip(mine.named_parameters(), ref.parameters(), strict=True):
            assert p.grad is not None, f"{name} got no gradient"
            close(p.grad, q.grad, f"the gradient of {name} after 3 steps")
    with step("edges"):
        mine, ref = pair()
        x = randn(1, 3, dtype=torch.float64)
        close(run(mine, x), ref(x), "B=1 from h=None")
    where = ", ".join(map(str, devices()))
    return f"C12 passes: equals nn.GRUCell over 20 steps, gradients included, on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C12 passes")
    with pytest.raises(AssertionError, match=r"^C12 · check 1/7 \(construct\): GRUCell raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C12 · check 4/7 \(values\): with nn.GRUCell's weights .*"
                       + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: the shape; and it is a valid GRU, only not torch's
    assert _wrong(3, 5)(torch.randn(2, 3)).shape == (2, 5)

    class CpuState(_solution):
        def forward(self, x, h=None):
            return super().forward(x, torch.zeros(x.shape[0], self.hidden_size) if h is None else h)

    with pytest.raises(AssertionError, match=r"check 3/7 \(device\): not device-agnostic"):
        grade(CpuState)
    with pytest.raises(NotImplementedError):
        _stub.forward(None, torch.ones(1, 3))


if __name__ == "__main__":
    _check()
