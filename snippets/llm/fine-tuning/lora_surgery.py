"""LoRA surgery on a model: freeze, wrap the targets, optimize only adapters, save them, merge and unmerge."""

# --8<-- [start:demo]
import torch
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, base, r=4, alpha=8):
        super().__init__()
        self.base = base  # the frozen original layer
        self.A = nn.Parameter(torch.randn(r, base.in_features) / r ** 0.5)
        self.B = nn.Parameter(torch.zeros(base.out_features, r))  # delta = 0
        self.scale = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.A.T @ self.B.T) * self.scale

    def delta(self):
        return self.B @ self.A * self.scale


def add_lora(model, targets=("q", "v")):
    model.requires_grad_(False)  # freeze everything first
    for module in list(model.modules()):
        for child_name, child in list(module.named_children()):
            if child_name in targets and isinstance(child, nn.Linear):
                setattr(module, child_name, LoRALinear(child))  # swap in
    return model


def make_model():
    torch.manual_seed(0)
    layers = [nn.ModuleDict({"q": nn.Linear(32, 32), "v": nn.Linear(32, 32),
                             "norm": nn.LayerNorm(32)}) for _ in range(2)]
    return nn.ModuleList(layers)


def run(model, x):
    for layer in model:
        x = layer["norm"](x + layer["q"](x) + layer["v"](x))
    return x


model = add_lora(make_model())
x = torch.randn(4, 32)
before = run(model, x)
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.AdamW(trainable, lr=1e-2)
print(len(trainable), sum(p.numel() for p in trainable))
# > 8 1024
for _ in range(3):
    run(model, x).square().mean().backward()
    optimizer.step()
    optimizer.zero_grad()
adapters = {k: v for k, v in model.state_dict().items()
            if k.endswith((".A", ".B"))}  # save only these
print(len(adapters), torch.allclose(before, run(model, x)))
# > 8 False
# --8<-- [end:demo]

# --8<-- [start:merge]
layer = model[0]["q"]
w = layer.base.weight.detach().clone()
with torch.no_grad():
    layer.base.weight += layer.delta()  # merge for serving
    layer.base.weight -= layer.delta()  # unmerge to swap adapters
print(torch.equal(layer.base.weight, w))  # fp32: close, not bitwise
# > False

torch.manual_seed(0)
big = torch.randn(512, 512).bfloat16()  # bf16 weights, N(0, 1)
delta = torch.randn(512, 512) * 1e-3  # a small LoRA update
merged = (big.float() + delta).bfloat16().float()  # stored back in bf16
moved = (merged != big.float()).float().mean().item()
error = ((merged - big.float()) - delta).norm() / delta.norm()
print(f"{moved:.1%} of bf16 weights changed; error {error:.2f}")
# > 22.6% of bf16 weights changed; error 0.80
# --8<-- [end:merge]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Trainable = adapters only: 2 layers x 2 targets x (A + B) = 8 tensors of 4 x 32.
    assert sum(p.numel() for p in trainable) == 2 * 2 * (4 * 32 + 32 * 4)
    assert len(optimizer.param_groups[0]["params"]) == 8 and len(optimizer.state) == 8
    # The frozen base got no gradient and did not move; the norms stayed frozen.
    fresh = add_lora(make_model())
    for (name, p), (_, p0) in zip(model.named_parameters(), fresh.named_parameters(), strict=True):
        assert p.grad is None
        if not name.endswith((".A", ".B")):  # (the merge block moved q's weight by rounding only)
            torch.testing.assert_close(p, p0, atol=1e-6, rtol=0)
    # The delta starts at exactly zero: a freshly wrapped model equals the original.
    torch.testing.assert_close(run(fresh, x), run(make_model(), x), atol=0, rtol=0)
    # Loading the adapter state dict into a fresh wrapped model reproduces the outputs.
    result = fresh.load_state_dict(adapters, strict=False)
    assert result.unexpected_keys == []
    assert not [k for k in result.missing_keys if k.endswith((".A", ".B"))]
    # (the merge block above changed model[0]["q"]'s base weight by rounding only)
    torch.testing.assert_close(run(fresh, x), run(model, x), atol=1e-5, rtol=1e-5)
    # Merged equals unmerged in fp32 (within rounding).
    lay = fresh[1]["v"]
    merged_w = lay.base.weight + lay.delta()
    torch.testing.assert_close(x @ merged_w.T + lay.base.bias, lay(x), atol=1e-5, rtol=1e-5)
    assert (layer.base.weight - w).abs().max() < 1e-6
    # bf16 merge: most of the small delta rounds away.
    assert 0.2 < moved < 0.3 and error > 0.5


if __name__ == "__main__":
    _check()
