"""Guards check far more than shapes: the dispatch key set, strides, Python values and global state."""

# --8<-- [start:demo]
import logging
import re

import torch

compiles = []


def counting_backend(gm, example_inputs):
    compiles.append(gm)
    return gm.forward


def f(x, n, scale):
    return (x * scale) ** n


guards = []
handler = logging.Handler()
handler.emit = lambda record: guards.append(record.getMessage())
logging.getLogger("torch._dynamo").addHandler(handler)
torch._logging.set_logs(guards=True)
cf = torch.compile(f, backend=counting_backend)
cf(torch.ones(3), 2, 0.5)
torch._logging.set_logs()
text = "\n".join(guards)
tensor_guard = next(g for g in text.splitlines() if "TENSOR_MATCH" in g)
print(*re.findall(r"DispatchKeySet\(.*?\)|\w+=\[?\w*\]?", tensor_guard),
      sep="\n")
# > DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)
# > device=None
# > requires_grad=False
# > size=[3]
# > stride=[1]
print(sorted(re.findall(r"L\['\w+'\] == [\d.]+", text)))
# > ["L['n'] == 2", "L['scale'] == 0.5"]
print("GLOBAL_STATE" in text, '"num_threads"' in text)
# > True True
# --8<-- [end:demo]

# --8<-- [start:recompile]
threads = torch.get_num_threads()
torch.set_num_threads(threads + 1)  # global state is guarded: recompiles
cf(torch.ones(3), 2, 0.5)
torch.set_num_threads(threads)
print(len(compiles))
# > 2
with torch.inference_mode():  # an inference tensor has other dispatch keys
    x_inf = torch.ones(3)
cf(x_inf, 2, 0.5)
print(len(compiles))
# > 3
# --8<-- [end:recompile]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    logging.getLogger("torch._dynamo").removeHandler(handler)
    torch.testing.assert_close(cf(torch.ones(3), 2, 0.5), f(torch.ones(3), 2, 0.5))  # eager f agrees
    assert (
        "TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, "
        "AutogradCPU), torch.float32, device=None, requires_grad=False, size=[3], stride=[1])" in text
    )
    assert "EQUALS_MATCH: L['n'] == 2" in text and "EQUALS_MATCH: L['scale'] == 0.5" in text
    assert "GLOBAL_STATE" in text and '"grad_mode":true' in text and '"num_threads"' in text
    # explain() returns the guards as objects too
    explained = torch._dynamo.explain(lambda x: x.sin() * 2)(torch.ones(2))
    assert len(explained.out_guards) > 3
    # The "Which log answers this?" drill: each answer is a registered logging artifact or log
    from torch._logging._internal import log_registry

    for name in ("recompiles", "guards", "output_code", "aot_graphs", "graph_breaks", "bytecode", "fusion"):
        assert log_registry.is_artifact(name), name
    assert log_registry.is_log("dynamic") and not log_registry.is_artifact("dynamic")


if __name__ == "__main__":
    _check()
