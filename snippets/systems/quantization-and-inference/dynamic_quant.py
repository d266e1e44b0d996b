"""Dynamic int8 quantization with torch.ao still runs on 2.14, and warns that it is deprecated."""

# --8<-- [start:demo]
import warnings

import torch
from torch import nn

model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8)).eval()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    qmodel = torch.ao.quantization.quantize_dynamic(
        model, {nn.Linear}, dtype=torch.qint8
    )
# int8 weights; activations quantized per batch at run time
print(str(qmodel[0]).split("(")[0], qmodel[0].weight().dtype)
# > DynamicQuantizedLinear torch.qint8
print(caught[0].category.__name__)
# > DeprecationWarning
print(str(caught[0].message).splitlines()[0].strip())
# > torch.ao.quantization is deprecated and will be removed in 2.10.
x = torch.randn(16, 64)
print(torch.allclose(qmodel(x), model(x), atol=0.05))
# > True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    with pytest.warns(
        DeprecationWarning, match="torch.ao.quantization is deprecated"
    ):
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore", UserWarning
            )  # the quantized-tensor creation notice
            torch.ao.quantization.quantize_dynamic(
                model, {nn.Linear}, dtype=torch.qint8
            )
    assert "torchao" in str(
        caught[0].message
    )  # the message names the successor
    assert qmodel[0].weight().dtype == torch.qint8
    assert (
        type(model[0]) is nn.Linear
    )  # quantize_dynamic copied the model (inplace=False)
    torch.testing.assert_close(qmodel(x), model(x), atol=0.05, rtol=0.0)


if __name__ == "__main__":
    _check()
