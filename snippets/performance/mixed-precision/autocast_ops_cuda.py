"""On CUDA, autocast runs matmuls and convs in float16; softmax, layer/group norm, sums and losses in float32."""

# --8<-- [start:demo]
import torch
from torch import nn

layer, norm = nn.Linear(64, 64).cuda(), nn.LayerNorm(64).cuda()
x = torch.randn(8, 64, device="cuda")

with torch.autocast(device_type="cuda"):  # float16 unless you pass dtype=
    h = layer(x)
    print(h.dtype)  # the float16 list: matmul, linear, conv, bmm, ...
    # > torch.float16
    # the float32 list
    print(torch.softmax(h, dim=-1).dtype, norm(h).dtype, h.sum().dtype)
    # > torch.float32 torch.float32 torch.float32
    print((h + 1).dtype, (h + x).dtype)  # on no list: ordinary type promotion
    # > torch.float16 torch.float32
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert torch.get_autocast_dtype("cuda") == torch.float16
    assert layer.weight.dtype == torch.float32 and norm.weight.dtype == torch.float32
    with torch.autocast(device_type="cuda"):
        out = layer(x)
        loss = nn.functional.mse_loss(out, torch.zeros_like(x))
        assert loss.dtype == torch.float32
        assert torch.log_softmax(out, dim=-1).dtype == torch.float32
    loss.backward()
    assert layer.weight.grad.dtype == torch.float32
    # batch_norm is on neither list: it runs in its input's dtype (cuDNN takes fp16 input with fp32 weights).
    with torch.autocast(device_type="cuda"):
        assert nn.BatchNorm1d(64).cuda()(layer(x)).dtype == torch.float16
        assert nn.GroupNorm(4, 64).cuda()(layer(x)).dtype == torch.float32
    # On CUDA the fp16 result of a matmul agrees with float32 to fp16 precision.
    torch.testing.assert_close(h.float(), layer(x), rtol=1e-2, atol=1e-2)
    # bfloat16 autocast only where the hardware has bf16 tensor cores (sm80+); a T4 emulates it.
    if torch.cuda.get_device_capability() >= (8, 0):
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            assert layer(x).dtype == torch.bfloat16


if __name__ == "__main__":
    _check()
