"""Flashcards (conventions page): the code answer of a card, and the claims of the deck's other cards."""

# --8<-- [start:mt]
import torch

x = torch.zeros(2, 3, 4)  # a batch of two 3x4 matrices
print(x.mT.shape)
# > torch.Size([2, 4, 3])
# --8<-- [end:mt]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # mT swaps the last two dims only; x.T reverses all of them and warns on anything but 2-D.
    assert x.mT.shape == (2, 4, 3)
    with pytest.warns(UserWarning, match=r"The use of `x.T` on tensors of dimension other than 2 .* is deprecated"):
        assert x.T.shape == (4, 3, 2)
    # zero_grad() leaves None in .grad by default, not zeros.
    w = torch.ones(2, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    w.sum().backward()
    optimizer.zero_grad()
    assert w.grad is None
    # no_grad() stops graph recording but leaves Dropout in training mode; eval() is what switches it.
    dropout = torch.nn.Dropout(p=0.5)
    with torch.no_grad():
        out = dropout(torch.ones(1000))
    assert not out.requires_grad and (out == 0).any()
    dropout.eval()
    assert torch.equal(dropout(torch.ones(1000)), torch.ones(1000))


if __name__ == "__main__":
    _check()
