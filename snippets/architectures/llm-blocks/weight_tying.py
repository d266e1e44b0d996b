"""Weight tying: one Parameter, counted once by parameters(), twice by a naive state_dict count."""

# --8<-- [start:demo]
import torch
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, d=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.norm = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)  # weight: (vocab, d)
        self.lm_head.weight = self.embed.weight  # one Parameter, two uses

    def forward(self, ids):
        return self.lm_head(self.norm(self.embed(ids)))


model = TinyLM()
print(sum(p.numel() for p in model.parameters()),
      len(list(model.parameters())))  # the tie is counted once
# > 64128 3
sd = model.state_dict()
print(list(sd), sum(t.numel() for t in sd.values()))  # both keys
# > ['embed.weight', 'norm.weight', 'norm.bias', 'lm_head.weight'] 128128
# --8<-- [end:demo]

assert torch  # used above, in functions the next section's import shadows

# --8<-- [start:meta]
import torch

with torch.device("meta"):
    lm = TinyLM()  # TinyLM from the block above
print(lm.lm_head.weight is lm.embed.weight)
# > True
lm = lm.to_empty(device="cpu")  # allocates each name separately
print(lm.lm_head.weight is lm.embed.weight)
# > False
lm.lm_head.weight = lm.embed.weight  # re-tie, then initialize
print(sum(p.numel() for p in lm.parameters()))
# > 64128
# --8<-- [end:meta]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import copy
    import io

    assert sd["embed.weight"].data_ptr() == sd["lm_head.weight"].data_ptr()
    names = [n for n, _ in model.named_parameters()]
    assert "lm_head.weight" not in names
    assert "lm_head.weight" in [n for n, _ in model.named_parameters(remove_duplicate=False)]

    def saved_size(m):
        buf = io.BytesIO()
        torch.save(m.state_dict(), buf)
        return buf.tell()

    untied = TinyLM()
    untied.lm_head.weight = nn.Parameter(untied.embed.weight.detach().clone())
    assert saved_size(model) < 0.6 * saved_size(untied)  # the shared storage is written once
    # Loading an untied checkpoint keeps the tie and the last-loaded key wins.
    ckpt = {k: torch.randn_like(v) for k, v in untied.state_dict().items()}
    model.load_state_dict(ckpt)
    assert model.lm_head.weight is model.embed.weight
    torch.testing.assert_close(model.embed.weight, ckpt["lm_head.weight"])
    assert not torch.equal(model.embed.weight, ckpt["embed.weight"])
    # .to() and deepcopy keep the tie.
    m64 = copy.deepcopy(model).to(torch.float64)
    assert m64.lm_head.weight is m64.embed.weight
    assert lm.embed.weight.device.type == "cpu"
    # The tied gradient is the sum of the two uses.
    ids = torch.randint(0, 1000, (2, 5))
    model.zero_grad()
    model(ids).square().mean().backward()
    twin = TinyLM()
    twin.load_state_dict(model.state_dict())
    twin.lm_head.weight = nn.Parameter(model.embed.weight.detach().clone())
    twin.embed.weight = nn.Parameter(model.embed.weight.detach().clone())
    twin(ids).square().mean().backward()
    torch.testing.assert_close(model.embed.weight.grad, twin.embed.weight.grad + twin.lm_head.weight.grad)
    opt = torch.optim.AdamW(model.parameters())
    assert sum(len(g["params"]) for g in opt.param_groups) == 3
    # "Tying" by copying values makes two Parameters that drift apart.
    copied = TinyLM()
    copied.lm_head.weight = nn.Parameter(copied.embed.weight.detach().clone())
    assert len(list(copied.parameters())) == 4


if __name__ == "__main__":
    _check()
