"""On CUDA, deterministic mode refuses ops that only have atomics-based kernels; cuBLAS needs no env var on 2.14."""

# --8<-- [start:demo]
import torch

torch.use_deterministic_algorithms(True)
x = torch.randn(10_000, device="cuda")
try:
    # the CUDA kernel accumulates with atomics: no fixed order
    torch.histc(x, bins=10)
except RuntimeError as err:
    print(
        "refused:", "does not have a deterministic implementation" in str(err)
    )
# > refused: True
a = torch.randn(256, 256, device="cuda")
# cuBLAS in deterministic mode: no CUBLAS_WORKSPACE_CONFIG needed from 2.10
print(torch.equal(a @ a, a @ a))
# > True
torch.use_deterministic_algorithms(False)
print(torch.histc(x, bins=10).sum().item())
# > 10000.0
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import os
    import subprocess
    import sys

    import pytest

    torch.use_deterministic_algorithms(True)
    with pytest.raises(RuntimeError, match="does not have a deterministic implementation"):
        torch.histc(x, bins=10)
    # The same op with warn_only=True runs and warns instead.
    torch.use_deterministic_algorithms(True, warn_only=True)
    with pytest.warns(UserWarning, match="does not have a deterministic implementation"):
        torch.histc(x, bins=10)
    torch.use_deterministic_algorithms(False)
    # cuBLAS matmul in deterministic mode, in a fresh process with CUBLAS_WORKSPACE_CONFIG unset: no error
    # (up to 2.9 this raised "...because it uses CuBLAS and you have CUDA >= 10.2...").
    from torch.torch_version import TorchVersion

    assert TorchVersion(torch.__version__) >= "2.10"  # the first release without the check
    env = {key: value for key, value in os.environ.items() if key != "CUBLAS_WORKSPACE_CONFIG"}
    script = (
        "import torch\n"
        "torch.use_deterministic_algorithms(True)\n"
        "a = torch.randn(64, 64, device='cuda')\n"
        "b = a @ a\n"
        "torch.cuda.synchronize()\n"
        "print(torch.equal(b, a @ a))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


if __name__ == "__main__":
    _check()
