"""Why attention replaced RNNs: path length (gradient over distance) and exact parallel training."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn

T, D = 200, 16
x = torch.randn(1, T, D, requires_grad=True)
lstm = nn.LSTM(D, D, batch_first=True)
lstm(x)[0][0, -1].sum().backward()  # how much does the last output
lstm_grad = x.grad[0].norm(dim=-1)  # depend on each input?
x.grad = None
q = k = v = x.view(1, 1, T, D)
attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
attn[0, 0, -1].sum().backward()
attn_grad = x.grad[0].norm(dim=-1)
for t in (T - 1, T - 50, 0):  # does input t still reach the last output?
    print(t, "LSTM:", lstm_grad[t].item() > 1e-6,
          "attention:", attn_grad[t].item() > 1e-6)
# > 199 LSTM: True attention: True
# > 150 LSTM: False attention: True
# > 0 LSTM: False attention: True
# --8<-- [end:demo]

# --8<-- [start:parallel]
import torch
import torch.nn.functional as F

q, k, v = torch.randn(3, 1, 2, 8, 16).unbind(0)  # (N, heads, T, hd)
together = F.scaled_dot_product_attention(q, k, v, is_causal=True)
one_by_one = torch.cat([  # step t sees the prefix 0..t, as decoding does
    F.scaled_dot_product_attention(q[:, :, t:t + 1], k[:, :, :t + 1],
                                   v[:, :, :t + 1])
    for t in range(8)
], dim=2)
print(torch.allclose(together, one_by_one, atol=1e-6))
# > True
# --8<-- [end:parallel]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert lstm_grad[0] < 1e-20 < 1e-4 < attn_grad[0]
    assert lstm_grad[T - 50] < 1e-8 and attn_grad[T - 50] > 1e-4
    assert lstm_grad[-1] > 0.1
    torch.testing.assert_close(together, one_by_one)


if __name__ == "__main__":
    _check()
