"""The LM loss without the full logits: checkpointed chunks by hand, and 2.14's linear_cross_entropy."""

# --8<-- [start:demo]
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

N, D, V = 256, 64, 2048  # tokens, hidden size, vocabulary
torch.manual_seed(0)
h = torch.randn(N, D, requires_grad=True)  # the last hidden states
W = torch.randn(V, D, requires_grad=True)  # the LM head
y = torch.randint(0, V, (N,))


def chunk_loss(h_chunk, y_chunk):  # logits for 64 tokens at a time
    return F.cross_entropy(h_chunk @ W.T, y_chunk, reduction="sum")


def chunked_ce(h, y, chunk=64):
    total = sum(checkpoint(chunk_loss, hc, yc, use_reentrant=False)
                for hc, yc in zip(h.split(chunk), y.split(chunk), strict=True))
    return total / len(y)  # logits are recomputed chunk by chunk in backward


def saved_bytes(fn):
    saved = {}

    def pack(t):
        saved[(t.untyped_storage().data_ptr(), t.shape)] = t.nbytes
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = fn()
    return loss, sum(saved.values()), max(saved.values())


for name, fn in [("full", lambda: F.cross_entropy(h @ W.T, y)),
                 ("chunked", lambda: chunked_ce(h, y))]:
    loss, total, largest = saved_bytes(fn)
    print(f"{name}: loss {loss.item():.4f}, saved {total:,} B, "
          f"largest {largest:,} B")
# > full: loss 29.2133, saved 2,689,028 B, largest 2,097,152 B
# > chunked: loss 29.2133, saved 16,896 B, largest 16,384 B
# --8<-- [end:demo]

# --8<-- [start:builtin]
opts = torch.nn.LinearCrossEntropyOptions(batch_chunk_size=64)
fused = F.linear_cross_entropy(h, W, y, options=opts)  # h @ W.T + CE
print(torch.allclose(fused, F.cross_entropy(h @ W.T, y)))
# > True
fused.backward()  # the gradients were prepared during the forward
try:
    fused.backward()
except RuntimeError as error:
    print(str(error)[:47])
# > linear_cross_entropy chunked backward called tw
# --8<-- [end:builtin]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    # Chunked loss and gradients equal the reference.
    ref = F.cross_entropy(h @ W.T, y)
    g_ref = torch.autograd.grad(ref, (h, W))
    g_chunk = torch.autograd.grad(chunked_ce(h, y), (h, W))
    for a, b in zip(g_ref, g_chunk, strict=True):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-5)
    # The reference keeps N x V fp32 tensors (the logits-sized 2 MiB); the chunks keep only their inputs.
    _, full_total, full_largest = saved_bytes(lambda: F.cross_entropy(h @ W.T, y))
    _, chunk_total, _ = saved_bytes(lambda: chunked_ce(h, y))
    assert full_largest == N * V * 4
    assert chunk_total < 0.1 * full_total
    # The built-in op: equal loss and gradients; a second backward raises.
    h.grad = W.grad = None
    out = F.linear_cross_entropy(h, W, y, options=opts)
    out.backward()
    torch.testing.assert_close(h.grad, g_ref[0], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(W.grad, g_ref[1], atol=1e-5, rtol=1e-4)
    # Sizing the real thing: 8,192 tokens x 128,256 vocabulary.
    assert round(8192 * 128_256 * 2 / 1e9, 1) == 2.1 and round(8192 * 128_256 * 4 / 1e9, 1) == 4.2


if __name__ == "__main__":
    _check()
