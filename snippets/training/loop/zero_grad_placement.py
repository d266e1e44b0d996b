"""zero_grad() sets grads to None by default (since 2.0); skipping it accumulates; where it may go in the loop."""

# --8<-- [start:set_to_none]
import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

model(torch.ones(2, 3)).sum().backward()
optimizer.zero_grad()  # default set_to_none=True
print(model.weight.grad)
# > None
model(torch.ones(2, 3)).sum().backward()
# the pre-2.0 behaviour: keep the tensor, fill it with zeros
optimizer.zero_grad(set_to_none=False)
print(model.weight.grad)
# > tensor([[0., 0., 0.]])
# --8<-- [end:set_to_none]

# --8<-- [start:accumulates]
import torch
from torch import nn

model = nn.Linear(3, 1)
x = torch.ones(2, 3)
model(x).sum().backward()
first = model.weight.grad.clone()
model(x).sum().backward()  # no zero_grad in between: the new grad is ADDED
print(torch.equal(model.weight.grad, 2 * first))
# > True
# --8<-- [end:accumulates]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Two valid placements -- zero_grad first, or zero_grad last -- train identically.
    def run(zero_first: bool) -> torch.Tensor:
        torch.manual_seed(0)
        net = nn.Linear(3, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        data = torch.randn(16, 3)
        target = data.sum(dim=1, keepdim=True)
        for _ in range(5):
            if zero_first:
                opt.zero_grad()
            nn.functional.mse_loss(net(data), target).backward()
            opt.step()
            if not zero_first:
                opt.zero_grad()
        return net.weight.detach().clone()

    torch.testing.assert_close(run(zero_first=True), run(zero_first=False), rtol=0, atol=0)

    # set_to_none matters to the optimizer: a None grad means "skip this parameter" ...
    net = nn.Linear(3, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    net(torch.ones(2, 3)).sum().backward()
    opt.step()
    opt.zero_grad()
    before = net.weight.detach().clone()
    opt.step()
    assert torch.equal(net.weight, before)
    # ... while a zero grad is still a step: momentum keeps moving the weights.
    for p in net.parameters():
        p.grad = torch.zeros_like(p)
    opt.step()
    assert not torch.equal(net.weight, before)

    # model.zero_grad() and optimizer.zero_grad() do the same when the optimizer holds every parameter.
    net(torch.ones(2, 3)).sum().backward()
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert first.tolist() == [[2.0, 2.0, 2.0]]


if __name__ == "__main__":
    _check()
