"""SwiGLU: down(silu(gate(x)) * up(x)); F.glu gates with a sigmoid; no nn.SwiGLU in torch."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.gate = nn.Linear(d, hidden, bias=False)
        self.up = nn.Linear(d, hidden, bias=False)
        self.down = nn.Linear(hidden, d, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


def llama_hidden(d, multiple_of=256):
    h = int(2 * 4 * d / 3)  # about 8d/3 keeps ~8d^2 parameters
    return multiple_of * ((h + multiple_of - 1) // multiple_of)


print(llama_hidden(4096))
# > 11008
a, b = torch.randn(2, 4, 6).unbind(0)
print(torch.allclose(F.glu(torch.cat([a, b], -1)), a * torch.sigmoid(b)))
# > True
print(hasattr(nn, "SwiGLU"), hasattr(F, "swiglu"))  # GLU is not SwiGLU
# > False False
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    x = torch.randn(3, 16)
    m = SwiGLU(16, 40)
    torch.testing.assert_close(m(x), (F.silu(x @ m.gate.weight.T) * (x @ m.up.weight.T)) @ m.down.weight.T)
    torch.testing.assert_close(F.silu(x), x * torch.sigmoid(x))
    assert hasattr(nn, "GLU")
    with torch.device("meta"):
        n_swiglu = sum(p.numel() for p in SwiGLU(4096, 11008).parameters())
    assert n_swiglu == 135_266_304 and 8 * 4096**2 == 134_217_728
    # A 4d hidden size with three matrices is 1.5x a two-matrix MLP.
    with torch.device("meta"):
        wide = sum(p.numel() for p in SwiGLU(64, 256).parameters())
    assert wide == 3 * 64 * 256 == 1.5 * 8 * 64**2
    assert [n for n, _ in nn.LayerNorm(8, bias=False).named_parameters()] == ["weight"]
    assert [n for n, _ in nn.RMSNorm(8).named_parameters()] == ["weight"]


if __name__ == "__main__":
    _check()
