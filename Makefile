# The two commands (see README.md):
#   make demo   set up .venv from stock python3 and run `tensorplug demo`
#   make test   set up .venv with the development tools and run the whole test suite
# Extras: make bench (benchmarks/run.py), make lint (ruff + mypy), make clean.
#
# The distributions are installed into .venv NON-editable, as a user would get them. Stamp
# files in .venv make re-runs fast: dependencies are installed again only when a
# pyproject.toml or requirements file changes, our two distributions only when a file under
# their folders changes (then with --no-deps --no-build-isolation, a few seconds).

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
PIP    := $(VPY) -m pip --disable-pip-version-check
PYTEST_ARGS ?= -n 2

DISTS       := ./core ./plugins/cpu_numpy
# every file of the two distributions, and their folders (a deleted file changes its folder)
DIST_FILES  := $(shell find core plugins/cpu_numpy \( -name __pycache__ -o -name build -o -name dist \) -prune \
                 -o \( -type d -o -name '*.py' -o -name '*.toml' -o -name py.typed -o -name '*.md' \) -print 2>/dev/null)
STAMP_DEMO  := $(VENV)/.stamp-deps-demo
STAMP_DEV   := $(VENV)/.stamp-deps-dev
STAMP_DISTS := $(VENV)/.stamp-dists

.NOTPARALLEL:
.PHONY: demo test bench lint clean

demo: $(STAMP_DEMO) $(STAMP_DISTS)
	$(VENV)/bin/tensorplug demo

test: $(STAMP_DEV) $(STAMP_DISTS)
	$(VPY) -m pytest $(PYTEST_ARGS)

bench: $(STAMP_DEMO) $(STAMP_DISTS)
	$(VPY) benchmarks/run.py

lint: $(STAMP_DEV) $(STAMP_DISTS)
	$(VPY) -m ruff check .
	$(VPY) -m mypy

clean:
	rm -rf $(VENV) build dist core/build core/dist plugins/cpu_numpy/build plugins/cpu_numpy/dist

$(VPY):
	$(PYTHON) -m venv $(VENV)

# Dependencies (by installing the distributions with them; hatchling is needed below).
$(STAMP_DEMO): $(VPY) core/pyproject.toml plugins/cpu_numpy/pyproject.toml
	$(PIP) install hatchling "./core[demo]" ./plugins/cpu_numpy
	touch $@

$(STAMP_DEV): $(VPY) requirements-dev.txt core/pyproject.toml plugins/cpu_numpy/pyproject.toml
	$(PIP) install -r requirements-dev.txt "./core[demo]" ./plugins/cpu_numpy
	touch $@

# Our distributions again, from the current sources, whenever one of their files changed
# (listed after a deps stamp in every target, so that hatchling is there).
$(STAMP_DISTS): $(DIST_FILES) | $(VPY)
	$(PIP) install --quiet --no-deps --no-build-isolation --force-reinstall $(DISTS)
	touch $@
