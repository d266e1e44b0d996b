"""Loading into a changed model: strict=False, shape filtering, the `module.` prefix, map_location, mmap + assign."""

# --8<-- [start:strict]
import torch
from torch import nn

# trained for 10 classes
pretrained = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 10))
# the new task has 5
model = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 5))

own = model.state_dict()
compatible = {
    k: v
    for k, v in pretrained.state_dict().items()
    if k in own and v.shape == own[k].shape
}
# strict=False tolerates missing keys, not shapes
result = model.load_state_dict(compatible, strict=False)
print(result)
# > _IncompatibleKeys(missing_keys=['2.weight', '2.bias'], unexpected_keys=[])
# the backbone was loaded, the head stays new
print(torch.equal(model[0].weight, pretrained[0].weight))
# > True
# --8<-- [end:strict]

# --8<-- [start:prefix]
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


# how DDP (and DataParallel) hold your model: as self.module
class Wrapped(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module


# saved from the wrapper instead of wrapper.module
saved = Wrapped(nn.Linear(2, 1)).state_dict()
print(list(saved))
# > ['module.weight', 'module.bias']
# in place; torch.compile's prefix is "_orig_mod."
consume_prefix_in_state_dict_if_present(saved, "module.")
print(nn.Linear(2, 1).load_state_dict(saved))
# > <All keys matched successfully>
# --8<-- [end:prefix]

# --8<-- [start:fast_load]
import tempfile
from pathlib import Path

import torch
from torch import nn

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "model.pt"
    torch.save(nn.Linear(1024, 1024).state_dict(), path)

    # mapped from the file, read lazily
    state = torch.load(path, map_location="cpu", mmap=True)
    with torch.device("meta"):
        model = nn.Linear(1024, 1024)  # shapes only: no memory, no random init
    # adopt the loaded tensors instead of copying into them
    model.load_state_dict(state, assign=True)
    print(
        model.weight.device,
        model.weight.data_ptr() == state["weight"].data_ptr(),
    )
# > cpu True
# --8<-- [end:fast_load]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import io
    import warnings

    import pytest

    # strict=False does not forgive a shape mismatch; the default strict=True refuses missing keys.
    mismatch = r"size mismatch for 2.weight: copying a param with shape torch.Size\(\[10, 4\]\) from checkpoint, "
    mismatch += r"the shape in current model is torch.Size\(\[5, 4\]\)"
    with pytest.raises(RuntimeError, match=mismatch):
        model_new = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 5))
        model_new.load_state_dict(pretrained.state_dict(), strict=False)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "2.weight", "2.bias"'):
        nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 5)).load_state_dict(compatible)
    extra = nn.Linear(2, 1).load_state_dict({**nn.Linear(2, 1).state_dict(), "extra": torch.ones(1)}, strict=False)
    assert extra.unexpected_keys == ["extra"] and extra.missing_keys == []
    assert result.missing_keys == ["2.weight", "2.bias"]

    # DataParallel (constructible without GPUs) produces exactly the wrapper's prefix; so does DDP's .module.
    assert list(nn.DataParallel(nn.Linear(2, 1)).state_dict()) == ["module.weight", "module.bias"]
    assert list(saved) == ["weight", "bias"]
    # Unprefixed keys are left alone: the helper only strips a prefix that is there.
    plain = nn.Linear(2, 1).state_dict()
    consume_prefix_in_state_dict_if_present(plain, "module.")
    assert list(plain) == ["weight", "bias"]

    # Loading into a meta model without assign=True copies into nothing: a no-op, and PyTorch warns.
    with torch.device("meta"):
        empty = nn.Linear(4, 4)
    with pytest.warns(UserWarning, match="copying from a non-meta parameter in the checkpoint to a meta parameter"):
        empty.load_state_dict(nn.Linear(4, 4).state_dict())
    assert empty.weight.is_meta
    # After assign=True the parameters are real Parameters that train, holding the checkpoint's values.
    assert isinstance(model.weight, nn.Parameter) and model.weight.requires_grad and model.weight.is_leaf
    # assign=True keeps the checkpoint tensors' properties; the default copies into the module's own tensors.
    as_double = {k: v.double() for k, v in nn.Linear(2, 2).state_dict().items()}
    copied, adopted = nn.Linear(2, 2), nn.Linear(2, 2)
    copied.load_state_dict(as_double)
    adopted.load_state_dict(as_double, assign=True)
    assert copied.weight.dtype == torch.float32 and adopted.weight.dtype == torch.float64
    # A checkpoint records each storage's device. Saved from a GPU (simulated by tagging the storages "cuda:0")
    # it cannot be loaded on a CPU-only machine until map_location remaps it.
    from unittest import mock

    gpu_saved = io.BytesIO()
    with mock.patch("torch.serialization.location_tag", return_value="cuda:0"):
        torch.save({"weight": torch.ones(2)}, gpu_saved)
    with mock.patch("torch.cuda.is_available", return_value=False):
        gpu_saved.seek(0)
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device but"):
            torch.load(gpu_saved)
        for where in ("cpu", torch.device("cpu"), {"cuda:0": "cpu"}):
            gpu_saved.seek(0)
            assert torch.load(gpu_saved, map_location=where)["weight"].device.type == "cpu"
    # map_location decides where storages land, whatever device they were saved from.
    with tempfile.TemporaryDirectory() as tmp_dir:
        file = Path(tmp_dir) / "m.pt"
        torch.save(nn.Linear(2, 2).state_dict(), file)
        assert torch.load(file, map_location="meta")["weight"].is_meta
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert torch.load(file, mmap=True)["weight"].shape == (2, 2)


if __name__ == "__main__":
    _check()
