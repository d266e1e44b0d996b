"""FSDP2 and a weight tie: both tied modules must live in one FSDP group, or fully_shard raises."""

# --8<-- [start:demo]
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.launcher.api import LaunchConfig, elastic_launch


class TiedLM(nn.Module):
    def __init__(self, vocab=64, d=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.body = nn.Linear(d, d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        return self.head(torch.relu(self.body(self.embed(ids))))


def shard(model, mesh, grouping):
    if grouping == "separate units":
        fully_shard(model.embed, mesh=mesh)
        fully_shard(model.head, mesh=mesh)
    elif grouping == "one group":
        fully_shard([model.embed, model.head], mesh=mesh)
    return fully_shard(model, mesh=mesh)  # "root": the root owns both


def main() -> list[str]:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    report = []
    for grouping in ("separate units", "root", "one group"):
        torch.manual_seed(0)
        model = TiedLM()
        shard(model, mesh, grouping)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        try:  # FSDP2 checks for shared parameters at the first forward
            loss = model(torch.randint(0, 64, (4, 8))).float().mean()
        except ValueError as e:
            report.append(f"{grouping}: {str(e).split(' already')[0]}")
            continue
        loss.backward()
        opt.step()
        tied = model.head.weight is model.embed.weight
        report.append(f"{grouping}: trains, tied {tied}, "
                      f"{type(model.embed.weight).__name__}")
    dist.destroy_process_group()
    return report


if __name__ == "__main__":
    config = LaunchConfig(
        min_nodes=1, max_nodes=1, nproc_per_node=2, max_restarts=0,
        rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", run_id="tie",
    )
    reports = elastic_launch(config, main)()
    print(*reports[0], sep="\n")
# > separate units: Parameter 'head.weight' is shared with a parameter
# > root: trains, tied True, DTensor
# > one group: trains, tied True, DTensor
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert reports[0] == reports[1]  # both ranks saw the same


if __name__ == "__main__":
    _check()
