"""A focal loss module: cross-entropy scaled by (1 - p_t)^gamma; gamma = 0 is exactly cross-entropy."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch import nn


class FocalLoss(nn.Module):
    """Focal loss (Lin et al., 2017): logits (N, C, ...), class ids (N, ...)."""

    def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__()
        self.gamma, self.reduction = gamma, reduction

    def forward(
        self, logits: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        log_p = F.log_softmax(logits, dim=1)  # stable: never log(softmax(x))
        # log-probability of the true class
        log_pt = log_p.gather(1, target.unsqueeze(1)).squeeze(1)
        # easy examples (p_t near 1) fade out
        loss = -((1 - log_pt.exp()) ** self.gamma) * log_pt
        if self.reduction == "mean":
            return loss.mean()
        if self.reduction == "sum":
            return loss.sum()
        return loss  # reduction="none"


logits = torch.randn(8, 5)
target = torch.randint(0, 5, (8,))
print(
    torch.allclose(
        FocalLoss(gamma=0.0)(logits, target), F.cross_entropy(logits, target)
    )
)
# > True
easy_and_hard = torch.tensor([[4.0, 0.0], [0.0, 0.0]])  # p_t: 0.982 and 0.5
per_example = FocalLoss(gamma=2.0, reduction="none")(
    easy_and_hard, torch.tensor([0, 0])
)
ratio = per_example / F.cross_entropy(
    easy_and_hard, torch.tensor([0, 0]), reduction="none"
)
print([round(r, 4) for r in ratio.tolist()])  # the factor (1 - p_t)^2
# > [0.0003, 0.25]
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # gamma = 0 matches cross-entropy in value and gradient, for every reduction.
    x = torch.randn(6, 4, dtype=torch.float64, requires_grad=True)
    y = torch.randint(0, 4, (6,))
    for reduction in ("mean", "sum", "none"):
        ours = FocalLoss(gamma=0.0, reduction=reduction)(x, y)
        ref = F.cross_entropy(x, y, reduction=reduction)
        torch.testing.assert_close(ours, ref)
        g_ours = torch.autograd.grad(ours.sum(), x)[0]
        g_ref = torch.autograd.grad(ref.sum(), x)[0]
        torch.testing.assert_close(g_ours, g_ref)

    # gamma = 2 against a plain reference written from the definition, sample by sample, in float64.
    def reference(logits: torch.Tensor, target: torch.Tensor, gamma: float) -> torch.Tensor:
        terms = []
        for row, cls in zip(logits, target.tolist(), strict=True):
            p_t = torch.exp(row[cls]) / torch.exp(row).sum()
            terms.append(-((1 - p_t) ** gamma) * torch.log(p_t))
        return torch.stack(terms).mean()

    torch.testing.assert_close(FocalLoss(gamma=2.0)(x, y), reference(x, y, 2.0))
    # The backward pass is right: gradcheck in float64.
    assert torch.autograd.gradcheck(lambda inp: FocalLoss(gamma=2.0)(inp, y), (x,))
    # Dense targets work too (segmentation): (N, C, H, W) logits with (N, H, W) class ids.
    seg = torch.randn(2, 3, 4, 4, dtype=torch.float64)
    seg_target = torch.randint(0, 3, (2, 4, 4))
    flat = reference(seg.permute(0, 2, 3, 1).reshape(-1, 3), seg_target.reshape(-1), 2.0)
    torch.testing.assert_close(FocalLoss(gamma=2.0)(seg, seg_target), flat)
    torch.testing.assert_close(FocalLoss(gamma=0.0)(seg, seg_target), F.cross_entropy(seg, seg_target))
    # The printed factors are (1 - p_t)^2 for p_t = sigmoid(4) and 0.5.
    p_easy = torch.sigmoid(torch.tensor(4.0))
    torch.testing.assert_close(ratio, torch.stack([(1 - p_easy) ** 2, torch.tensor(0.25)]))
    # The page's numbers: p_t = 0.982 (not 0.98, which would keep 0.04 %), and it keeps 0.032 % of CE.
    assert round(p_easy.item(), 3) == 0.982 and round(p_easy.item(), 2) == 0.98
    assert round(100 * ratio[0].item(), 3) == 0.032
    assert round(100 * (1 - 0.98) ** 2, 2) == 0.04  # the old wording's p_t gives a different factor


if __name__ == "__main__":
    _check()
