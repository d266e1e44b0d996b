"""nn.LSTM's outputs: output is the top layer at every step, h_n every layer's last step, never batch-first."""

# --8<-- [start:demo]
import torch
from torch import nn

H = 20
lstm = nn.LSTM(10, H, num_layers=2, bidirectional=True, batch_first=True)
x = torch.randn(3, 5, 10)  # (N, L, H_in)
out, (h_n, c_n) = lstm(x)
print(tuple(out.shape), tuple(h_n.shape))  # h_n is NOT batch-first
# > (3, 5, 40) (4, 3, 20)
h = h_n.view(2, 2, 3, H)  # (layers, directions, N, H)
print(torch.allclose(h[-1, 0], out[:, -1, :H]),  # forward: last step
      torch.allclose(h[-1, 1], out[:, 0, H:]))  # backward: first step
# > True True
summary = torch.cat([h_n[-2], h_n[-1]], dim=-1)  # both directions, top layer
print(tuple(summary.shape))
# > (3, 40)
# --8<-- [end:demo]

# --8<-- [start:params]
from torch import nn


def count(m):
    return sum(p.numel() for p in m.parameters())


print(count(nn.LSTM(10, 20)), 4 * (20 * 10 + 20 * 20 + 2 * 20))
# > 2560 2560
print(count(nn.GRU(10, 20)), count(nn.LSTM(10, 20, 2, bidirectional=True)))
# > 1920 15040
# --8<-- [end:params]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import math

    import pytest

    assert not torch.allclose(h_n[-1], out[:, -1, H:])  # h_n[-1] is not "the last output"
    assert c_n.shape == h_n.shape
    torch.testing.assert_close(summary[:, :H], out[:, -1, :H])
    # GRU returns (output, h_n), not a tuple of states.
    gru_out, gru_h = nn.GRU(10, 20)(torch.randn(5, 3, 10))
    assert isinstance(gru_h, torch.Tensor) and gru_h.shape == (1, 3, 20)
    # Unbatched input.
    o, (hh, _) = nn.LSTM(10, 20)(torch.randn(5, 10))
    assert o.shape == (5, 20) and hh.shape == (1, 20)
    # proj_size makes h smaller than c (oneDNN warns on CPU).
    proj = nn.LSTM(10, 20, proj_size=5)
    with pytest.warns(UserWarning, match="LSTM with projections is not supported with oneDNN"):
        o, (hp, cp) = proj(torch.randn(5, 3, 10))
    assert o.shape == (5, 3, 5) and hp.shape == (1, 3, 5) and cp.shape == (1, 3, 20)
    # dropout with one layer only warns.
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        one_layer = nn.LSTM(10, 20, dropout=0.5)
    seq = torch.randn(5, 3, 10)
    assert one_layer.training and torch.equal(one_layer(seq)[0], one_layer(seq)[0])  # no dropout at all
    two_layers = nn.LSTM(10, 20, num_layers=2, dropout=0.5)  # between layers 1 and 2 only
    assert not torch.equal(two_layers(seq)[0], two_layers(seq)[0])
    assert torch.equal(two_layers(seq)[1][0][0], two_layers(seq)[1][0][0])  # layer 1's state: before any dropout
    # A batch-first h0 raises.
    single = nn.LSTM(10, 20, batch_first=True)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 20\), got \[3, 1, 20\]"):
        single(torch.randn(3, 5, 10), (torch.zeros(3, 1, 20), torch.zeros(3, 1, 20)))
    # Every weight and bias starts within U(+-1/sqrt(H)).
    m = nn.LSTM(10, 25)
    assert all(p.abs().max() <= 1 / math.sqrt(25) for p in m.parameters())
    assert m.weight_ih_l0.shape == (100, 10) and m.weight_hh_l0.shape == (100, 25)


if __name__ == "__main__":
    _check()
