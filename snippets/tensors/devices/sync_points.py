"""Ops that need values on the host, or whose output shape depends on values, fail on "meta": on a GPU they sync."""

# --8<-- [start:demo]
import torch

# shapes and dtypes, no values: like work still queued on a GPU
x = torch.randn(512, 512, device="meta")


def needs_values(op):
    try:
        op()
    except (RuntimeError, NotImplementedError):
        return True
    return False


# fixed output shapes: queued like any kernel
print([needs_values(op) for op in (
    lambda: x @ x, lambda: x.argmax(), lambda: torch.where(x > 0, x, 0.0))])
# > [False, False, False]
# a value on the host
print([needs_values(op) for op in (
    lambda: x.sum().item(), lambda: bool((x > 0).any()), lambda: x.tolist())])
# > [True, True, True]
# an output size that depends on the values
print([needs_values(op) for op in (
    lambda: x[x > 0], lambda: torch.nonzero(x), lambda: torch.unique(x))])
# > [True, True, True]
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Each refusal names the reason: a value is needed on the host, or the output size depends on values.
    with pytest.raises(RuntimeError, match=r"Tensor.item\(\) cannot be called on meta tensors"):
        x.sum().item()
    with pytest.raises(RuntimeError, match=r"Tensor.item\(\) cannot be called on meta tensors"):
        bool((x > 0).any())  # `if (x > 0).any():` is an .item() in disguise
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        x.cpu()
    with pytest.raises(NotImplementedError, match="correct data-independent implementation does not exist"):
        x[x > 0]  # boolean indexing is nonzero() underneath
    with pytest.raises(NotImplementedError, match="correct data-independent implementation does not exist"):
        torch.where(x > 0)  # the one-argument form is nonzero() too
    with pytest.raises(NotImplementedError, match="masked_select"):
        x.masked_select(x > 0)
    with pytest.raises(RuntimeError, match="cannot repeat_interleave a meta tensor without output_size"):
        torch.repeat_interleave(torch.ones(3, dtype=torch.long, device="meta"))

    # The shape-only versions run: fixed output sizes are the sync-free alternatives.
    counts = torch.ones(3, dtype=torch.long, device="meta")
    assert torch.repeat_interleave(torch.arange(3, device="meta"), counts, output_size=3).shape == (3,)
    assert torch.nonzero_static(x.flatten(), size=10).shape == (10, 1)
    masked_mean = torch.where(x > 0, x, 0.0).sum() / (x > 0).sum()  # a masked reduction without indexing
    assert masked_mean.shape == () and masked_mean.device.type == "meta"
    assert x.topk(5).indices.shape == (512, 5) and x.sort().values.shape == (512, 512)
    assert x[torch.tensor([0, 3], device="meta")].shape == (2, 512)  # integer-index gathers have a known shape


if __name__ == "__main__":
    _check()
