"""An AOTInductor package: what the .pt2 zip holds, and that it checks input shapes only when asked to."""

# --8<-- [start:demo]
import os
import tempfile
import zipfile

import torch
from torch import nn

model = nn.Linear(4, 2).eval()
batch = torch.export.Dim("batch", max=64)
ep = torch.export.export(model, (torch.randn(3, 4),),
                         dynamic_shapes=({0: batch},))
path = os.path.join(tempfile.mkdtemp(), "linear.pt2")
torch._inductor.aoti_compile_and_package(ep, package_path=path)
names = zipfile.ZipFile(path).namelist()
for suffix in ("wrapper.cpp", "kernel.cpp", "wrapper.so", "metadata.json"):
    print(suffix, any(name.endswith(suffix) for name in names))
# > wrapper.cpp True
# > kernel.cpp True
# > wrapper.so True
# > metadata.json True
runner = torch._inductor.aoti_load_package(path)
x = torch.randn(65, 4)  # outside the Dim range
print(torch.allclose(runner(x), model(x)))  # accepted: no input checks
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    with torch.no_grad():
        for n in (1, 5):
            x = torch.randn(n, 4)
            torch.testing.assert_close(runner(x), model(x))
    # with the runtime checks switched on, the same package rejects batch 65
    os.environ["AOTI_RUNTIME_CHECK_INPUTS"] = "1"
    checked = torch._inductor.aoti_load_package(path)
    with pytest.raises(RuntimeError, match="dim value is too large at 0, expected to be <= 64, but got: 65"):
        checked(torch.randn(65, 4))
    # ExportedProgram.module() does check the range
    with pytest.raises(AssertionError):
        ep.module()(torch.randn(65, 4))


if __name__ == "__main__":
    _check()
