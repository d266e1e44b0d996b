"""Dynamo rewrites bytecode: a graph break splits f into a compiled prefix and a __resume_at continuation."""

# --8<-- [start:demo]
import logging

import torch

calls = []


def counting_backend(gm, example_inputs):
    ops = [n.target.__name__ for n in gm.graph.nodes
           if n.op == "call_function"]
    calls.append(ops)
    return gm.forward


def f(x):
    x = torch.sin(x)
    print("graph break")  # Dynamo can't put print in a graph
    return torch.cos(x)


records = []
handler = logging.Handler()
handler.emit = records.append
logging.getLogger("torch._dynamo").addHandler(handler)
torch._logging.set_logs(bytecode=True)
out = torch.compile(f, backend=counting_backend)(torch.zeros(3))
torch._logging.set_logs()
# > graph break
print(calls)  # two graphs: the prefix, then the continuation
# > [['sin'], ['cos']]
log = "\n".join(r.getMessage() for r in records)
print("MODIFIED BYTECODE f" in log, "__resume_at_" in log)
# > True True
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    logging.getLogger("torch._dynamo").removeHandler(handler)
    assert "ORIGINAL BYTECODE f" in log
    assert "__compiled_fn_" in log  # the rewritten f loads and calls the compiled graph
    # the continuation is a code object of its own, compiled as a frame of its own
    assert "torch_dynamo_resume_in_f_at_" in log
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # f itself, run eagerly: the same result
        torch.testing.assert_close(out, f(torch.zeros(3)))
    assert len(calls) == 2


if __name__ == "__main__":
    _check()
