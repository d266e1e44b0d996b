"""A parameter that gets no gradient stalls DDP's reducer; find_unused_parameters=True or static_graph=True fix it."""

# --8<-- [start:error]
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(4, 4)
        # only used by some losses; not by this one
        self.aux_head = nn.Linear(4, 1)
        self.head = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.body(x)))


# one process reproduces it
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
model = DDP(TwoHeads())
# step 1 looks fine: aux_head's bucket never completes
model(torch.randn(2, 4)).sum().backward()
try:
    model(torch.randn(2, 4))  # step 2's forward
except RuntimeError as err:
    lines = str(err).splitlines()
    print(lines[0].split(". ")[0].replace(" before", "\n  before"))
    print(next(line for line in lines if line.startswith("Parameter indices")))
dist.destroy_process_group()
# > Expected to have finished reduction in the prior iteration
# >   before starting a new one
# > Parameter indices which did not receive grad for rank 0: 2 3
# --8<-- [end:error]

error_lines = lines

# --8<-- [start:fixed]
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.aux_head = nn.Linear(4, 1)
        self.head = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.body(x)))


dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
# walks the graph after each forward to find them
model = DDP(TwoHeads(), find_unused_parameters=True)
for _ in range(3):
    model(torch.randn(2, 4)).sum().backward()
net = model.module
print(net.aux_head.weight.grad, net.head.weight.grad is not None)
dist.destroy_process_group()
# > None True
# --8<-- [end:fixed]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The indices 2 and 3 are aux_head.weight and aux_head.bias, in model.parameters() order.
    names = [name for name, _ in TwoHeads().named_parameters()]
    assert names[2:4] == ["aux_head.weight", "aux_head.bias"]
    assert any("find_unused_parameters=True" in line for line in error_lines)  # the message names the fix
    # static_graph=True also works when the SAME parameters go unused every iteration.
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        static = DDP(TwoHeads(), static_graph=True)
        for _ in range(3):
            static(torch.randn(2, 4)).sum().backward()
        assert static.module.aux_head.weight.grad is None and static.module.body.weight.grad is not None
        # DDP keeps the module's own Parameter objects, so an optimizer built before wrapping is fine with DDP
        # (unlike FSDP2, which swaps them for new DTensor parameters).
        inner = TwoHeads()
        assert all(a is b for a, b in zip(DDP(inner).parameters(), inner.parameters(), strict=True))
        # The plain model fails again in the same way, so the error is not a one-off.
        plain = DDP(TwoHeads())
        plain(torch.randn(2, 4)).sum().backward()
        with pytest.raises(RuntimeError, match="Expected to have finished reduction in the prior iteration"):
            plain(torch.randn(2, 4))
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


if __name__ == "__main__":
    _check()
