"""ViT's patch embedding is a strided conv: the same as unfold + Linear in (c, p, p) order."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn

P, D = 8, 16
conv = nn.Conv2d(3, D, kernel_size=P, stride=P)
img = torch.randn(2, 3, 32, 32)
tokens = conv(img).flatten(2).transpose(1, 2)  # (N, patches, D)
print(tuple(tokens.shape))
# > (2, 16, 16)
patches = F.unfold(img, kernel_size=P, stride=P).transpose(1, 2)  # (c, p, p)
linear = F.linear(patches, conv.weight.view(D, -1), conv.bias)
print(torch.allclose(tokens, linear, atol=1e-5))
# > True
# --8<-- [end:demo]

# --8<-- [start:resolution]
import torch
from torchvision.models.vision_transformer import (
    VisionTransformer,
    interpolate_embeddings,
)

vit = VisionTransformer(image_size=32, patch_size=8, num_layers=1,
                        num_heads=2, hidden_dim=16, mlp_dim=32, num_classes=10)
try:
    vit(torch.randn(1, 3, 48, 48))
except AssertionError as e:
    print(e)
# > Wrong image height! Expected 32 but got 48!
state = vit.state_dict()
print(tuple(state["encoder.pos_embedding"].shape))  # 16 patches + class
# > (1, 17, 16)
new_state = interpolate_embeddings(48, 8, state)  # bicubic, 2-D
big = VisionTransformer(image_size=48, patch_size=8, num_layers=1,
                        num_heads=2, hidden_dim=16, mlp_dim=32, num_classes=10)
big.load_state_dict(new_state)
print(tuple(big(torch.randn(1, 3, 48, 48)).shape))
# > (1, 10)
# --8<-- [end:resolution]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    from torchvision.models import vit_b_16

    torch.testing.assert_close(tokens, linear, atol=1e-5, rtol=1e-5)
    # A view/permute patchify in (c, p, p) order equals unfold; (p, p, c) does not.
    n = img.shape[0]
    grid = img.view(n, 3, 4, P, 4, P)  # (n, c, gh, p, gw, p)
    cpp = grid.permute(0, 2, 4, 1, 3, 5).reshape(n, 16, -1)
    ppc = grid.permute(0, 2, 4, 3, 5, 1).reshape(n, 16, -1)
    torch.testing.assert_close(cpp, patches)
    assert not torch.allclose(ppc, patches)
    # torchvision's vit_b_16, built on meta: nothing allocated or downloaded.
    with torch.device("meta"):
        model = vit_b_16()
    assert sum(p.numel() for p in model.parameters()) == 86_567_656
    assert model.conv_proj.kernel_size == (16, 16) and model.conv_proj.stride == (16, 16)
    assert model.class_token.shape == (1, 1, 768) and model.encoder.pos_embedding.shape == (1, 197, 768)
    assert [name for name, _ in model.encoder.layers[0].named_children()] == [
        "ln_1", "self_attention", "dropout", "ln_2", "mlp"
    ]  # Pre-LN: ln_1 before attention
    # interpolate_embeddings mutates the dict it is given and returns it.
    assert new_state is state and new_state["encoder.pos_embedding"].shape == (1, 37, 16)


if __name__ == "__main__":
    _check()
