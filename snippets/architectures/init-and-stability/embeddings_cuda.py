"""GPU lane: an out-of-range embedding index fails on the device, and the error surfaces at a later sync."""

# --8<-- [start:demo]
import os
import subprocess
import sys

# A child process: a device-side assert poisons the CUDA context for good.
CHILD = """
import torch
emb = torch.nn.Embedding(10, 4, device="cuda")
idx = torch.tensor([3, 12], device="cuda")  # 12 >= num_embeddings
busy = torch.randn(4096, 4096, device="cuda")
for _ in range(20):
    busy @ busy  # keep the GPU busy: the lookup waits in the queue
out = emb(idx)  # queued, so no error here
print("lookup returned", flush=True)
torch.cuda.synchronize()  # the assert is reported here
"""


def run(blocking):
    env = {k: v for k, v in os.environ.items() if k != "CUDA_LAUNCH_BLOCKING"}
    if blocking:
        env["CUDA_LAUNCH_BLOCKING"] = "1"  # every launch waits for its kernel
    return subprocess.run([sys.executable, "-c", CHILD], env=env,
                          capture_output=True, text=True, timeout=300)


lazy = run(blocking=False)
print(lazy.returncode != 0, "lookup returned" in lazy.stdout)
# > True True
print("device-side assert triggered" in lazy.stderr)
# > True
blocking = run(blocking=True)  # the error now stops at the lookup
print("lookup returned" in blocking.stdout,
      "device-side assert triggered" in blocking.stderr)
# > False True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    lines = CHILD.split("\n")  # line numbers as the child's traceback counts them

    def line_of(code: str) -> str:
        return f'File "<string>", line {lines.index(code) + 1}, in <module>'

    sync = line_of("torch.cuda.synchronize()  # the assert is reported here")
    lookup = line_of("out = emb(idx)  # queued, so no error here")
    # Asynchronous by default: the Python error names the synchronize call, not the lookup.
    assert "RuntimeError" in lazy.stderr and sync in lazy.stderr and lookup not in lazy.stderr, lazy.stderr
    # With CUDA_LAUNCH_BLOCKING=1 it names the lookup, the line to fix.
    assert blocking.returncode != 0 and lookup in blocking.stderr and sync not in blocking.stderr, blocking.stderr


if __name__ == "__main__":
    _check()
