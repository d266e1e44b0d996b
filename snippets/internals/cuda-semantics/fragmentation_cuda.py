"""Growing allocations fragment the caching allocator; expandable segments grow in place and reserve less."""

# --8<-- [start:demo]
import os
import subprocess
import sys

PATTERN = """
import torch
for mb in range(64, 81):  # a growing request, like a growing sequence
    big = torch.empty(mb * 2**20, dtype=torch.uint8, device="cuda")
    del big  # cached: too small for the next request
print(torch.cuda.max_memory_reserved() // 2**20)
"""


def peak_reserved_mb(conf):
    env = {**os.environ, "PYTORCH_ALLOC_CONF": conf}  # read once, at start
    out = subprocess.run([sys.executable, "-c", PATTERN], env=env,
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


plain = peak_reserved_mb("expandable_segments:False")
expandable = peak_reserved_mb("expandable_segments:True")
print(expandable < plain)
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert expandable >= 80  # the largest request still had to fit
    assert plain >= expandable


if __name__ == "__main__":
    _check()
