"""torch.compile's modes are presets of Inductor options: CUDA graphs, autotuning, or less of both."""

# --8<-- [start:demo]
import torch

# mode name -> the Inductor options it switches on
modes = torch._inductor.list_mode_options()
print(*modes)
# > default lite reduce-overhead max-autotune-no-cudagraphs max-autotune
# CUDA graphs: one launch replays the whole captured graph
print(modes["reduce-overhead"])
# > {'triton.cudagraphs': True}
# benchmark kernel choices at compile time, plus CUDA graphs (all True)
print(*modes["max-autotune"])
# > max_autotune triton.cudagraphs coordinate_descent_tuning
try:
    torch.compile(torch.nn.Linear(4, 4), mode="fastest")
except RuntimeError as err:
    print(str(err).split(",")[0])
# > Unrecognized mode=fastest
# --8<-- [end:demo]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    modes = torch._inductor.list_mode_options()
    assert modes["max-autotune"] == {"max_autotune": True, "triton.cudagraphs": True, "coordinate_descent_tuning": True}
    assert modes["lite"]["fallback_by_default"] is True
    assert not modes["lite"]["use_pre_grad_passes"] and not modes["lite"]["use_post_grad_passes"]
    # Compile caches: Inductor's FX graph cache is on by default, and the artifacts can be saved and loaded.
    assert torch._inductor.config.fx_graph_cache is True
    assert callable(torch.compiler.save_cache_artifacts) and callable(torch.compiler.load_cache_artifacts)
    # A mode and an explicit options dict are mutually exclusive.
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        torch.compile(torch.nn.Linear(4, 4), mode="max-autotune", options={"max_autotune": True})


if __name__ == "__main__":
    _check()
