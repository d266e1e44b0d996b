"""TorchScript and torch.ao.quantization warn on 2.14: both point to their successors."""

# --8<-- [start:demo]
import warnings

import torch


def add_one(x: torch.Tensor) -> torch.Tensor:
    return x + 1


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scripted = torch.jit.script(add_one)  # still works...
# ...and says where to go
first, advice = str(caught[0].message).split(". ", 1)
print(caught[0].category.__name__, first)
# > FutureWarning `torch.jit.script` is deprecated
print(advice)
# > Please switch to `torch.compile` or `torch.export`.
# --8<-- [end:demo]

demo_scripted = scripted


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import inspect

    import pytest

    assert (
        demo_scripted(torch.tensor(1.0)).item()
        == 2.0
        == add_one(torch.tensor(1.0)).item()
    )
    with pytest.warns(FutureWarning, match=r"`torch.jit.script` is deprecated"):
        torch.jit.script(add_one)
    with warnings.catch_warnings(
        record=True
    ) as traced:  # trace warns for trace and trace_method
        warnings.simplefilter("always")
        torch.jit.trace(torch.nn.Linear(2, 2), torch.randn(1, 2))
    messages = {str(w.message) for w in traced if w.category is FutureWarning}
    assert (
        "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`."
        in messages
    )
    # The ONNX exporter's default is the dynamo-based one (it needs the onnxscript package to run).
    assert (
        inspect.signature(torch.onnx.export).parameters["dynamo"].default
        is True
    )
    # AOTInductor's packaging entry points exist (compiling one needs a C++ toolchain: prose only).
    from torch import _inductor

    assert callable(_inductor.aoti_compile_and_package) and callable(
        _inductor.aoti_load_package
    )


if __name__ == "__main__":
    _check()
