"""The grading kit: the helpers every coding-round grader calls by name."""

# --8<-- [start:kit]
import contextlib
import copy
import math
import sys
import traceback

import torch
from torch._subclasses.fake_tensor import (
    DataDependentOutputException,
    DynamicOutputShapeException,
    FakeTensorMode,
)
from torch.autograd.gradcheck import GradcheckError
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

# atol = rtol per dtype; a problem that needs more says so on its page
TOL = {
    torch.float64: 1e-10,
    torch.float32: 1e-5,
    torch.bfloat16: 2e-2,
    torch.float16: 1e-2,
}


def devices():
    """The CPU, plus the accelerator when there is one (the GPU lane)."""
    acc = torch.accelerator.current_accelerator(check_available=True)
    return [torch.device("cpu")] + [a for a in [acc] if a is not None]


def randn(*shape, seed=0, dtype=torch.float32, device="cpu"):
    """Seeded normal data, drawn by a generator on the data's device."""
    gen = torch.Generator(device=device).manual_seed(seed)
    return torch.randn(shape, generator=gen, dtype=dtype, device=device)


def checks(problem, *names):
    """`step = checks("C13", "device", "mask")`; then `with step("mask"):`
    prefixes a failure with "C13 · check 2/2 (mask): "."""

    @contextlib.contextmanager
    def step(name):
        n = names.index(name) + 1
        try:
            yield
        except AssertionError as error:
            where = f"{problem} · check {n}/{len(names)} ({name})"
            raise AssertionError(f"{where}: {error}") from None

    return step


class Forbidden(AssertionError):
    """The reader's code called what the task asks them to write."""


def _where(error):
    """The reader's line that raised: the innermost frame outside torch."""
    frames = traceback.extract_tb(error.__traceback__)
    mine = [f for f in frames if "torch" not in f.filename.split("/")]
    return f" (line {mine[-1].lineno})" if mine[1:] else ""


def call(fn, *args, **kwargs):
    """Run the reader's code: what it raises becomes an AssertionError."""
    try:
        return fn(*args, **kwargs)
    except Forbidden:
        raise
    except Exception as error:
        name = getattr(fn, "__qualname__", type(fn).__name__)
        kind = type(error).__name__
        msg = (str(error).strip().splitlines() or [""])[0][:200]
        raise AssertionError(
            f"{name} raised {kind}{_where(error)}: {msg}"
        ) from None


def _show(value):
    return tuple(value) if isinstance(value, torch.Size) else value


def close(actual, expected, what="the output", atol=None, rtol=None):
    """Type, shape, dtype and device first; then the worst difference."""
    got = type(actual).__name__
    assert isinstance(actual, torch.Tensor), f"{what} is a {got}, not a tensor"
    for attr in ("shape", "dtype", "device"):
        a, e = getattr(actual, attr), getattr(expected, attr)
        assert a == e, f"{what} has {attr} {_show(a)}, expected {_show(e)}"
    atol = TOL.get(expected.dtype, 0.0) if atol is None else atol
    rtol = atol if rtol is None else rtol
    a = actual.detach().cpu().double()
    e = expected.detach().cpu().double()
    bad = ~torch.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    if not bad.any():
        return
    gap = (a - e).abs().nan_to_num(math.inf, math.inf, math.inf)
    gap = torch.where(bad, gap, -1.0)
    i = tuple(torch.unravel_index(gap.argmax(), gap.shape))
    i = tuple(int(k) for k in i)
    msg = (
        f"{what}: {int(bad.sum())} of {bad.numel()} values differ; "
        f"worst at index {i}: {a[i].item():.6g}, expected {e[i].item():.6g}"
    )
    sa, se = a.flatten().sort().values, e.flatten().sort().values
    if torch.isclose(sa, se, rtol=rtol, atol=atol, equal_nan=True).all():
        msg += " (right values in the wrong places: layout/transpose)"
    raise AssertionError(msg)


def _label(func):
    module = getattr(func, "__module__", None)
    module = {
        None: "torch.Tensor",
        "torch._C._nn": "torch.nn.functional",
        "torch._ops.aten": "torch.ops.aten",
    }.get(module, module)
    return f"{module}.{getattr(func, '__name__', func)}"


class forbid(TorchFunctionMode):
    """`with forbid("softmax"):` refuses torch.softmax, Tensor.softmax,
    F.softmax, torch.ops.aten._softmax, whatever the alias (not
    log_softmax). Reported even if the reader's code catches it."""

    def __init__(self, *names):
        super().__init__()
        self.names = {n.lstrip("_") for n in names}
        self.hit = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = str(getattr(func, "__name__", "")).split(".")[0]
        if name.lstrip("_") in self.names:
            self.hit = self.hit or Forbidden(
                f"calls {_label(func)}: the task is to implement it"
            )
            raise self.hit
        return func(*args, **(kwargs or {}))

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if self.hit is not None:
            raise self.hit


