"""Stability levers: z-loss and its gradient, QK-norm's bound on scores, logit soft-capping, no-decay groups."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
logits = torch.randn(8, 100, requires_grad=True)  # (tokens, vocabulary)
targets = torch.randint(0, 100, (8,))
lse = logits.logsumexp(-1)
z_loss = 1e-4 * lse.square().mean()  # PaLM: pulls log Z towards 0
loss = F.cross_entropy(logits, targets) + z_loss

d_head = 16
x = torch.randn(2, 4, 32, d_head) * 1000  # activations that have blown up
qk_norm = nn.RMSNorm(d_head, elementwise_affine=False)  # per head
raw = (x @ x.mT / d_head ** 0.5).abs().max()
normed = (qk_norm(x) @ qk_norm(x).mT / d_head ** 0.5).abs().max()
print(f"{raw:.3g} {normed:.2f} <= {d_head ** 0.5}")
# > 9.7e+06 4.00 <= 4.0


def soft_cap(x, cap=30.0):  # Gemma 2: final logits at 30, attention at 50
    return cap * torch.tanh(x / cap)


print([round(v, 2) for v in soft_cap(torch.tensor([-1e3, 5.0, 1e3])).tolist()])
# > [-30.0, 4.95, 30.0]
# --8<-- [end:demo]

# --8<-- [start:groups]
import torch
from torch import nn

model = nn.Sequential(nn.Embedding(100, 32), nn.Linear(32, 32),
                      nn.LayerNorm(32), nn.Linear(32, 100))
decay, no_decay = [], []
for name, p in model.named_parameters():
    # matrices of linear layers decay; norms, biases, embeddings don't
    embedding = isinstance(model[int(name[0])], nn.Embedding)
    (decay if p.ndim == 2 and not embedding else no_decay).append(p)
optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                               {"params": no_decay, "weight_decay": 0.0}],
                              betas=(0.9, 0.95))
print(len(decay), len(no_decay))
# > 2 5
# --8<-- [end:groups]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # z-loss gradient = 2c · lse · softmax / tokens (closed form), on top of CE's softmax - onehot.
    g = torch.autograd.grad(z_loss, logits, retain_graph=True)[0]
    expected = 2e-4 * lse.detach()[:, None] * logits.detach().softmax(-1) / 8
    torch.testing.assert_close(g, expected)
    assert torch.equal(logits.argmax(-1), (logits - lse[:, None]).argmax(-1))  # argmax unchanged by log Z
    # QK-norm with unit gains bounds every score by sqrt(d_head), whatever the input scale.
    assert normed <= d_head**0.5 + 1e-4 and raw > 1e6
    assert nn.RMSNorm(16).eps is None  # default: the dtype's machine epsilon
    # Soft-cap stays inside ±cap and is nearly the identity for small values.
    capped = soft_cap(torch.linspace(-1e4, 1e4, 101))
    assert capped.abs().max() <= 30.0
    assert abs(soft_cap(torch.tensor(1.0)).item() - 1.0) < 1e-3
    # Param groups: the two Linear weight matrices decay; embedding, LayerNorm weight/bias and biases don't.
    assert len(decay) == 2 and len(no_decay) == 5
    assert optimizer.param_groups[1]["weight_decay"] == 0.0


if __name__ == "__main__":
    _check()
