"""A Python list of layers is invisible to parameters(), the optimizer, .to() and state_dict(); ModuleList is not."""

# --8<-- [start:demo]
import torch
from torch import nn


class ListMLP(nn.Module):
    def __init__(self, registered: bool) -> None:
        super().__init__()
        layers = [nn.Linear(8, 8) for _ in range(3)]
        self.layers = nn.ModuleList(layers) if registered else layers

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


broken, fixed = ListMLP(registered=False), ListMLP(registered=True)
print(len(list(broken.parameters())), len(list(fixed.parameters())))
# > 0 6
print(list(fixed.state_dict())[:2])
# > ['layers.0.weight', 'layers.0.bias']
try:
    torch.optim.SGD(broken.parameters(), lr=0.1)
except ValueError as err:
    print(err)
# > optimizer got an empty parameter list
# --8<-- [end:demo]

# --8<-- [start:module_dict]
import torch
from torch import nn


class MultiHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Linear(16, 32)
        self.heads = nn.ModuleDict(
            {"age": nn.Linear(32, 1), "genre": nn.Linear(32, 5)}
        )

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        h = torch.relu(self.trunk(x))
        return {name: head(h) for name, head in self.heads.items()}


out = MultiHead()(torch.randn(2, 16))
print({name: tuple(t.shape) for name, t in out.items()})
# > {'age': (2, 1), 'genre': (2, 5)}
# --8<-- [end:module_dict]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Both forward passes work: the list bug is silent until you train, save or move the model.
    x = torch.randn(4, 8)
    assert broken(x).shape == fixed(x).shape == (4, 8)
    # Invisible to state_dict and to .to(): the listed layers stay behind.
    assert broken.state_dict() == {} and len(fixed.state_dict()) == 6
    broken.to(torch.float64)
    fixed.to(torch.float64)
    assert all(layer.weight.dtype == torch.float32 for layer in broken.layers)
    assert all(layer.weight.dtype == torch.float64 for layer in fixed.layers)
    # train()/eval() do not reach them either.
    broken.eval()
    assert all(layer.training for layer in broken.layers)

    # With a registered trunk the optimizer builds fine, but silently skips the listed layers.
    class Mixed(ListMLP):
        def __init__(self) -> None:
            super().__init__(registered=False)
            self.out = nn.Linear(8, 1)

    mixed = Mixed()
    optimizer = torch.optim.SGD(mixed.parameters(), lr=0.1)
    listed_before = [layer.weight.detach().clone() for layer in mixed.layers]
    mixed.out(mixed(torch.randn(4, 8))).sum().backward()
    optimizer.step()
    assert all(torch.equal(before, layer.weight) for before, layer in zip(listed_before, mixed.layers, strict=True))
    assert all(layer.weight.grad is not None for layer in mixed.layers)  # grads computed, never applied

    # A plain dict is invisible too; ModuleList has no forward of its own; ParameterList registers tensors.
    class DictHeads(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.heads = {"a": nn.Linear(2, 2)}

    assert list(DictHeads().parameters()) == []
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.ModuleList([nn.Linear(2, 2)])(torch.ones(1, 2))
    assert len(list(nn.ParameterList([nn.Parameter(torch.ones(2))]).parameters())) == 1
    # ModuleDict registers every head under its key.
    multi = MultiHead()
    assert set(multi.state_dict()) == {
        "trunk.weight",
        "trunk.bias",
        "heads.age.weight",
        "heads.age.bias",
        "heads.genre.weight",
        "heads.genre.bias",
    }
    assert out["genre"].shape == (2, 5)


if __name__ == "__main__":
    _check()
