"""Roofline arithmetic: a bf16 linear layer's intensity is about the batch; decode attention's is the GQA group size."""

# --8<-- [start:demo]
import torch
from torch.utils.flop_counter import FlopCounterMode

RIDGE = {"A100 80GB": 312e12 / 2.04e12, "H100 SXM": 989e12 / 3.35e12,
         "H200": 989e12 / 4.8e12}  # dense bf16 FLOP/s over HBM bytes/s
print({gpu: round(r) for gpu, r in RIDGE.items()})
# > {'A100 80GB': 153, 'H100 SXM': 295, 'H200': 206}

# the meta device: shapes and dtypes only, no memory and no arithmetic,
# which is all that FLOP counting and byte sizes need
layer = torch.nn.Linear(4096, 4096, bias=False, dtype=torch.bfloat16,
                        device="meta")
for batch in (1, 64, 512):  # tokens in flight: decode batch or prefill
    x = torch.randn(batch, 4096, dtype=torch.bfloat16, device="meta")
    with FlopCounterMode(display=False) as counter:
        y = layer(x)
    moved = layer.weight.nbytes + x.nbytes + y.nbytes  # read W, x; write y
    print(batch, round(counter.get_total_flops() / moved, 1))
# > 1 1.0
# > 64 62.1
# > 512 409.6
# --8<-- [end:demo]

# --8<-- [start:attention]
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

H_Q, H_KV, T, D = 32, 8, 4096, 128  # one decode token over a 4k cache
q = torch.randn(1, H_Q, 1, D, dtype=torch.bfloat16, device="meta")
k = torch.randn(1, H_KV, T, D, dtype=torch.bfloat16, device="meta")
v = torch.randn(1, H_KV, T, D, dtype=torch.bfloat16, device="meta")
with sdpa_kernel([SDPBackend.MATH]), FlopCounterMode(display=False) as c:
    F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
flops = c.get_total_flops()
print(flops, flops / (k.nbytes + v.nbytes))  # the cache is read once
# > 67108864 4.0
# --8<-- [end:attention]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert 150 < RIDGE["A100 80GB"] < 155 and 290 < RIDGE["H100 SXM"] < 300 and 200 < RIDGE["H200"] < 210
    # Linear: 2·B·k·n FLOPs; intensity ≈ B while B << 4096, and decode at B = 1 is far below every ridge.
    with FlopCounterMode(display=False) as counter:
        layer(torch.randn(1, 4096, dtype=torch.bfloat16, device="meta"))
    assert counter.get_total_flops() == 2 * 4096 * 4096
    # The meta device counts what real tensors count (a small layer, on both).
    counts = []
    for device in ("cpu", "meta"):
        small = torch.nn.Linear(64, 32, bias=False, dtype=torch.bfloat16, device=device)
        with FlopCounterMode(display=False) as counter:
            out = small(torch.randn(8, 64, dtype=torch.bfloat16, device=device))
        counts.append((counter.get_total_flops(), out.nbytes))
    assert counts[0] == counts[1] == (2 * 8 * 64 * 32, 8 * 32 * 2)
    # Decode attention: 4·H_q·T·d FLOPs over 2·H_kv·T·d·2 bytes = H_q / H_kv, the group size, at any batch.
    assert flops == 4 * H_Q * T * D
    assert flops / (k.nbytes + v.nbytes) == H_Q / H_KV


if __name__ == "__main__":
    _check()