def _record(frame, event, paths, hits):
    """The profiler's body: note the first call into one of `paths`."""
    where = frame.f_code.co_filename.replace("\\", "/")
    if event == "call" and where.endswith(paths) and not hits:
        where = where.rsplit("/torch/")[-1]
        hits.append(f"torch/{where} ({frame.f_code.co_name})")


@contextlib.contextmanager
def forbid_files(*paths):
    """Refuse Python helpers by where their code lives, whatever the alias:
    `with forbid_files("torch/optim/adam.py"):`."""
    hits = []
    previous = sys.getprofile()
    sys.setprofile(lambda frame, event, arg: _record(frame, event, paths, hits))
    try:
        yield
    finally:
        sys.setprofile(previous)
        if hits:
            raise Forbidden(f"calls {hits[0]}: the task is to implement it")


DATA_DEPENDENT = (DataDependentOutputException, DynamicOutputShapeException)


def on_fake_gpu(fn, *inputs, like="x", **kwargs):
    """Run fn on fake CUDA tensors (no GPU needed): a tensor created on the
    CPU meets CUDA's own device check. Modules are deep-copied first."""
    mode = FakeTensorMode(allow_non_fake_inputs=True)

    def fake(x):
        t = torch.empty_strided(
            x.shape, x.stride(), dtype=x.dtype, device="cuda"
        )
        return t.requires_grad_(x.requires_grad)

    def move(x):
        if isinstance(x, torch.nn.Module):
            for m in x.modules():
                for k, v in m._parameters.items():
                    if v is not None:
                        m._parameters[k] = torch.nn.Parameter(
                            fake(v), v.requires_grad
                        )
                for k, v in m._buffers.items():
                    if v is not None:
                        m._buffers[k] = fake(v)
            return x
        return fake(x) if isinstance(x, torch.Tensor) else x

    mine = copy.deepcopy((inputs, kwargs))  # the reader's own stay real
    try:
        with mode:
            args, kw = tree_map(move, mine)
            out = fn(*args, **kw)
    except DATA_DEPENDENT as error:
        op = str(error).split()[0] if str(error) else type(error).__name__
        return (
            f"device check stopped at a data-dependent op ({op}); "
            "the GPU lane checks the rest"
        )
    except Exception as error:
        text = str(error)
        first = (text.strip().splitlines() or [""])[0][:200]
        if "found at least two devices" not in text:
            name = getattr(fn, "__qualname__", type(fn).__name__)
            raise AssertionError(
                f"{name} raised {type(error).__name__}{_where(error)} "
                f"on a (fake) GPU: {first}"
            ) from None
        found = text[text.index("found") :].splitlines()[0]  # CUDA's words
        raise AssertionError(
            f"not device-agnostic{_where(error)}: {found} "
            f"Create tensors with `device={like}.device`"
        ) from None
    for t in tree_flatten(out)[0]:
        if isinstance(t, torch.Tensor) and t.device.type != "cuda":
            raise AssertionError(
                f"not device-agnostic: an output is on {t.device} for cuda "
                f"inputs; create it with `device={like}.device`"
            )
    return "device-agnostic (checked on a fake GPU)"


class _Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops, self.largest = 0, torch.Size([])

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.ops += 1
        made = [] if func.is_view else tree_flatten(out)[0]
        for t in made:
            if isinstance(t, torch.Tensor) and t.numel() > self.largest.numel():
                self.largest = t.shape
        return out


def largest_tensor(fn):
    """The shape of the largest tensor any op made while fn() ran (views,
    which allocate nothing, excluded): proves tiling."""
    with _Recorder() as rec:
        fn()
    return rec.largest


def count_ops(fn):
    """How many ATen ops fn() ran: proves vectorisation when the count does
    not grow with the input's size."""
    with _Recorder() as rec:
        fn()
    return rec.ops


