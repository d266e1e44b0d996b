"""GPU lane: which SDPA kernel takes which inputs (dtype, masks), asked and forced."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch.backends.cuda import SDPAParams, can_use_flash_attention
from torch.nn.attention import SDPBackend, sdpa_kernel

q = k = v = torch.randn(1, 8, 1024, 64, device="cuda")  # float32
half = q.to(torch.bfloat16)
mask = torch.ones(1024, 1024, dtype=torch.bool, device="cuda").tril()

cases = [("fp32", (q, q, q), {}),
         ("bf16 + bool mask", (half,) * 3, {"attn_mask": mask}),
         ("bf16 causal", (half,) * 3, {"is_causal": True})]
for name, args, kwargs in cases:
    params = SDPAParams(*args, kwargs.get("attn_mask"), 0.0,
                        kwargs.get("is_causal", False), False)
    try:
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            F.scaled_dot_product_attention(*args, **kwargs)
        print(name, "flash ran", can_use_flash_attention(params))
    except RuntimeError:
        print(name, "no flash", can_use_flash_attention(params))
# > fp32 no flash False
# > bf16 + bool mask no flash False
# > bf16 causal flash ran True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    with pytest.raises(RuntimeError), sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        F.scaled_dot_product_attention(q, k, v)  # flash needs fp16/bf16
    # Without a restriction, fp32 with a mask still runs (efficient or math kernel).
    F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


if __name__ == "__main__":
    _check()
