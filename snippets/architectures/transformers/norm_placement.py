"""Pre-LN vs Post-LN: the built-in layer is Post-LN; Post-LN's last-layer gradients don't shrink with depth."""

# --8<-- [start:defaults]
from torch import nn

layer = nn.TransformerEncoderLayer(d_model=64, nhead=4)
print(layer.linear1.out_features, layer.dropout.p, layer.norm_first,
      layer.self_attn.batch_first)
# > 2048 0.1 False False
encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
print(encoder.norm)  # Pre-LN stacks need norm=LayerNorm(d) for the final norm
# > None
# --8<-- [end:defaults]

# --8<-- [start:depth]
import torch
from torch import nn


def last_layer_grad(depth, norm_first):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0,
                                       batch_first=True, norm_first=norm_first)
    final = nn.LayerNorm(64) if norm_first else None  # Pre-LN: a final norm
    enc = nn.TransformerEncoder(layer, depth, norm=final,
                                enable_nested_tensor=False)
    x, y = torch.randn(4, 16, 64), torch.randn(4, 16, 64)
    (enc(x) - y).square().mean().backward()
    return enc.layers[-1].linear2.weight.grad.norm()


for depth in (2, 6, 18):
    post, pre = last_layer_grad(depth, False), last_layer_grad(depth, True)
    print(depth, f"Post/Pre = {post / pre:.1f}")
# > 2 Post/Pre = 1.0
# > 6 Post/Pre = 1.7
# > 18 Post/Pre = 5.2
# --8<-- [end:depth]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import warnings

    import pytest

    assert layer.activation is torch.nn.functional.relu and layer.norm1.eps == 1e-5
    nested = "enable_nested_tensor is True, but self.use_nested_tensor is False because encoder_layer.norm_first"
    with pytest.warns(UserWarning, match=nested):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, norm_first=True), 2)
    ratios = [last_layer_grad(d, False) / last_layer_grad(d, True) for d in (2, 6, 18)]
    assert ratios[0] < ratios[1] < ratios[2] and ratios[2] > 4
    # The residual stream: Post-LN stays at sqrt(d) = 8, Pre-LN grows with depth.
    torch.manual_seed(0)
    norms = {}
    with warnings.catch_warnings(), torch.no_grad():
        for nf in (False, True):
            h, seen = torch.randn(4, 16, 64), []
            for _ in range(12):
                h = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True, norm_first=nf)(h)
                seen.append(h.norm(dim=-1).mean().item())
            norms[nf] = seen
    assert all(abs(n - 8.0) < 0.1 for n in norms[False])
    assert norms[True][0] < norms[True][5] < norms[True][11] and norms[True][11] > 11


if __name__ == "__main__":
    _check()
