# The two commands (see README.md):
#   make demo   set up .venv from stock python3 and run `tensorplug demo`
#   make test   set up .venv with the development tools and run the whole test suite
#               (make test-quick: the same without the slow tests and those on jax)
# Extras: make bench (benchmarks), make conformance BACKEND=NAME (the backend kit), make lint
# (ruff + mypy; .ci/run runs it beside make test), make docs (the reference site, into site/), make clean.
#
# The distributions are installed into .venv NON-editable, as a user would get them. Stamp
# files in .venv make re-runs fast: dependencies are installed again only when a
# pyproject.toml or requirements file changes, our distributions only when a file under
# their folders changes (then with --no-deps --no-build-isolation, a few seconds).

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
PIP    := $(VPY) -m pip --disable-pip-version-check
PYTEST_ARGS ?= -n 2

# `make demo` needs the core and the numpy backend; `make test` also the JAX backend (and jax)
# and the example plugin, whose tests run in CI. jax needs Python >= 3.11: on 3.10 the JAX
# backend is left out, and its tests are skipped, each saying so (tests/conftest.py).
DEMO_DISTS  := ./core ./plugins/cpu_numpy
PY_VERSION  := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
JAX_DISTS   := $(if $(filter 3.10,$(PY_VERSION)),,./plugins/jax_backend)
TEST_DISTS  := $(DEMO_DISTS) $(JAX_DISTS) ./plugins/example_ops ./plugins/torch_backend
# every file of the distributions, and their folders (a deleted file changes its folder)
DIST_FILES  := $(shell find core plugins \( -name __pycache__ -o -name build -o -name dist \) -prune \
                 -o \( -type d -o -name '*.py' -o -name '*.toml' -o -name py.typed -o -name '*.md' \) -print 2>/dev/null)
STAMP_DEMO  := $(VENV)/.stamp-deps-demo
STAMP_DEV   := $(VENV)/.stamp-deps-dev
STAMP_DEMO_DISTS := $(VENV)/.stamp-dists-demo
STAMP_TEST_DISTS := $(VENV)/.stamp-dists-test

.NOTPARALLEL:
.PHONY: demo test test-quick bench lint conformance docs clean

# The test runs keep their bytecode: pytest caches the modules it rewrites (the tests, and the
# whole of tensorplug, whose distribution has a pytest plugin) in __pycache__, and every process
# of a run (the xdist workers, ~60 subprocess runs of pytest and python) reads them instead of
# parsing, rewriting and compiling ~500 modules again (~1.5 CPU-s a process, ~6 for a worker's
# collection). An environment that sets PYTHONDONTWRITEBYTECODE (as containers often do) would
# lose that; empty, it is unset for Python.
test test-quick conformance: export PYTHONDONTWRITEBYTECODE =

demo: $(STAMP_DEMO) $(STAMP_DEMO_DISTS)
	$(VENV)/bin/tensorplug demo

# (the 20 slowest tests are listed at the end, so that a slow new test shows; jax's compilation
# cache is kept between runs in .venv/jax-cache, see tests/conftest.py)
test: $(STAMP_DEV) $(STAMP_TEST_DISTS)
	$(VPY) -m pytest --durations=20 $(PYTEST_ARGS)

# the inner loop (~1 minute): the suite without the slow tests and without those on jax
test-quick: $(STAMP_DEV) $(STAMP_TEST_DISTS)
	$(VPY) -m pytest -m "not slow and not jax" $(PYTEST_ARGS)

bench: $(STAMP_DEV) $(STAMP_TEST_DISTS)
	$(VPY) benchmarks/run.py
	$(VPY) benchmarks/jax_bench.py
	$(VPY) benchmarks/array_api_bench.py
	$(VPY) benchmarks/cnn_bench.py
	$(VPY) benchmarks/models_bench.py
	$(VPY) benchmarks/torch_bench.py
	$(VPY) benchmarks/export_bench.py
	$(VPY) benchmarks/conv_bench.py
	$(VPY) benchmarks/checkpoint_bench.py
	$(VPY) benchmarks/transforms_bench.py
	$(VPY) benchmarks/random_keys_bench.py
	$(VPY) benchmarks/rnn_bench.py
	$(VPY) benchmarks/import_bench.py

# the backend conformance kit against one installed backend: make conformance BACKEND=jax
# (PYTEST_ARGS=--tensorplug-onnx adds every ONNX lowering run in onnxruntime; BACKEND=numpy)
BACKEND ?= numpy
conformance: $(STAMP_DEV) $(STAMP_TEST_DISTS)
	$(VPY) -m pytest --pyargs tensorplug.testing.conformance --tensorplug-backend $(BACKEND) $(PYTEST_ARGS)

lint: $(STAMP_DEV) $(STAMP_TEST_DISTS)
	$(VPY) -m ruff check .
	$(VPY) -m mypy

# the reference site (mkdocs.yml: the guides and the API reference) into site/
docs: $(STAMP_DEV) $(STAMP_TEST_DISTS)
	$(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) site build dist core/build core/dist plugins/*/build plugins/*/dist

$(VPY):
	$(PYTHON) -m venv $(VENV)

# Dependencies (by installing the distributions with them; hatchling is needed below).
$(STAMP_DEMO): $(VPY) core/pyproject.toml plugins/cpu_numpy/pyproject.toml
	$(PIP) install hatchling "./core[demo,save]" ./plugins/cpu_numpy
	touch $@

$(STAMP_DEV): $(VPY) requirements-dev.txt core/pyproject.toml $(wildcard plugins/*/pyproject.toml)
	$(PIP) install -r requirements-dev.txt "./core[demo,save]" $(filter-out ./core,$(TEST_DISTS))
	touch $@

# Our distributions again, from the current sources, whenever one of their files changed
# (listed after a deps stamp in every target, so that hatchling is there).
$(STAMP_DEMO_DISTS): $(DIST_FILES) | $(VPY)
	$(PIP) install --quiet --no-deps --no-build-isolation --force-reinstall $(DEMO_DISTS)
	touch $@

$(STAMP_TEST_DISTS): $(DIST_FILES) | $(VPY)
	$(PIP) install --quiet --no-deps --no-build-isolation --force-reinstall $(TEST_DISTS)
	touch $@ $(STAMP_DEMO_DISTS)
