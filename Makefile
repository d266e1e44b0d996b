# The README's commands. Each one sets itself up on a fresh machine: it creates the project-local
# virtual environment when missing and installs the pinned packages from pyproject.toml first.
#
#   make serve      build the site strictly and serve it at http://127.0.0.1:8000
#   make test       the whole CPU test suite (what CI runs, via .ci/run)
#   make test-gpu   the GPU lane: every snippet and page's code on CUDA, *_cuda.py included, in .cache/venv-gpu/
#                   (torch and the `gpu` group only: no MkDocs); fails without a GPU. LANE=cpu runs the
#                   same selection on the CPU (how the lane is tested without a GPU)
#   make build      build the site strictly into site/
#   make labs       rewrite snippets/<chapter>/lab.ipynb (what Colab opens) from each lab.py, and each
#                   coding page's snippets/coding/<page>/practice.ipynb from its problem files
#   make grade C=13 FILE=mine.py   grade your solution to coding-round problem C13 (tests/tools/grade.py)
#   make bench      build time, suite time by test file and browser check, page weight, 10x scale, budgets
#   make clean      remove the virtual environment and build outputs
#   make new-question PAGE=tensors/anatomy NAME=snake_case Q=7 TITLE="…"   scaffold a question

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

export NO_MKDOCS_2_WARNING := 1   # Material prints an end-of-life banner on every run otherwise

.PHONY: serve test test-gpu build labs bench clean new-question grade

# $(call install_venv,FOLDER,GROUP): a Python 3.11 virtual environment in FOLDER holding the pinned
# dependency group GROUP of pyproject.toml; the target is touched once it is installed. pip would compile
# each module to bytecode as it unpacks, on one core: compiled afterwards on every core instead, skipping
# what does not compile as pip does (a Python 3.12 file in torch's tests): the `test` group installed in
# 79-88 s instead of 92-101 s (three fresh installs each, here).
define install_venv
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || \
		{ echo "Python 3.11 is required (the pinned torch wheels are cp311): set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --quiet --upgrade pip==26.3
	$(1)/bin/python -m pip install --quiet --no-compile --group $(2)
	$(1)/bin/python -c 'import compileall, sysconfig; compileall.compile_dir(sysconfig.get_path("purelib"), quiet=2, workers=0)'
	touch $@
endef

$(INSTALLED): pyproject.toml
	$(call install_venv,$(VENV),test)

# axe-core for the browser tests' accessibility checks, pinned in tests/browser/package-lock.json and
# served to the page from disk (never a CDN); reinstalled when the lock file is newer than the install.
AXE := tests/browser/node_modules/.package-lock.json
$(AXE): tests/browser/package-lock.json
	npm ci --prefix tests/browser --no-audit --no-fund
	touch $@

serve: $(INSTALLED)
	$(BIN)/mkdocs serve --strict --dev-addr 127.0.0.1:8000

# One pytest-xdist worker per core (-n auto); each worker's torch on one thread, so they don't fight over
# the cores, and Inductor compiling in the worker itself (its pool of compile processes would start two
# more interpreters per worker, each importing torch, for graphs this small). The browser tests of one
# page share a worker (one load for both schemes), each worker its own browser; a snippet and a fence it
# proves share one too. The controller serves the site build (tests/plugin/site_server.py).
test: $(INSTALLED) $(AXE)
	@$(BIN)/python tests/browser/chromium.py >/dev/null
	$(BIN)/ruff check hooks tests snippets
	OMP_NUM_THREADS=1 TORCHINDUCTOR_COMPILE_THREADS=1 $(BIN)/python -m pytest -n auto --dist loadgroup \
		--cov --cov-report=term-missing:skip-covered --verification-report=.cache/verification/cpu.json

# The GPU lane's own environment: only the `gpu` dependency group (torch, pytest, the page expander), so
# it runs where the docs toolchain is not installed. tests/tools/gpu_lane.py runs the selection to the end
# and leaves the log and a per-file summary in .cache/gpu-lane/.
# (in .cache/: ignored by git, and removed by make clean)
GPU_VENV := .cache/venv-gpu
GPU_BIN := $(GPU_VENV)/bin
GPU_INSTALLED := $(GPU_VENV)/.installed
LANE ?= gpu

$(GPU_INSTALLED): pyproject.toml
	$(call install_venv,$(GPU_VENV),gpu)

test-gpu: $(GPU_INSTALLED)
	$(GPU_BIN)/python -m tests.tools.gpu_lane --lane=$(LANE) --out .cache/gpu-lane \
		--report .cache/$(if $(filter gpu,$(LANE)),verification/gpu.json,gpu-lane/cpu.json)

build: $(INSTALLED)
	$(BIN)/mkdocs build --strict

labs: $(INSTALLED)
	$(BIN)/python hooks/labs.py

grade: $(INSTALLED)   # exit 0 passes, 1 fails (the grader's message), 2 nothing to grade
	@$(BIN)/python tests/tools/grade.py "$(C)" "$(FILE)"

bench: $(INSTALLED)   # figures and budgets (docs/benchmarks.md); not part of make test
	$(BIN)/python -m tests.tools.bench

clean:
	rm -rf $(VENV) site .cache .coverage .pytest_cache .ruff_cache

new-question: $(INSTALLED)  ## PAGE=tensors/anatomy NAME=snake_case Q=<number> TITLE="the question"
	$(BIN)/python tests/tools/new_question.py --page "$(PAGE)" --name "$(NAME)" --number "$(Q)" --title "$(TITLE)"
