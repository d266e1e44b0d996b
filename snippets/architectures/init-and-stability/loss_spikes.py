"""Loss spikes: QK-norm bounds attention logits, z-loss pins the logit shift, a lower beta2 absorbs jumps."""

# --8<-- [start:qk_norm]
import torch
import torch.nn.functional as F

hd = 16
x = torch.randn(32, hd)
w_q, w_k = torch.randn(hd, hd) / hd**0.5, torch.randn(hd, hd) / hd**0.5
for scale in (1, 10, 100):  # weights that grow during training
    q, k = x @ (scale * w_q), x @ (scale * w_k)
    plain = (q @ k.T / hd**0.5).abs().max()
    q_n, k_n = F.rms_norm(q, (hd,)), F.rms_norm(k, (hd,))  # QK-norm
    normed = (q_n @ k_n.T / hd**0.5).abs().max()
    print(scale, f"{plain.item():.0f}", f"{normed.item():.2f}")  # bound: 4
# > 1 5 3.10
# > 10 474 3.10
# > 100 47373 3.10
# --8<-- [end:qk_norm]

# --8<-- [start:adam]
import torch


def update_on_jump(beta2, quiet=2000, jump=1000.0):
    w = torch.zeros(1, requires_grad=True)
    opt = torch.optim.Adam([w], lr=1.0, betas=(0.9, beta2))
    for step in range(quiet + 1):
        before = w.detach().clone()
        w.grad = torch.full((1,), jump if step == quiet else 1.0)
        opt.step()
    return (w.detach() - before).abs().item()


for beta2 in (0.999, 0.99, 0.95):
    print(beta2, round(update_on_jump(beta2), 2))
# > 0.999 2.97
# > 0.99 1.01
# > 0.95 0.45
# --8<-- [end:adam]

# --8<-- [start:guards]
import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, -1.0, 0.5]])
target = torch.tensor([0])
shifted = logits + 30.0  # same probabilities, larger log Z
print(torch.allclose(F.cross_entropy(logits, target),
                     F.cross_entropy(shifted, target)),
      round(shifted.logsumexp(-1).square().item(), 1))  # z-loss sees it
# > True 1039.5
w = torch.nn.Parameter(torch.ones(3))
w.grad = torch.tensor([1.0, float("nan"), 0.0])
print(torch.nn.utils.clip_grad_norm_([w], max_norm=1.0))  # no error
# > tensor(nan)
# --8<-- [end:guards]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # QK-norm bounds every logit by sqrt(hd) whatever the scale; without it they grow as scale^2.
    big = (x @ (100 * w_q)) @ (x @ (100 * w_k)).T / hd**0.5
    assert big.abs().max() > 1000
    assert (F.rms_norm(x @ (100 * w_q), (hd,)) @ F.rms_norm(x @ (100 * w_k), (hd,)).T / hd**0.5).abs().max() <= 4.0
    # Attention entropy collapses as the logits grow.
    def entropy(s):
        p = s.softmax(-1)
        return -(p * p.clamp_min(1e-30).log()).sum(-1).mean()

    small = (x @ w_q) @ (x @ w_k).T / hd**0.5
    assert entropy(small) > 2.0 and entropy(big) < 0.1
    # Soft-capping: cap * tanh(x / cap) is bounded and its gradient fades smoothly.
    z = torch.tensor([0.0, 50.0, 200.0], requires_grad=True)
    capped = 30 * torch.tanh(z / 30)
    capped.sum().backward()
    assert capped[2] < 30.0 and abs(capped[1].item() - 27.9) < 0.05
    assert z.grad[0] == 1.0 and z.grad[2] < 1e-5
    # Adam: the larger beta2, the larger the step on a sudden jump. The demo's `# >` lines (2.97 > 1.01 >
    # 0.45), compared with what it printed, prove it: no need for 6,000 more optimizer steps here.
    # error_if_nonfinite raises.
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        torch.nn.utils.clip_grad_norm_([w], max_norm=1.0, error_if_nonfinite=True)
    assert hasattr(torch.nn.utils, "get_total_norm") and hasattr(torch.nn.utils, "clip_grads_with_norm_")
    defaults = torch.optim.AdamW([torch.nn.Parameter(torch.ones(1))]).defaults
    assert defaults["betas"] == (0.9, 0.999) and defaults["eps"] == 1e-8


if __name__ == "__main__":
    _check()
