"""Coverage for a snippet that starts its own processes, started after `import torch`.

Under `--cov`, coverage's `.pth` hook starts tracing in every child Python at interpreter start, so each
of a `*_dist.py` snippet's processes (the launcher and every rank) traced torch's import too: 3-4 s a
snippet, for no line we gate on. tests/run_code.py runs such a snippet with this folder first on
PYTHONPATH and the configuration under `SNIPPET_COVERAGE_CONFIG` instead of the hook's variable: here,
torch is imported untraced, then coverage starts as the hook would have. The variable is not passed
on: the ranks are traced by coverage's multiprocessing support, which starts in each rank after its
imports and before the rank's function runs (`concurrency = ["multiprocessing"]` in pyproject.toml).
"""

import os

_config = os.environ.pop("SNIPPET_COVERAGE_CONFIG", None)
if _config is not None:
    import torch  # noqa: F401  (what every such snippet imports first; not measured)

    os.environ["COVERAGE_PROCESS_CONFIG"] = _config
    try:
        import coverage
        import coverage_origin  # noqa: F401  (beside this file: coverage starts 0.1 s sooner after torch)

        coverage.process_startup(slug="pth")
    finally:
        del os.environ["COVERAGE_PROCESS_CONFIG"]
