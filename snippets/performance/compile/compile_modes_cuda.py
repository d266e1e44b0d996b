"""mode="reduce-overhead" on a GPU: Inductor kernels replayed as a CUDA graph, with the output-reuse caveat."""

# --8<-- [start:demo]
import torch
from torch import nn

model = nn.Sequential(nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 256)).cuda().eval()
x = torch.randn(64, 256, device="cuda")  # CUDA graphs want static shapes: one graph per shape
compiled = torch.compile(model, mode="reduce-overhead")

with torch.no_grad():
    expected = model(x)
    outputs = []
    for _ in range(5):  # the first calls compile, warm up and record; the later ones replay
        torch.compiler.cudagraph_mark_step_begin()  # a new iteration starts here
        outputs.append(compiled(x).clone())  # clone what you keep: the next replay reuses the output memory
print(all(torch.allclose(out, expected, rtol=1e-4, atol=1e-4) for out in outputs))
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
