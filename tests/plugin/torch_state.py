"""Every snippet and every page fence starts from the same global state and leaves none behind.

Snippets run in one process (an `import torch` costs seconds), so whatever one of them changes —
RNG streams, the default dtype or device, grad mode, deterministic mode, print options, the working
directory, the exception hook (`init_process_group` wraps it in a "[rank0]:" prefixer each time), a
default process group a failed snippet left initialised, modules imported from snippets/ — is put back
before the next one runs.
"""

from __future__ import annotations

import copy
import os
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import torch

SEED = 0

# One compile cache and one C++ extension build folder for the whole run, kept between runs (.cache/ is
# ignored by git, `make clean` removes it): a warm Inductor/AOTInductor compile or an unchanged load_inline
# build is then a cache hit instead of 15-75 s. Set before any snippet runs, so child processes inherit it.
_CACHE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".cache")
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(_CACHE, "inductor"))
os.environ.setdefault("TORCH_EXTENSIONS_DIR", os.path.join(_CACHE, "torch_extensions"))


@contextmanager
def fresh_torch_state(seed: int = SEED) -> Iterator[None]:
    saved_rng = (
        torch.random.get_rng_state(),
        torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        random.getstate(),
        np.random.get_state(),
    )
    saved_torch = (
        torch.get_default_dtype(),
        torch.get_default_device(),
        torch.is_grad_enabled(),
        torch.get_num_threads(),
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        torch.is_anomaly_enabled(),
        torch.is_warn_always_enabled(),
        torch.get_float32_matmul_precision(),
        copy.copy(torch._tensor_str.PRINT_OPTS.__dict__),
    )
    saved_process = (os.getcwd(), sys.argv[:], dict(os.environ), set(sys.modules), sys.excepthook)

    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.set_warn_always(True)  # TORCH_WARN_ONCE warnings fire in every snippet, not only the first
    try:
        yield
    finally:
        torch_rng, cuda_rng, python_rng, numpy_rng = saved_rng
        torch.random.set_rng_state(torch_rng)
        if cuda_rng is not None:
            torch.cuda.set_rng_state_all(cuda_rng)
        random.setstate(python_rng)
        np.random.set_state(numpy_rng)

        dtype, device, grad, threads, deterministic, warn_only, anomaly, warn_always, precision, printopts = saved_torch
        torch.set_default_dtype(dtype)
        if torch.get_default_device() != device:  # setting it always would install a slow device mode
            torch.set_default_device(None if device.type == "cpu" else device)
        torch.set_grad_enabled(grad)
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        torch.autograd.set_detect_anomaly(anomaly)
        torch.set_warn_always(warn_always)
        torch.set_float32_matmul_precision(precision)
        torch._tensor_str.PRINT_OPTS.__dict__.update(printopts)
        if "torch._dynamo" in sys.modules:
            torch._dynamo.reset()  # compiled graphs and recompile counters belong to one snippet
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()  # left by a snippet that failed before destroying it

        cwd, argv, environ, modules, excepthook = saved_process
        sys.excepthook = excepthook
        os.chdir(cwd)
        sys.argv[:] = argv
        os.environ.clear()
        os.environ.update(environ)
        for name in set(sys.modules) - modules:
            if _imported_from_snippets(sys.modules[name]):
                del sys.modules[name]


def _imported_from_snippets(module) -> bool:
    return f"{os.sep}snippets{os.sep}" in (getattr(module, "__file__", None) or "")


@pytest.fixture(autouse=True)
def _fresh_torch_state() -> Iterator[None]:
    with fresh_torch_state():
        yield
