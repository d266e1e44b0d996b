"""Spot the Bug: a discarded Tensor.to() result is harmless on a CPU laptop and a crash on an accelerator."""

# --8<-- [start:buggy]
import torch


def predict(model, batch, device):
    model.to(device)
    model.eval()
    batch.to(device)
    with torch.inference_mode():
        return model(batch).argmax(dim=1)


device = "cuda" if torch.cuda.is_available() else "cpu"
# --8<-- [end:buggy]


buggy_predict, buggy_device = predict, device  # hidden: the fixed section redefines both names

# --8<-- [start:fixed]
import torch


def predict(model, batch, device):
    model.to(device)  # Module.to works in place
    model.eval()
    batch = batch.to(device)  # Tensor.to returns a tensor: keep it
    with torch.inference_mode():
        return model(batch).argmax(dim=1)


device = (torch.accelerator.current_accelerator(check_available=True)
          or torch.device("cpu"))
predictions = predict(torch.nn.Linear(4, 3), torch.randn(8, 4), device)
print(predictions.shape, predictions.device.type == device.type)
# > torch.Size([8]) True
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # On a CPU-only machine the bug hides: batch.to("cpu") returns batch itself, so nothing was lost.
    batch = torch.randn(8, 4)
    assert batch.to("cpu") is batch
    assert buggy_predict(torch.nn.Linear(4, 3), batch, "cpu").shape == (8,)

    # On any other device it crashes. "meta" stands in for the GPU box: the model moves, the batch does not.
    model = torch.nn.Linear(4, 3)
    with pytest.raises(RuntimeError, match="Tensor on device meta is not on the expected device cpu!"):
        buggy_predict(model, batch, "meta")
    assert model.weight.device.type == "meta"  # line 5 did its job: Module.to is in place
    assert batch.device.type == "cpu"  # line 7 did nothing to batch

    def crashes(fn, *args):
        try:
            fn(*args)
        except RuntimeError:
            return True
        return False

    # Lane by lane: the buggy version fails exactly when the chosen device is not the CPU.
    assert crashes(buggy_predict, torch.nn.Linear(4, 3), torch.randn(8, 4), "meta")
    assert crashes(buggy_predict, torch.nn.Linear(4, 3), torch.randn(8, 4), device) == (device.type != "cpu")

    # The fix works on every device, "meta" included.
    out = predict(torch.nn.Linear(4, 3), torch.randn(8, 4), "meta")
    assert out.shape == (8,) and out.device.type == "meta"
    assert not crashes(predict, torch.nn.Linear(4, 3), torch.randn(8, 4), device)
    assert predictions.dtype == torch.int64 and predictions.device.type == device.type

    # The buggy file's device line is dated but not the bug: on CUDA-or-CPU machines it agrees with the fix.
    assert torch.device(buggy_device).type == device.type

    # The device line: check_available=True gives None when no accelerator is usable (then the CPU).
    usable = torch.accelerator.current_accelerator(check_available=True)
    assert device == (usable if usable is not None else torch.device("cpu"))
    assert torch.accelerator.is_available() == (usable is not None)


if __name__ == "__main__":
    _check()
