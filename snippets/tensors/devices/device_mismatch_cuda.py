"""On a real GPU the discarded .to() result crashes the forward pass; Module.to keeps the same Parameter objects."""

# --8<-- [start:real_crash]
import torch

model = torch.nn.Linear(4, 3).to("cuda")
batch = torch.randn(8, 4)
batch.to("cuda")  # a CUDA copy is made and thrown away
try:
    model(batch)
except RuntimeError as err:
    print(str(err).split(",")[0])
# > Expected all tensors to be on the same device
# --8<-- [end:real_crash]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    assert batch.device.type == "cpu" and model.weight.device.type == "cuda"
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        model(batch)
    assert model(batch.to("cuda")).device.type == "cuda"  # the fix: use what .to() returns

    # A real move returns a new tensor; a tensor already on the GPU comes back as itself.
    on_gpu = batch.to("cuda")
    assert on_gpu is not batch and on_gpu.to(on_gpu.device) is on_gpu

    # CPU -> CUDA keeps the Parameter objects (only their data is swapped), so an optimizer built
    # before the move still updates the live weights. Building it after the move is still the habit.
    m = torch.nn.Linear(4, 3)
    weight = m.weight
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    m.to("cuda")
    assert m.weight is weight and opt.param_groups[0]["params"][0] is m.weight
    assert m.weight.device.type == "cuda"

    # The leaf trap is real here: .to("cuda") on a tensor that requires grad is not a leaf.
    w = torch.randn(3, requires_grad=True).to("cuda")
    assert not w.is_leaf
    assert torch.randn(3, device="cuda", requires_grad=True).is_leaf


if __name__ == "__main__":
    _check()
