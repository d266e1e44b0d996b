"""GPU lane: the mask conventions hold under every SDPA kernel that accepts the mask; flash accepts none."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

E, heads, L = 128, 2, 64  # head dim 64: every fused kernel supports it
D = E // heads
mha = nn.MultiheadAttention(E, heads, batch_first=True, device="cuda")
x = torch.randn(2, L, E, device="cuda")
allowed = torch.rand(L, L, device="cuda") > 0.3
allowed.fill_diagonal_(True)
kpm = torch.zeros(2, L, dtype=torch.bool, device="cuda")
kpm[1, -8:] = True  # True = padding, for MHA
slopes = torch.tensor([0.5, 0.25], device="cuda")[None, :, None, None]
pos = torch.arange(L, device="cuda")
alibi = slopes * (pos[None, :] - pos[:, None]).clamp(max=0)  # (1, h, L, L)

with sdpa_kernel(SDPBackend.MATH):  # float32 references
    refs = {
        "bool": mha(x, x, x, attn_mask=~allowed, need_weights=False)[0],
        "padding": mha(x, x, x, key_padding_mask=kpm,
                       need_weights=False)[0],
    }


def attend(mask, dtype):  # SDPA with MHA's weights; True = keep
    qkv = F.linear(x, mha.in_proj_weight, mha.in_proj_bias).to(dtype)
    q, k, v = qkv.view(2, L, 3, heads, D).permute(2, 0, 3, 1, 4)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return mha.out_proj(o.float().transpose(1, 2).reshape(2, L, E))


with sdpa_kernel(SDPBackend.MATH):
    refs["alibi"] = attend(alibi, torch.float32)
refs["float"] = refs["bool"]
bf16 = torch.bfloat16
masks = {
    "bool": allowed,  # SDPA: True = keep, so no ~
    "float": torch.zeros(L, L, device="cuda", dtype=bf16)
    .masked_fill(~allowed, float("-inf")),  # adds, as in MHA
    "padding": (~kpm)[:, None, None, :],  # (N, 1, 1, S): keep
    "alibi": alibi.to(bf16),
}
refused = {}
for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH):
    refused[backend.name] = []
    for name, mask in masks.items():
        try:
            with sdpa_kernel(backend):
                out = attend(mask, bf16)
        except RuntimeError:  # this kernel can't take these inputs
            refused[backend.name].append(name)
            continue
        torch.testing.assert_close(out, refs[name], atol=2e-2, rtol=2e-2)
print(refused["FLASH_ATTENTION"], refused["MATH"])
# > ['bool', 'float', 'padding', 'alibi'] []
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import sys

    import pytest

    # The conventions themselves, in float32: MHA's ~allowed == SDPA's allowed, the float mask adds in
    # both, key_padding_mask == SDPA with ~kpm.
    with sdpa_kernel(SDPBackend.MATH):
        torch.testing.assert_close(attend(allowed, torch.float32), refs["bool"])
        float_mask = torch.zeros(L, L, device="cuda").masked_fill(~allowed, float("-inf"))
        torch.testing.assert_close(mha(x, x, x, attn_mask=float_mask, need_weights=False)[0], refs["bool"])
        torch.testing.assert_close(attend(masks["padding"], torch.float32), refs["padding"])
    # The masks mattered: without one the output differs.
    assert not torch.allclose(refs["bool"], refs["padding"], atol=1e-2)
    # Flash takes no attn_mask at all, not even a float ALiBi bias, but it runs the unmasked case.
    with pytest.raises(RuntimeError), sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        attend(masks["alibi"], bf16)
    if torch.cuda.get_device_capability() >= (8, 0):
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            attend(None, bf16)
        # The memory-efficient kernel takes every mask form in bf16 on Ampere and later.
        assert refused["EFFICIENT_ATTENTION"] == []
    # cuDNN's support for arbitrary masks depends on the cuDNN version and the GPU: logged, not asserted.
    print(f"refused per backend: {refused}", file=sys.stderr)


if __name__ == "__main__":
    _check()
