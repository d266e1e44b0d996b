"""autocast runs matmul-like ops in fp16/bf16 and precision-sensitive ops in float32; weights and grads stay float32."""

# --8<-- [start:demo]
import torch
from torch import nn

device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
x = torch.randn(4, 8, device=device)
target = torch.tensor([0, 1, 1, 0], device=device)

# bfloat16 on CPU, float16 on CUDA by default
with torch.autocast(device_type=device.type):
    logits = model(x)  # Linear is on the low-precision list
    # losses are on the float32 list
    loss = nn.functional.cross_entropy(logits, target)
# outside the block: backward reuses the dtypes the forward chose
loss.backward()

print(logits.dtype == torch.get_autocast_dtype(device.type), loss.dtype)
# > True torch.float32
# the weights and their grads stay float32
print(model[0].weight.dtype, model[0].weight.grad.dtype)
# > torch.float32 torch.float32
# --8<-- [end:demo]

# --8<-- [start:defaults]
import torch

# the default per device type
print(torch.get_autocast_dtype("cpu"), torch.get_autocast_dtype("cuda"))
# > torch.bfloat16 torch.float16
# --8<-- [end:defaults]

# --8<-- [start:outside]
import torch
from torch import nn

layer, head = nn.Linear(8, 8), nn.Linear(8, 2)
x = torch.randn(4, 8)
with torch.autocast(device_type="cpu"):
    hidden = layer(x)  # bfloat16, and it stays bfloat16 after the block
try:
    # float32 weights, bfloat16 input, no autocast to reconcile them
    head(hidden)
except RuntimeError as err:
    print(err)
# > mat1 and mat2 must have the same dtype, but got BFloat16 and Float
# cast back explicitly (or keep the consumer inside autocast)
print(head(hidden.float()).dtype)
# > torch.float32
# --8<-- [end:outside]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    low = torch.get_autocast_dtype(device.type)
    assert low in (torch.bfloat16, torch.float16)
    # Parameters are never converted: autocast casts copies on the fly.
    assert all(p.dtype == torch.float32 for p in model.parameters())
    assert all(p.grad.dtype == torch.float32 for p in model.parameters())

    # The activations saved for backward are low precision: that is where the memory saving comes from.
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t.dtype) or t, lambda t: t):
        with torch.autocast(device_type=device.type):
            model(x).float().sum().backward()
    assert low in saved

    # Default dtypes per device type, and autocast(enabled=False) switches it off inside a region.
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    assert torch.get_autocast_dtype("cuda") == torch.float16
    lin = nn.Linear(4, 4)
    with torch.autocast("cpu"):
        assert lin(torch.randn(2, 4)).dtype == torch.bfloat16
        with torch.autocast("cpu", enabled=False):
            assert lin(torch.randn(2, 4)).dtype == torch.float32
        # CPU lists differ from CUDA's: softmax keeps the input dtype on CPU, losses go to float32.
        h = lin(torch.randn(2, 4))
        assert torch.softmax(h, dim=-1).dtype == torch.bfloat16
        assert nn.functional.mse_loss(h, torch.zeros(2, 4)).dtype == torch.float32
        assert (torch.randn(2, 4) + 1).dtype == torch.float32  # ops on no list run in their input dtype
    # Only out-of-place ops are autocast: in-place and out= variants keep their own dtypes.
    a, b, c = torch.randn(2, 2), torch.randn(2, 2), torch.randn(2, 2)
    with torch.autocast("cpu"):
        assert torch.addmm(a, b, c).dtype == torch.bfloat16
        assert a.addmm_(b, c).dtype == torch.float32
        out = torch.empty(2, 2)
        torch.mm(b, c, out=out)
        assert out.dtype == torch.float32
    # autocast(enabled=False) switches autocast off; it does not cast what comes in. A bf16 activation
    # stays bf16 and meets float32 weights: cast it with .float() yourself.
    with torch.autocast("cpu"):
        h = lin(torch.randn(2, 4))
        with torch.autocast("cpu", enabled=False):
            with pytest.raises(RuntimeError, match="must have the same dtype"):
                lin(h)
            assert lin(h.float()).dtype == torch.float32
    # The norms: layer_norm and group_norm are on CUDA's float32 list, batch_norm is on no list (it runs
    # in its input's dtype). On CPU none of the three is listed: under bf16 autocast they stay bf16.
    def autocast_kernel(op: str, key: str) -> bool:
        return torch._C._dispatch_has_kernel_for_dispatch_key(op, key)

    assert autocast_kernel("aten::layer_norm", "AutocastCUDA")
    assert autocast_kernel("aten::group_norm", "AutocastCUDA")
    assert not autocast_kernel("aten::batch_norm", "AutocastCUDA")
    assert not any(autocast_kernel(f"aten::{op}", "AutocastCPU") for op in ("layer_norm", "group_norm", "batch_norm"))
    with torch.autocast("cpu"):
        images = nn.Conv2d(3, 4, 1)(torch.randn(2, 3, 4, 4))
        assert images.dtype == torch.bfloat16
        assert nn.BatchNorm2d(4)(images).dtype == torch.bfloat16
        assert nn.GroupNorm(2, 4)(images).dtype == torch.bfloat16
        assert nn.LayerNorm(4)(images).dtype == torch.bfloat16

    # dtype=float16 is accepted on CPU too.
    with torch.autocast("cpu", dtype=torch.float16):
        assert lin(torch.randn(2, 4)).dtype == torch.float16

    # The mismatch outside autocast.
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        head(hidden)
    assert hidden.dtype == torch.bfloat16

    # model.half() instead of autocast: fp16 master weights lose small updates, and GradScaler refuses them.
    w = torch.tensor(1.0, dtype=torch.float16)
    assert w + 1e-4 == w  # below half of fp16's eps (0.000977) at 1.0: the update vanishes
    half_model = nn.Linear(4, 1).half()
    opt = torch.optim.SGD(half_model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(half_model(torch.randn(2, 4).half()).float().sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        scaler.unscale_(opt)

    # The old spellings still run on 2.14 but warn.
    with pytest.warns(FutureWarning, match=r"torch\.cpu\.amp\.autocast\(args\.\.\.\)` is deprecated"):
        torch.cpu.amp.autocast()
    with pytest.warns(FutureWarning, match=r"torch\.cuda\.amp\.GradScaler\(args\.\.\.\)` is deprecated"):
        torch.cuda.amp.GradScaler(enabled=False)
    with pytest.warns(FutureWarning, match=r"torch\.cuda\.amp\.autocast\(args\.\.\.\)` is deprecated"):
        torch.cuda.amp.autocast(enabled=False)


if __name__ == "__main__":
    _check()
