"""torch.load defaults to weights_only=True since 2.6: pickled objects are refused unless you allowlist them."""

# --8<-- [start:refuses]
import io
import pickle

import torch
from torch import nn

buffer = io.BytesIO()
torch.save(nn.Linear(2, 1), buffer)  # the whole module object, pickled
buffer.seek(0)
try:
    torch.load(buffer)  # weights_only=True by default since PyTorch 2.6
except pickle.UnpicklingError as err:
    message = str(err)
    print(message.split(".")[0])
    print(message[message.index("Unsupported global") :].split(" was ")[0])
# > Weights only load failed
# > Unsupported global: GLOBAL torch.nn.modules.linear.Linear
buffer.seek(0)
# runs arbitrary pickle code: trusted files only
model = torch.load(buffer, weights_only=False)
print(type(model).__name__)
# > Linear
# --8<-- [end:refuses]

# --8<-- [start:allowlist]
import argparse
import io

import numpy as np
import torch

args = argparse.Namespace(lr=0.1, epochs=10)
buffer = io.BytesIO()
torch.save({"weights": torch.ones(2), "args": args}, buffer)
buffer.seek(0)
# what the file would need
print(torch.serialization.get_unsafe_globals_in_checkpoint(buffer))
# > ['argparse.Namespace']
buffer.seek(0)
# allowlist exactly that, for this load
with torch.serialization.safe_globals([argparse.Namespace]):
    print(torch.load(buffer)["args"].lr)
# > 0.1

# Better: save plain types, which need no allowlist at all
rng = np.random.default_rng(0)
# dicts of str, int, float
checkpoint = {"args": vars(args), "numpy_rng": rng.bit_generator.state}
buffer = io.BytesIO()
torch.save(checkpoint, buffer)
buffer.seek(0)
print(torch.load(buffer) == checkpoint)
# > True
# --8<-- [end:allowlist]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The full error: it names the 2.6 change, the unsafe way out, and the allowlist API for the exact global.
    assert message.startswith("Weights only load failed.")
    assert "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load`" in message
    assert "torch.serialization.add_safe_globals([torch.nn.modules.linear.Linear])" in message
    assert isinstance(model, nn.Linear)

    # The legacy global NumPy state is refused too (it pickles an ndarray); the Generator's state dict is not.
    legacy = io.BytesIO()
    torch.save({"numpy": np.random.get_state()}, legacy)
    legacy.seek(0)
    assert "numpy.ndarray" in torch.serialization.get_unsafe_globals_in_checkpoint(legacy)
    legacy.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(legacy)
    restored = np.random.default_rng()
    restored.bit_generator.state = torch.load(io.BytesIO(buffer.getvalue()))["numpy_rng"]
    assert restored.integers(1_000_000) == np.random.default_rng(0).integers(1_000_000)

    # Without the context manager the Namespace is refused again: safe_globals is scoped to the block.
    plain = io.BytesIO()
    torch.save({"args": argparse.Namespace(lr=0.1)}, plain)
    plain.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL argparse.Namespace"):
        torch.load(plain)
    # add_safe_globals is the process-wide variant; restore the registry afterwards.
    before = torch.serialization.get_safe_globals()
    try:
        torch.serialization.add_safe_globals([argparse.Namespace])
        plain.seek(0)
        assert torch.load(plain)["args"].lr == 0.1
    finally:
        torch.serialization.clear_safe_globals()
        torch.serialization.add_safe_globals(before)
    assert argparse.Namespace not in torch.serialization.get_safe_globals()
    # Primitive types and containers load under the default: sets, tuples, OrderedDict, None, complex, bytes.
    import collections

    mixed = {"s": {1, 2}, "t": (1, "x", None, 2.5, True), "o": collections.OrderedDict(a=1), "c": 1 + 2j, "b": b"ab"}
    box = io.BytesIO()
    torch.save(mixed, box)
    box.seek(0)
    assert torch.load(box) == mixed
    # A plain state_dict needs none of this: tensors and containers are always allowed.
    state = io.BytesIO()
    torch.save(nn.Linear(2, 1).state_dict(), state)
    state.seek(0)
    assert list(torch.load(state)) == ["weight", "bias"]


if __name__ == "__main__":
    _check()
