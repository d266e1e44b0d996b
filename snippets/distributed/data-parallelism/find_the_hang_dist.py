"""Turning a hang into an error: DETAIL mode names mismatched collectives, monitored_barrier names the late rank."""

# --8<-- [start:demo]
import os
import re
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.launcher.api import LaunchConfig, elastic_launch


def main() -> list[str]:
    # the timeout bounds every collective
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    report = []

    # the ranks disagree on a shape: normally a hang or garbage
    last_batch = torch.ones(3 if rank == 0 else 2)
    try:
        dist.all_reduce(last_batch)
    # DETAIL mode compares every collective's fingerprint across ranks first
    except RuntimeError as err:
        report.append(str(err).split(". ")[0])
        report += re.findall(r"OpType=\w+, TensorShape=\[\d+\]", str(err))

    if rank == 1:
        # rank 1 is stuck: a slow data loader, a deadlock, a rank-dependent
        # branch...
        time.sleep(4)
    try:
        # gloo only: rank 0 names who did not arrive
        dist.monitored_barrier(timeout=timedelta(seconds=1))
    except RuntimeError as err:
        report.append(str(err).splitlines()[0])
    dist.destroy_process_group()
    return report


if __name__ == "__main__":
    # what `TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun ...` does
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    # what `torchrun --standalone --nproc_per_node=2` sets up
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="demo",
    )
    reports = elastic_launch(config, main)()
    print(*reports[0], sep="\n")  # rank 0's view
# > Detected mismatch between collectives on ranks
# > OpType=ALLREDUCE, TensorShape=[3]
# > OpType=ALLREDUCE, TensorShape=[2]
# > [Rank 0]: Rank 1 failed to pass monitoredBarrier in 1000 ms
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Both ranks got the mismatch error instead of hanging, each naming its own shape first.
    assert reports[1][:3] == [
        "Detected mismatch between collectives on ranks",
        "OpType=ALLREDUCE, TensorShape=[2]",
        "OpType=ALLREDUCE, TensorShape=[3]",
    ]
    # Rank 1 also failed its late barrier (rank 0 had given up), so no process was left waiting forever.
    assert len(reports[1]) == 4
    assert reports[0][3] == "[Rank 0]: Rank 1 failed to pass monitoredBarrier in 1000 ms"


if __name__ == "__main__":
    _check()
