"""Rapid-fire answers for Module 6 that are best given as code."""

# --8<-- [start:overflow]
import torch

# fp16 tops out at 65504
print(torch.tensor(70000.0).half(), torch.tensor(70000.0).bfloat16())
# > tensor(inf, dtype=torch.float16) tensor(70144., dtype=torch.bfloat16)
# --8<-- [end:overflow]

# --8<-- [start:autocast_defaults]
import torch

print(torch.get_autocast_dtype("cuda"), torch.get_autocast_dtype("cpu"))
# > torch.float16 torch.bfloat16
# --8<-- [end:autocast_defaults]

# --8<-- [start:lazy_compile]
import torch

graphs = []


def counting_backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


compiled = torch.compile(torch.nn.Linear(4, 4), backend=counting_backend)
print(len(graphs))  # torch.compile only wraps the module
# > 0
compiled(torch.randn(2, 4))
print(len(graphs))  # the first call traces and compiles
# > 1
# --8<-- [end:lazy_compile]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    assert torch.finfo(torch.float16).max == 65504
    assert torch.isinf(torch.tensor(70000.0).half()) and torch.tensor(70000.0).bfloat16().item() == 70144.0
    assert torch.get_autocast_dtype("cuda") == torch.float16 and torch.get_autocast_dtype("cpu") == torch.bfloat16
    compiled(torch.randn(2, 4))  # same shape and dtype: the guards pass, no new graph
    assert len(graphs) == 1


if __name__ == "__main__":
    _check()
