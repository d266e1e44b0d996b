"""Server-side micro-batching: one forward for many requests, the same answers as one by one."""

# --8<-- [start:demo]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).eval()


@torch.inference_mode()
def serve(requests, max_batch=8):
    """Answer queued requests in micro-batches of at most `max_batch`."""
    answers = []
    for start in range(0, len(requests), max_batch):
        # one launch for up to 8 requests
        batch = torch.stack(requests[start : start + max_batch])
        answers.extend(model(batch).unbind(0))
    return answers


queue = [torch.randn(16) for _ in range(20)]
batched = serve(queue)  # 3 forward passes instead of 20
one_by_one = serve(queue, max_batch=1)
print(
    len(batched),
    all(
        torch.allclose(a, b, atol=1e-6)
        for a, b in zip(batched, one_by_one, strict=True)
    ),
)
# > 20 True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    calls = []
    handle = model.register_forward_hook(
        lambda m, args, out: calls.append(args[0].shape[0])
    )
    serve(queue)
    handle.remove()
    assert calls == [8, 8, 4]  # three forwards, the last one partial
    assert not batched[0].requires_grad and batched[0].is_inference()


if __name__ == "__main__":
    _check()
