"""AOTAutograd's partitioners: the default one saves what backward reads, min-cut recomputes cheap ops."""

# --8<-- [start:demo]
import torch
from functorch.compile import (
    aot_function,
    default_partition,
    make_boxed_func,
    min_cut_rematerialization_partition,
)


def f(x, w):
    return ((x @ w).sin().cos() * 2).tanh().sum()


def saved_and_backward(partition_fn):
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return make_boxed_func(gm)  # takes a list of args

    compiled = aot_function(f, fw_compiler=keep, bw_compiler=keep,
                            partition_fn=partition_fn)
    x = torch.randn(4, 4, requires_grad=True)
    w = torch.randn(4, 4, requires_grad=True)
    compiled(x, w).backward()
    forward, backward = graphs
    out = next(n for n in forward.graph.nodes if n.op == "output")
    saved = [str(a) for a in out.args[0][1:]]  # outputs after the loss
    return saved, backward.code


saved, _ = saved_and_backward(default_partition)
print(saved)
# > ['primals_1', 'primals_2', 'mm', 'sin', 'detach']
saved, backward_code = saved_and_backward(min_cut_rematerialization_partition)
print(saved)
# > ['mm', 'detach_1', 't', 't_1']
print(backward_code.count("aten.sin.default"))  # recomputed, not saved
# > 2
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    x = torch.randn(4, 4, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, 4, dtype=torch.float64, requires_grad=True)
    graphs = []
    compiled = aot_function(
        f,
        fw_compiler=lambda gm, _: graphs.append(gm) or make_boxed_func(gm),
        partition_fn=min_cut_rematerialization_partition,
    )
    compiled(x, w).backward()
    got = (x.grad.clone(), w.grad.clone())
    x.grad = w.grad = None
    f(x, w).backward()
    torch.testing.assert_close(got, (x.grad, w.grad))
    # aot_eager uses min-cut on this version (D-12): its compiled node saves min-cut's 4 tensors; the
    # default partitioner has a backend of its own, which saves 5
    assert "aot_eager_default_partitioner" in torch._dynamo.list_backends(exclude_tags=())

    def saved_by(backend: str) -> int:
        torch._dynamo.reset()
        packed = []
        x, w = (torch.randn(4, 4, requires_grad=True) for _ in range(2))
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            torch.compile(f, backend=backend, fullgraph=True)(x, w).backward()
        return len(packed)

    assert saved_by("aot_eager") == 4
    assert saved_by("aot_eager_default_partitioner") == 5


if __name__ == "__main__":
    _check()
