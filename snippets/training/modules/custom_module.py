"""A custom nn.Module: super().__init__() first, layers in __init__, the computation in forward."""

# --8<-- [start:demo]
import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self, in_features: int, hidden: int, classes: int) -> None:
        # creates the registries that attribute assignment fills
        super().__init__()
        self.body = nn.Linear(in_features, hidden)
        self.head = nn.Linear(hidden, classes)
        # a learnable tensor of our own
        self.scale = nn.Parameter(torch.ones(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.body(x)) * self.scale
        return self.head(h)  # raw logits: the loss applies (log-)softmax


model = TinyNet(4, 8, 3)
print([name for name, _ in model.named_parameters()])
# > ['scale', 'body.weight', 'body.bias', 'head.weight', 'head.bias']
print(model(torch.randn(2, 4)).shape)
# > torch.Size([2, 3])
# --8<-- [end:demo]

# --8<-- [start:forgot_super]
from torch import nn


class Forgetful(nn.Module):
    def __init__(self) -> None:
        self.fc = nn.Linear(4, 2)  # no super().__init__() above this line


try:
    Forgetful()
except AttributeError as err:
    print(err)
# > cannot assign module before Module.__init__() call
# --8<-- [end:forgot_super]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # Assignment registered every submodule and the Parameter; nothing else had to be declared.
    assert dict(model.named_children()).keys() == {"body", "head"}
    assert model.scale.requires_grad and isinstance(model.scale, nn.Parameter)
    assert sum(p.numel() for p in model.parameters()) == 8 + (4 * 8 + 8) + (8 * 3 + 3)
    # The message is the same kind for every registered thing: modules, parameters and buffers.
    with pytest.raises(AttributeError, match=r"cannot assign module before Module\.__init__\(\) call"):
        Forgetful()

    class ParamFirst(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(torch.ones(2))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module\.__init__\(\) call"):
        ParamFirst()

    class BufferFirst(nn.Module):
        def __init__(self) -> None:
            self.register_buffer("mask", torch.ones(2))

    with pytest.raises(AttributeError, match=r"cannot assign buffer before Module\.__init__\(\) call"):
        BufferFirst()

    # With only plain attributes the constructor "works" and the failure moves to the first call.
    class Quiet(nn.Module):
        def __init__(self) -> None:
            self.size = 3

    quiet = Quiet()
    with pytest.raises(AttributeError, match="has no attribute '_backward_hooks'"):
        quiet(torch.ones(1))

    # forward is the one method you must write: the base class raises when it is missing.
    class NoForward(nn.Module):
        pass

    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        NoForward()(torch.ones(1))

    # An optional layer set to None registers nothing.
    class Optional(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = None

    assert list(Optional().children()) == [] and Optional().state_dict() == {}


if __name__ == "__main__":
    _check()
