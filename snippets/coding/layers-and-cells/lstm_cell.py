"""C11 · LSTM cell."""

# --8<-- [start:prompt]
import torch
from torch import nn


class LSTMCell(nn.Module):
    """One step of an LSTM, a drop-in for nn.LSTMCell.

    Parameters named and shaped as in nn.LSTMCell: weight_ih (4H, I),
    weight_hh (4H, H), bias_ih (4H,), bias_hh (4H,), initialised
    uniformly in ±1/√H. forward(x (B, I), state=None) returns (h, c),
    each (B, H); state None means zeros. Not allowed: torch.lstm_cell,
    nn.LSTMCell / nn.LSTM.
    """

    def __init__(self, input_size, hidden_size):
        super().__init__()
        raise NotImplementedError

    def forward(self, x, state=None):
        raise NotImplementedError
# --8<-- [end:prompt]

_stub = LSTMCell

# --8<-- [start:wrong]
import torch
from torch import nn


class LSTMCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = H = hidden_size
        k = H**-0.5

        def u(*shape):
            return nn.Parameter(torch.empty(shape).uniform_(-k, k))

        self.weight_ih, self.weight_hh = u(4 * H, input_size), u(4 * H, H)
        self.bias_ih, self.bias_hh = u(4 * H), u(4 * H)

    def forward(self, x, state=None):
        if state is None:
            zeros = x.new_zeros(x.shape[0], self.hidden_size)
            state = (zeros, zeros)
        h, c = state
        gates = x @ self.weight_ih.T + h @ self.weight_hh.T
        gates = gates + self.bias_ih + self.bias_hh
        i, f, o, g = gates.chunk(4, dim=-1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return h, c
# --8<-- [end:wrong]

_wrong = LSTMCell
WRONG_MESSAGE = "PyTorch stacks the gates as input, forget, cell (g), output"

# --8<-- [start:solution]
import torch
from torch import nn


class LSTMCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = H = hidden_size
        k = H**-0.5

        def u(*shape):
            return nn.Parameter(torch.empty(shape).uniform_(-k, k))

        self.weight_ih, self.weight_hh = u(4 * H, input_size), u(4 * H, H)
        self.bias_ih, self.bias_hh = u(4 * H), u(4 * H)

    def forward(self, x, state=None):
        if state is None:
            zeros = x.new_zeros(x.shape[0], self.hidden_size)
            state = (zeros, zeros)
        h, c = state
        gates = x @ self.weight_ih.T + h @ self.weight_hh.T
        gates = gates + self.bias_ih + self.bias_hh
        i, f, g, o = gates.chunk(4, dim=-1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return h, c
# --8<-- [end:solution]

_solution = LSTMCell

# ---- the grader: hidden on the page, the notebook's check cell ----
import runpy
from pathlib import Path

_KIT = runpy.run_path(str(Path(__file__).resolve().parents[1] / "index" / "grading_kit.py"))
call, checks, close, devices, forbid, on_fake_gpu, randn = (
    _KIT[n] for n in ("call", "checks", "close", "devices", "forbid", "on_fake_gpu", "randn")
)


def grade(LSTMCell):
    import torch
    from torch import nn

    step = checks("C11", "construct", "parameters", "device", "values", "unroll", "gradients", "edges")
    banned = ("lstm_cell", "lstm", "_thnn_fused_lstm_cell")

    def run(cell, *args):
        with forbid(*banned):
            return call(cell, *args)

    def pair(dtype=torch.float64, device="cpu", seed=0):
        torch.manual_seed(seed)
        ref = nn.LSTMCell(3, 5).to(device, dtype)
        mine = call(LSTMCell, 3, 5).to(device, dtype)
        call(mine.load_state_dict, ref.state_dict(), strict=True)
        return mine, ref

    with step("construct"):
        cell = call(LSTMCell, 3, 5)
        h, c = run(cell, randn(2, 3))
    with step("parameters"):
        ref = nn.LSTMCell(3, 5)
        got = {k: tuple(v.shape) for k, v in cell.state_dict().items()}
        want = {k: tuple(v.shape) for k, v in ref.state_dict().items()}
        assert got == want, f"your parameters are {got}; nn.LSTMCell's are {want}"
        bound = 5**-0.5
        assert all(p.abs().max() <= bound for p in cell.parameters()), "initialise uniformly in ±1/√H"
    with step("device"):
        note = on_fake_gpu(lambda m, x: m(x), cell, randn(2, 3))
    with step("values"):
        for dev in devices():
            for dtype in (torch.float64, torch.float32):
                mine, ref = pair(dtype, dev)
                x = randn(4, 3, dtype=dtype, device=dev)
                state = (randn(4, 5, seed=1, dtype=dtype, device=dev), randn(4, 5, seed=2, dtype=dtype, device=dev))
                got, want = run(mine, x, state), ref(x, state)
                try:
                    for name, g, w in zip("hc", got, want, strict=True):
                        close(g, w, f"{name} after one step, {dtype} on {dev}")
                except AssertionError as error:
                    raise AssertionError(
                        f"with nn.LSTMCell's weights your state differs ({error}). PyTorch stacks the gates as "
                        "input, forget, cell (g), output"
                    ) from None
    with step("unroll"):
        mine, ref = pair()
        xs = randn(20, 2, 3, dtype=torch.float64)
        s_mine = s_ref = None
        for t in range(20):
            s_mine, s_ref = run(mine, xs[t], s_mine), ref(xs[t], s_ref)
        close(s_mine[0], s_ref[0], "h after 20 steps from state=None")
        close(s_mine[1], s_ref[1], "c after 20 steps from state=None")
    with step("gradients"):
        mine, ref = pair()
        xs = randn(3, 2, 3, dtype=torch.float64)
        for cell in (mine, ref):
            state = None
            for t in range(3):
                state = run(cell, xs[t], state) if cell is mine else cell(xs[t], state)
            (state[0] * randn(2, 5, seed=7, dtype=torch.float64)).sum().backward()
        for (name, p), q in zip(mine.named_parameters(), ref.parameters(), strict=True):
            assert p.grad is not None, f"{name} got no gradient"
            close(p.grad, q.grad, f"the gradient of {name} after 3 steps")
    with step("edges"):
        mine, ref = pair()
        x = randn(1, 3, dtype=torch.float64)
        close(run(mine, x)[0], ref(x)[0], "B=1 from state=None")
    where = ", ".join(map(str, devices()))
    return f"C11 passes: equals nn.LSTMCell over 20 steps, gradients included, on {where}; {note}"


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest

    assert grade(_solution).startswith("C11 passes")
    with pytest.raises(AssertionError, match=r"^C11 · check 1/7 \(construct\): LSTMCell raised NotImplementedError"):
        grade(_stub)
    with pytest.raises(AssertionError, match=r"^C11 · check 4/7 \(values\): with nn.LSTMCell's weights .*"
                       + re.escape(WRONG_MESSAGE)):
        grade(_wrong)
    # the wrong attempt passes the usual unit test: shapes, and a loss that goes down when trained
    h, c = _wrong(3, 5)(torch.randn(2, 3))
    assert h.shape == c.shape == (2, 5)

    class CpuState(_solution):
        def forward(self, x, state=None):
            zeros = torch.zeros(x.shape[0], self.hidden_size)
            return super().forward(x, (zeros, zeros) if state is None else state)

    with pytest.raises(AssertionError, match=r"check 3/7 \(device\): not device-agnostic"):
        grade(CpuState)
    with pytest.raises(NotImplementedError):
        _stub.forward(None, torch.ones(1, 3))


if __name__ == "__main__":
    _check()
