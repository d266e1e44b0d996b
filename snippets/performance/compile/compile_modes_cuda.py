"""mode="reduce-overhead" on a GPU: Inductor kernels replayed as a CUDA graph, with the output-reuse caveat."""

# --8<-- [start:demo]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 256))
model = model.cuda().eval()
# a recorded CUDA graph replays one fixed shape; a new shape records another
x = torch.randn(64, 256, device="cuda")
compiled = torch.compile(model, mode="reduce-overhead")

with torch.no_grad():
    expected = model(x)
    outputs = []
    # the first calls compile, warm up and record; the later ones replay
    for _ in range(5):
        # a new iteration starts here
        torch.compiler.cudagraph_mark_step_begin()
        # clone what you keep: the next replay reuses the output memory
        outputs.append(compiled(x).clone())
print(all(torch.allclose(o, expected, rtol=1e-4, atol=1e-4) for o in outputs))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    for out in outputs:
        torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
    assert outputs[0].data_ptr() != outputs[-1].data_ptr()  # the clones are independent copies
    # The default mode compiles the same model without CUDA graphs; same numbers.
    plain = torch.compile(model)
    with torch.no_grad():
        torch.testing.assert_close(plain(x), expected, rtol=1e-4, atol=1e-4)


if __name__ == "__main__":
    _check()
