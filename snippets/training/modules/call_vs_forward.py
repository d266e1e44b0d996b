"""model(x) runs __call__, which runs the forward hooks around forward; model.forward(x) skips them."""

# --8<-- [start:demo]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
calls: list[str] = []
model.register_forward_hook(lambda module, args, output: calls.append("model"))
model[1].register_forward_hook(
    lambda module, args, output: calls.append("relu")
)

model(torch.randn(3, 4))
print(calls)
# > ['relu', 'model']
calls.clear()
model.forward(torch.randn(3, 4))
# the model's own hook is skipped; the layers inside were still called as
# modules
print(calls)
# > ['relu']
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # A hook that rewrites the output changes model(x) but not model.forward(x).
    layer = nn.Linear(2, 2)
    layer.register_forward_hook(lambda module, args, output: torch.zeros_like(output))
    x = torch.ones(1, 2)
    assert torch.count_nonzero(layer(x)) == 0
    torch.testing.assert_close(layer.forward(x), x @ layer.weight.T + layer.bias)
    # Pre-hooks (which can rewrite the inputs) are skipped the same way.
    seen: list[str] = []
    layer.register_forward_pre_hook(lambda module, args: seen.append("pre"))
    layer.forward(x)
    assert seen == []
    layer(x)
    assert seen == ["pre"]
    # Global hooks (used by profilers and tools) are skipped too.
    handle = nn.modules.module.register_module_forward_hook(lambda module, args, output: seen.append("global"))
    try:
        layer.forward(x)
        assert seen == ["pre"]
        layer(x)
        assert seen == ["pre", "pre", "global"]
    finally:
        handle.remove()
    assert calls == ["relu"]


if __name__ == "__main__":
    _check()
