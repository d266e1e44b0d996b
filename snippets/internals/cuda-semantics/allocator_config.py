"""The caching allocator's settings: expandable segments are opt-in, and PYTORCH_ALLOC_CONF is the name read."""

# --8<-- [start:demo]
import os
import subprocess
import sys
from pathlib import Path

import torch

include = Path(torch.__file__).parent / "include"
config_h = (include / "c10/core/AllocatorConfig.h").read_text()
print("use_expandable_segments_{false}" in config_h)  # the default: off
# > True

READ = "import torch; print(torch._C._accelerator_getAllocatorSettings())"
env = {**os.environ, "PYTORCH_ALLOC_CONF": "expandable_segments:True"}
done = subprocess.run([sys.executable, "-c", READ], env=env,
                      capture_output=True, text=True, check=True)
print(done.stdout.strip())  # read from the environment, once per process
# > expandable_segments:True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # the generic name comes first; the CUDA-only name is still read, for backward compatibility
    assert "The primary environment variable for configuration is `PYTORCH_ALLOC_CONF`" in config_h
    assert "`PYTORCH_CUDA_ALLOC_CONF` is also supported" in config_h
    # the allocator's size classes, as the page states them
    for constant in ("kMinBlockSize = 512", "kSmallSize = 1048576", "kSmallBuffer = 2097152",
                     "kMinLargeAlloc = 10485760", "kRoundLarge = 2097152"):
        assert f"constexpr size_t {constant};" in config_h, constant
    # the OOM hint in the CUDA library still prints the old name
    c10_cuda = (Path(torch.__file__).parent / "lib" / "libc10_cuda.so").read_bytes()
    assert b"try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" in c10_cuda
    assert b"expandable_segments:True cannot be shared between processes" in c10_cuda


if __name__ == "__main__":
    _check()
