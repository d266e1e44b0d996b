"""SDPA backends on CPU: restricting with sdpa_kernel, the deprecated context manager, dropout in eval, 1-D masks."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

q = k = v = torch.randn(1, 2, 8, 16)
for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                SDPBackend.MATH):
    try:
        with sdpa_kernel([backend]):  # only this one may run
            F.scaled_dot_product_attention(q, k, v)
        print(backend.name, "ran")
    except RuntimeError as error:
        print(backend.name, str(error)[:28])
# > FLASH_ATTENTION ran
# > EFFICIENT_ATTENTION No viable backend for scaled
# > MATH ran

out = F.scaled_dot_product_attention(q.requires_grad_(), k, v)
print(type(out.grad_fn).__name__)  # which kernel ran, in its name
# > ScaledDotProductFlashAttentionForCpuBackward0
# --8<-- [end:demo]

# --8<-- [start:pitfalls]
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

q = k = v = torch.randn(1, 2, 8, 16)
with torch.inference_mode():  # dropout_p is applied even here
    dropped = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
print(torch.allclose(dropped, F.scaled_dot_product_attention(q, k, v)))
# > False

keep = torch.ones(8, dtype=torch.bool)  # a 1-D padding mask
try:
    F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
except IndexError as error:
    print("IndexError:", str(error)[:22])
# > IndexError: Dimension out of range
with sdpa_kernel([SDPBackend.MATH]):  # the math kernel broadcasts it
    F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
F.scaled_dot_product_attention(q, k, v, attn_mask=keep[None, :])  # (L, S)
# --8<-- [end:pitfalls]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Flash on CPU also runs float64; EFFICIENT and CUDNN don't exist on CPU.
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        F.scaled_dot_product_attention(q.double(), k.double(), v.double())
    for backend in (SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION):
        with pytest.raises(RuntimeError, match="No viable backend"), sdpa_kernel([backend]):
            F.scaled_dot_product_attention(q, k, v)
    # The old context manager is deprecated on 2.14.1.
    with pytest.warns(FutureWarning, match="sdp_kernel.*deprecated"):
        with torch.backends.cuda.sdp_kernel(enable_math=True):
            pass
    # Dropout under inference_mode changed the output; pass `p if self.training else 0.0`.
    assert not torch.allclose(dropped, F.scaled_dot_product_attention(q, k, v))
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got -2"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    # can_use_flash_attention is a CUDA-side check: on CPU tensors it says no.
    from torch.backends.cuda import SDPAParams, can_use_flash_attention

    params = SDPAParams(q, k, v, None, 0.0, False, False)
    assert can_use_flash_attention(params, debug=False) is False


if __name__ == "__main__":
    _check()