def gradcheck64(fn, inputs, names=None, reference=None, hint=""):
    """gradcheck in float64 on small inputs (60 elements at most each);
    with a reference, also compare gradients under a random-weighted loss
    (a backward that ignores grad_output passes `out.sum().backward()`)."""

    def leaf(x):
        if not (torch.is_tensor(x) and x.is_floating_point()):
            return x
        assert x.numel() <= 60, "gradcheck64 is for small inputs"
        return x.detach().double().requires_grad_()

    xs = [leaf(x) for x in inputs]
    names = names or [f"input {i}" for i in range(len(xs))]
    tail = f". {hint}" if hint else ""
    outs = [o for o in tree_flatten(call(fn, *xs))[0] if torch.is_tensor(o)]
    assert any(o.requires_grad for o in outs), (
        "no output requires grad: the graph is cut "
        "(detach, no_grad, .data or a new tensor)"
    )
    try:
        torch.autograd.gradcheck(fn, xs, eps=1e-6, atol=1e-5, rtol=1e-3)
    except GradcheckError as error:
        text = str(error)
        at = [n for k, n in enumerate(names) if f"to input {k}," in text]
        what = f"Jacobian mismatch for {at[0]}" if at else text.splitlines()[0]
        raise AssertionError(f"gradcheck: {what}{tail}") from None
    if reference is None:
        return
    leaves = [x for x in xs if torch.is_tensor(x) and x.requires_grad]
    grads = []
    for f in (fn, reference):
        outs = [o for o in tree_flatten(f(*xs))[0] if torch.is_tensor(o)]
        gen = torch.Generator(device=outs[0].device).manual_seed(0)
        loss = sum(
            (o * torch.randn(o.shape, generator=gen, dtype=o.dtype,
                             device=o.device)).sum()
            for o in outs
        )
        got = torch.autograd.grad(loss, leaves, allow_unused=True)
        grads.append([
            torch.zeros_like(x) if g is None else g
            for x, g in zip(leaves, got, strict=True)
        ])
    named = [
        n for n, x in zip(names, xs, strict=True)
        if torch.is_tensor(x) and x.requires_grad
    ]
    for n, g, r in zip(named, *grads, strict=True):
        close(g, r, f"the gradient for {n} under a weighted loss")
