"""CUDA graphs replay frozen launches: copy inputs into static tensors; host syncs are illegal; RNG stays fresh."""

# --8<-- [start:demo]
import torch

static_x = torch.zeros(8, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):  # warm up on a side stream
    static_y = static_x * 2
torch.cuda.current_stream().wait_stream(s)

g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    static_y = static_x * 2
ptr = static_y.data_ptr()

new = torch.arange(8.0, device="cuda")
static_x.copy_(new)  # inputs go into the captured tensor
g.replay()
print(torch.equal(static_y, new * 2), static_y.data_ptr() == ptr)
# > True True
# --8<-- [end:demo]

# --8<-- [start:rules]
drop_g = torch.cuda.CUDAGraph()
ones = torch.ones(1000, device="cuda")
with torch.cuda.graph(drop_g):
    mask = torch.nn.functional.dropout(ones, p=0.5)
drop_g.replay()
first = mask.clone()
drop_g.replay()
print(torch.equal(first, mask))  # each replay draws new numbers
# > False

try:
    with torch.cuda.graph(torch.cuda.CUDAGraph()):
        static_x.sum().item()  # a host sync inside a capture
except RuntimeError as err:
    print("captur" in str(err))
# > True
# --8<-- [end:rules]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    static_x.copy_(torch.ones(8, device="cuda"))
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(static_y, torch.full((8,), 2.0, device="cuda"))


if __name__ == "__main__":
    _check()
