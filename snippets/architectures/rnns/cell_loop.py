"""An LSTMCell loop reproduces nn.LSTM; the gates are chunked i, f, g, o."""

# --8<-- [start:demo]
import torch
from torch import nn

lstm = nn.LSTM(8, 16, batch_first=True)
cell = nn.LSTMCell(8, 16)
with torch.no_grad():  # same weights, layer 0
    cell.weight_ih.copy_(lstm.weight_ih_l0)
    cell.weight_hh.copy_(lstm.weight_hh_l0)
    cell.bias_ih.copy_(lstm.bias_ih_l0)
    cell.bias_hh.copy_(lstm.bias_hh_l0)

x = torch.randn(4, 6, 8)
h, c = torch.zeros(4, 16), torch.zeros(4, 16)
steps = []
for t in range(x.shape[1]):  # one step at a time
    h, c = cell(x[:, t], (h, c))
    steps.append(h)
out, (h_n, c_n) = lstm(x)
print(torch.allclose(torch.stack(steps, 1), out, atol=1e-6),
      torch.allclose(c, c_n[0], atol=1e-6))
# > True True
# --8<-- [end:demo]

demo_h, demo_steps, demo_out, demo_h_n = h, steps, out, h_n

# --8<-- [start:gates]
import torch
from torch import nn

cell = nn.LSTMCell(8, 16)
x, h, c = torch.randn(4, 8), torch.randn(4, 16), torch.randn(4, 16)
gates = (x @ cell.weight_ih.T + cell.bias_ih
         + h @ cell.weight_hh.T + cell.bias_hh)
i, f, g, o = gates.chunk(4, dim=1)  # PyTorch's order
c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
h_new = torch.sigmoid(o) * torch.tanh(c_new)
print(torch.allclose(h_new, cell(x, (h, c))[0], atol=1e-6))
# > True

with torch.no_grad():  # forget-gate bias trick: the *sum* of both biases
    cell.bias_ih[16:32] = 1.0
    cell.bias_hh[16:32] = 0.0
print((cell.bias_ih + cell.bias_hh)[16:32].unique().tolist())
# > [1.0]
# --8<-- [end:gates]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    torch.testing.assert_close(torch.stack(demo_steps, 1), demo_out)
    torch.testing.assert_close(demo_h, demo_h_n[0])
    # Another order (Keras i, f, c, o reads the same; ONNX i, o, f, c does not).
    i2, o2, f2, g2 = gates.chunk(4, dim=1)
    c_wrong = torch.sigmoid(f2) * c + torch.sigmoid(i2) * torch.tanh(g2)
    assert not torch.allclose(torch.sigmoid(o2) * torch.tanh(c_wrong), h_new)


if __name__ == "__main__":
    _check()
