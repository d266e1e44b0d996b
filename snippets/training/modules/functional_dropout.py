"""nn.Dropout follows model.eval(); F.dropout does not, unless you pass training=self.training."""

# --8<-- [start:stateless]
import torch
import torch.nn.functional as F
from torch import nn

layer = nn.Linear(3, 2)
x = torch.randn(4, 3)
# the functional form: you pass the state in
same = F.linear(x, layer.weight, layer.bias)
print(torch.equal(layer(x), same))
# > True
# --8<-- [end:stateless]

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.drop = nn.Dropout(p=0.5)  # a module: follows train()/eval()

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        return {
            "module": self.drop(x),
            "functional": F.dropout(x, p=0.5),  # training=True by default!
            "functional_fixed": F.dropout(x, p=0.5, training=self.training),
        }


block = Block().eval()
x = torch.ones(1000)
out = block(x)
for name, y in out.items():
    print(f"{name:>16}: any zeroed? {bool((y == 0).any())}")
# >           module: any zeroed? False
# >       functional: any zeroed? True
# > functional_fixed: any zeroed? False
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # In eval: the module and the fixed call are the identity; the plain functional call still drops ~half.
    ones = torch.ones(1000)
    assert torch.equal(out["module"], ones) and torch.equal(out["functional_fixed"], ones)
    dropped = int((out["functional"] == 0).sum())
    assert 400 < dropped < 600
    kept = out["functional"][out["functional"] != 0]
    assert torch.all(kept == 2.0)  # survivors are scaled by 1 / (1 - p) even in "eval"
    # In train mode all three drop.
    train_out = Block().train()(ones)
    assert all(int((y == 0).sum()) > 0 for y in train_out.values())
    # Same trap for F.batch_norm: training=True normalises with the batch statistics, not the running ones.
    batch = torch.randn(8, 3) * 5 + 2
    running_mean, running_var = torch.zeros(3), torch.ones(3)
    with_batch_stats = F.batch_norm(batch, running_mean.clone(), running_var.clone(), training=True)
    with_running_stats = F.batch_norm(batch, running_mean, running_var, training=False)
    torch.testing.assert_close(with_running_stats, batch / (1 + 1e-5) ** 0.5)
    assert not torch.allclose(with_batch_stats, with_running_stats)
    assert same.shape == (4, 2)
    # The functional defaults disagree, which is why training= is always passed explicitly.
    import inspect

    defaults = {
        f.__name__: inspect.signature(f).parameters["training"].default
        for f in (F.dropout, F.dropout2d, F.alpha_dropout, F.batch_norm)
    }
    assert defaults == {"dropout": True, "dropout2d": True, "alpha_dropout": False, "batch_norm": False}

    # A layer created inside forward is new and random on every call, and never registered.
    class Careless(nn.Module):
        def forward(self, inp: torch.Tensor) -> torch.Tensor:
            return nn.Linear(3, 2)(inp)

    careless = Careless()
    probe = torch.randn(1, 3)
    assert list(careless.parameters()) == [] and not torch.equal(careless(probe), careless(probe))


if __name__ == "__main__":
    _check()
