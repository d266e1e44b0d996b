"""Parameter vs buffer vs plain tensor attribute: what state_dict() saves, what .to() moves, what trains."""

# --8<-- [start:demo]
import torch
from torch import nn


class Normalizer(nn.Module):
    def __init__(self, features: int) -> None:
        super().__init__()
        self.gain = nn.Parameter(torch.ones(features))  # learnable
        self.register_buffer("mean", torch.zeros(features))  # state, saved
        # state, not saved
        self.register_buffer("cache", torch.zeros(features), persistent=False)
        self.plain = torch.zeros(features)  # invisible to the module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) * self.gain


m = Normalizer(3)
print([name for name, _ in m.named_parameters()])
# > ['gain']
print([name for name, _ in m.named_buffers()])
# > ['mean', 'cache']
print(list(m.state_dict()))
# > ['gain', 'mean']
m.to(torch.float64)  # .to(device) follows the same path as .to(dtype)
print(m.gain.dtype, m.mean.dtype, m.cache.dtype, m.plain.dtype)
# > torch.float64 torch.float64 torch.float64 torch.float32
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Only the Parameter requires grad and reaches an optimizer built from m.parameters().
    assert m.gain.requires_grad and not m.mean.requires_grad and not m.cache.requires_grad
    assert [p is m.gain for p in m.parameters()] == [True]
    # .to(device) moves parameters and both kinds of buffer, and leaves the plain attribute behind.
    on_meta = Normalizer(3).to("meta")
    assert {t.device.type for t in (on_meta.gain, on_meta.mean, on_meta.cache)} == {"meta"}
    assert on_meta.plain.device.type == "cpu"
    # Module.to is in place and keeps Parameter identity, so an optimizer built before still sees it.
    fresh = Normalizer(3)
    gain_before = fresh.gain
    assert fresh.to(torch.float64) is fresh and fresh.gain is gain_before
    # A persistent buffer is part of the contract of load_state_dict(strict=True); a non-persistent one is not.
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "mean"'):
        Normalizer(3).load_state_dict({"gain": torch.ones(3)})
    result = Normalizer(3).load_state_dict({"gain": torch.ones(3), "mean": torch.ones(3)})
    assert not result.missing_keys and not result.unexpected_keys
    lenient = Normalizer(3).load_state_dict({"gain": torch.ones(3)}, strict=False)
    assert lenient.missing_keys == ["mean"]
    # BatchNorm's num_batches_tracked is a persistent int64 buffer, so it is in the state_dict.
    bn = torch.nn.BatchNorm1d(4)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert bn.num_batches_tracked.dtype == torch.int64
    # A frozen Parameter is still a parameter: listed, saved, moved.
    frozen = Normalizer(3)
    frozen.gain.requires_grad_(False)
    assert [p is frozen.gain for p in frozen.parameters()] == [True] and "gain" in frozen.state_dict()
    # Loading fills the buffer values in place.
    target = Normalizer(3)
    target.load_state_dict({"gain": torch.full((3,), 2.0), "mean": torch.ones(3)})
    assert target.mean.tolist() == [1.0, 1.0, 1.0]
    assert target(torch.full((1, 3), 2.0)).tolist() == [[2.0, 2.0, 2.0]]
    # A buffer can be reassigned by attribute (it stays a buffer); a plain tensor is not tracked at all.
    target.mean = torch.full((3,), 5.0)
    assert "mean" in dict(target.named_buffers())
    assert "plain" not in dict(target.named_buffers()) and "plain" not in target.state_dict()


if __name__ == "__main__":
    _check()
