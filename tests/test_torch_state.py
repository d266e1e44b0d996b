"""tests/plugin/torch_state.py: what one snippet changes in the shared process is undone before the next."""

from __future__ import annotations

import os
import sys

import torch

from tests.plugin.torch_state import fresh_torch_state


def test_global_torch_settings_rng_cwd_and_excepthook_are_put_back(tmp_path) -> None:
    before = (torch.get_default_dtype(), torch.is_grad_enabled(), os.getcwd(), sys.excepthook)
    with fresh_torch_state():
        first = torch.rand(3)
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        os.chdir(tmp_path)
        sys.excepthook = lambda *args: None  # as init_process_group does, once per call
    assert (torch.get_default_dtype(), torch.is_grad_enabled(), os.getcwd(), sys.excepthook) == before
    with fresh_torch_state():
        assert torch.equal(torch.rand(3), first)  # every snippet starts from the same seed