# --8<-- [end:kit]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import re

    import pytest
    import torch.nn.functional as F

    assert devices()[0] == torch.device("cpu")
    assert randn(3, seed=1).equal(randn(3, seed=1)) and randn(2, 2, dtype=torch.float64).dtype == torch.float64

    # checks(): the prefix, and an unknown step name is the grader's own bug
    step = checks("C0", "shape", "values")
    with pytest.raises(AssertionError, match=r"^C0 · check 2/2 \(values\): off$"):
        with step("values"):
            raise AssertionError("off")
    with step("shape"):
        pass

    # call(): a stub's NotImplementedError and any other error, with the reader's line
    def stub(x):
        raise NotImplementedError

    with pytest.raises(AssertionError, match=r"^_check.<locals>.stub raised NotImplementedError \(line \d+\): $"):
        call(stub, 1)
    with pytest.raises(AssertionError, match="Linear raised RuntimeError: mat1 and mat2 shapes cannot be"):
        call(torch.nn.Linear(3, 2), torch.ones(2, 4))
    assert call(torch.add, 1, 2) == 3

    # close(): each way of being wrong, and the right answer
    e = torch.arange(6.0).reshape(2, 3)
    close(e + 1e-7, e)
    with pytest.raises(AssertionError, match=r"is a list, not a tensor"):
        close([1.0], e)
    with pytest.raises(AssertionError, match=r"has shape \(3, 2\), expected \(2, 3\)"):
        close(e.T.contiguous(), e)
    with pytest.raises(AssertionError, match=r"has dtype torch.float64, expected torch.float32"):
        close(e.double(), e)
    with pytest.raises(AssertionError, match=r"has device meta, expected cpu"):
        close(e.to("meta"), e)
    with pytest.raises(AssertionError, match=r"1 of 6 values differ; worst at index \(1, 2\): 7, expected 5$"):
        close(e.index_put((torch.tensor(1), torch.tensor(2)), torch.tensor(7.0)), e)
    with pytest.raises(AssertionError, match=r"worst at index \(0, 0\): nan, expected 0$"):
        close(e / e, e)
    with pytest.raises(AssertionError, match=r"right values in the wrong places"):
        close(e.T.reshape(2, 3), e)
    close(torch.empty(3, 0), torch.empty(3, 0))

    # forbid(): aliases, Tensor methods, aten ops; not log_softmax; reported even when swallowed
    x = torch.randn(2, 3)
    alias = F.softmax
    for use in (lambda: alias(x, -1), lambda: x.softmax(-1), lambda: torch.ops.aten._softmax(x, -1, False)):
        shown = r"^calls torch\.(Tensor|nn\.functional|ops\.aten)\._?softmax: the task is to implement it$"
        with pytest.raises(Forbidden, match=shown):
            with forbid("softmax"):
                call(use)
    with forbid("softmax"):
        x.log_softmax(-1)

    def sneaky(t):
        try:
            return F.scaled_dot_product_attention(t, t, t)
        except Exception:
            return t

    with pytest.raises(Forbidden, match=r"calls torch.nn.functional.scaled_dot_product_attention: the task is"):
        with forbid("scaled_dot_product_attention"):
            call(sneaky, x[None])

    # forbid_files(): an aliased Python helper is caught, clean code passes, the old profiler comes back
    from torch.nn.utils import clip_grad_norm_ as clip

    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.ones(3)
    with pytest.raises(Forbidden, match=r"calls torch/nn/utils/clip_grad.py \(\w+\): the task is to implement it"):
        with forbid_files("torch/nn/utils/clip_grad.py"):
            call(clip, [p], 1.0)
    with forbid_files("torch/nn/utils/clip_grad.py"):
        p.grad.norm()
    assert sys.getprofile() is None
    found: list = []  # the profiler's body, called as the profiler calls it (coverage cannot trace profilers)
    _record(sys._getframe(), "call", (__file__.replace("\\", "/"),), found)
    assert found and found[0].endswith("(_check)")

    # on_fake_gpu(): a CPU-made tensor, a CPU output, a data-dependent op, clean code, a module
    def cpu_mask(q):
        return q.masked_fill(torch.ones(q.shape, dtype=torch.bool).tril(), 0.0)

    def agnostic(q):
        return q.masked_fill(torch.ones(q.shape, dtype=torch.bool, device=q.device).tril(), 0.0)

    q = torch.randn(4, 4).T  # non-contiguous on purpose
    msg = "not device-agnostic (line %d): found at least two devices, cuda:0 and cpu! "
    msg += "Create tensors with `device=q.device`"
    line = cpu_mask.__code__.co_firstlineno + 1
    with pytest.raises(AssertionError, match=re.escape(msg % line)):
        on_fake_gpu(cpu_mask, q, like="q")
    with pytest.raises(AssertionError, match=r"an output is on cpu for cuda inputs"):
        on_fake_gpu(lambda t: torch.zeros(3), q)
    with pytest.raises(AssertionError, match=r"^_check.<locals>.<lambda> raised RuntimeError .*on a \(fake\) GPU: "):
        on_fake_gpu(lambda t: t @ torch.ones(3, device=t.device), q)
    with pytest.raises(AssertionError, match=r"^_check.<locals>.stub raised NotImplementedError \(line \d+\) on a"):
        on_fake_gpu(stub, q)
    assert "data-dependent op (aten.nonzero" in on_fake_gpu(lambda t: t[t > 0], q)
    assert on_fake_gpu(agnostic, q, like="q") == "device-agnostic (checked on a fake GPU)"
    layer = torch.nn.BatchNorm1d(4)
    assert on_fake_gpu(lambda m, t: m(t), layer, q).startswith("device-agnostic")
    assert type(layer.weight) is torch.nn.Parameter and layer.weight.device.type == "cpu"

    # largest_tensor() and count_ops(): a T x T matrix and a loop are visible
    b = torch.randn(1, 2, 8, 4)
    naive = largest_tensor(lambda: (b @ b.transpose(-2, -1)).softmax(-1) @ b)
    assert naive.numel() == 2 * 8 * 8 and largest_tensor(lambda: b.transpose(-2, -1) * 2) == (1, 2, 4, 8)
    pts = torch.randn(100, 2)
    assert count_ops(lambda: [p.sum() for p in pts]) > 10 * count_ops(lambda: pts.sum(1))

    # gradcheck64(): a backward that treats the statistics as constants is rejected, the right one passes;
    # a backward that ignores grad_output passes `.sum()` but not the weighted loss against a reference
    class Center(torch.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v - v.mean(-1, keepdim=True)

        @staticmethod
        def backward(ctx, g):
            return g - g.mean(-1, keepdim=True)

    class CenterWrong(Center):
        @staticmethod
        def backward(ctx, g):
            return g

    class Doubled(torch.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return 2 * v

        @staticmethod
        def backward(ctx, g):
            return torch.full_like(g, 2.0)

    v = torch.randn(3, 4)
    gradcheck64(Center.apply, [v], names=["x"], reference=lambda t: t - t.mean(-1, keepdim=True))
    gradcheck64(Center.apply, [v])  # no reference: gradcheck alone
    with pytest.raises(AssertionError, match=r"^gradcheck: Jacobian mismatch for x. the mean depends on x$"):
        gradcheck64(CenterWrong.apply, [v], names=["x"], hint="the mean depends on x")
    with pytest.raises(AssertionError, match=r"^gradcheck: Jacobian mismatch for input 0$"):
        gradcheck64(Doubled.apply, [v])
    ones = torch.ones(3, 4, dtype=torch.float64, requires_grad=True)
    Doubled.apply(ones).sum().backward()
    assert ones.grad.eq(2).all()  # the `.sum()` test cannot see the bug
    with pytest.raises(AssertionError, match=r"^no output requires grad"):
        gradcheck64(lambda t: t.detach() * 2, [v])
    with pytest.raises(AssertionError, match=r"the gradient for input 0 under a weighted loss"):
        gradcheck64(lambda t: t * 2, [v], reference=lambda t: t * 3)
    gradcheck64(lambda t, k: (t * k, t.sum()), [v, 2], reference=lambda t, k: (t * k, t.sum()))


if __name__ == "__main__":
    _check()
