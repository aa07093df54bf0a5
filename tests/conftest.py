"""Shared fixtures: every test runs with isolated registries (STYLE.md, rule 11); the kernel
and gradient tests run once per first-party backend (`tp_backend`), but for the dtypes that
backend does not hold."""

from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import tensorplug as tp
from _jax_absent import JAX_ABSENT
from _kernel_helpers import unheld_dtypes
from tensorplug.core.runtime import current
from tensorplug.testing.isolation import isolated_registries

# jax compiles every kernel for every new shape, dtype and attribute (~50 ms each on a small
# machine): its persistent compilation cache keeps what one run compiled for the next, and lets
# the processes of one run (xdist workers, the conformance kit's subprocess, which inherit the
# variables) share it. It lives in the virtual environment that runs the tests (`make test`:
# .venv/jax-cache, removed with .venv by `make clean`); outside a virtual environment, in a
# temporary folder for this run, removed when it ends. Results do not depend on it: jax keys
# each entry by the computation, the jax version and the compile options.
_JAX_CACHE_OWNER = "TP_TESTS_JAX_CACHE_OWNER"  # the pid of the process that removes a temporary one


def jax_cache_dir(prefix: str = sys.prefix, base_prefix: str = sys.base_prefix) -> Path | None:
    """The kept cache folder (in the running virtual environment), or None outside one."""
    if prefix == base_prefix or not os.access(prefix, os.W_OK):
        return None
    return Path(prefix) / "jax-cache"


def pytest_configure(config: pytest.Config) -> None:
    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return  # set by the user, or by the process that started this one
    kept = jax_cache_dir()
    if kept is not None:
        kept.mkdir(exist_ok=True)
        os.environ["JAX_COMPILATION_CACHE_DIR"] = str(kept)
    else:
        os.environ["JAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="tensorplug-tests-jax-cache-")
        os.environ[_JAX_CACHE_OWNER] = str(os.getpid())
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")


def pytest_unconfigure(config: pytest.Config) -> None:
    if os.environ.get(_JAX_CACHE_OWNER) == str(os.getpid()):
        shutil.rmtree(os.environ.pop("JAX_COMPILATION_CACHE_DIR"), ignore_errors=True)
        del os.environ[_JAX_CACHE_OWNER]

#: test modules whose every test runs on each first-party backend (made active by `tp_backend`).
#: All of them run on torch too: its runs add 55 CPU-seconds to these modules' 234 (user + sys,
#: -p no:xdist, measured 2026-11-29 on a busy machine: 289 with torch), under the ~60 above
#: which only the modules that check backend kernels would run on it.
PER_BACKEND_MODULES = ("test_kernels_", "test_gradients")
BACKENDS = ("numpy", "jax", "torch")
#: The gradient modules run on numpy alone (the rules are written with ops, the same on every
#: backend; what a backend adds, its kernels under them, the conformance kit checks: every
#: differentiable kernel's gradient, to second order, in test_conformance_numpy on jax and torch),
#: but for those checking what the kit does not: complex-valued gradients (2026-11-29: the jax
#: and torch runs of the others took ~55 CPU-s of make test's time, over its 6 minutes).
GRADIENTS_ON_EVERY_BACKEND = {"test_gradients_linalg_complex"}
#: the backends a test taking the `backend` fixture runs on: numpy and jax. The torch backend is
#: held to the kernel and gradient modules above, the conformance kit and the Array API suite;
#: tp.random's keys (uint32, which it does not hold) do not run on it yet.
FIXTURE_BACKENDS = ("numpy", "jax")


# -- where the jax backend cannot be installed (Python 3.10: tests/_jax_absent.py), every test
# that needs it is reported as skipped, with the reason: never collected silently away
class _JaxModuleSkipped(pytest.Item):
    def runtest(self) -> None:  # (never runs: skipped below, reported at the module's path)
        raise AssertionError(JAX_ABSENT)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, self.name


class _JaxModule(pytest.File):
    """A test_jax_* module not imported (it imports jax): one item that says why."""

    def collect(self) -> list[pytest.Item]:
        item = _JaxModuleSkipped.from_parent(self, name="needs the jax backend")
        item.add_marker(pytest.mark.skip(reason=JAX_ABSENT))
        return [item]


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if JAX_ABSENT and module_path.name.startswith("test_jax_"):
        return _JaxModule.from_parent(parent, path=module_path)
    return None


def _on_jax(item: pytest.Item) -> bool:
    """Whether a test needs jax: marked so, in a test_jax_* module, run on the jax backend
    (a parameter naming it: the `tp_backend` of PER_BACKEND_MODULES, `backend`, `load_on`...),
    or in a module that holds jax itself (as its reference: tests/_jax_reference.py)."""
    params = item.callspec.params if hasattr(item, "callspec") else {}
    return (item.get_closest_marker("jax") is not None or item.path.name.startswith("test_jax_")
            or any(isinstance(v, str) and v == "jax" for v in params.values())
            or getattr(getattr(item, "module", None), "jax", None) is not None)


@pytest.hookimpl(tryfirst=True)  # (before -m selects by marker)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that needs jax carries the `jax` marker (`make test-quick` leaves them out
    with -m "not slow and not jax"); where jax is absent, each is skipped, saying why."""
    skip = pytest.mark.skip(reason=JAX_ABSENT)
    for item in items:
        if _on_jax(item):
            if item.get_closest_marker("jax") is None:
                item.add_marker(pytest.mark.jax)
            if JAX_ABSENT:
                item.add_marker(skip)


@pytest.fixture(autouse=True, scope="module")
def _long_lived_objects_frozen():
    """At each module's start, what is alive (imported modules, jax's and the kernels' caches:
    ~650k objects in a worker) leaves the garbage collector's generations (``gc.freeze``): the
    full collections the tests' own garbage triggers then scan only what came since, where each
    scanned everything (~0.3 s; ~10% of a worker's CPU time, measured 2026-11-29). Objects made
    in a test are collected as ever; a frozen object that becomes cyclic garbage stays (a test
    process's few)."""
    gc.freeze()
    yield


@pytest.fixture(autouse=True)
def _isolated_registries():
    _start_outside()
    with isolated_registries():
        yield


def _start_outside() -> None:
    """Start the numpy backend (the default) once, in the runtime every test's copy is made from:
    the copy keeps the same instance (and disposes only the backends started inside it), where
    each test would otherwise start it again in its copy, running the plugins' kernel hooks."""
    if "numpy" not in current().instances:
        tp.extend.start_backend("numpy")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    name = metafunc.module.__name__
    if name.startswith(PER_BACKEND_MODULES):
        on_numpy_only = name.startswith("test_gradients") and name not in GRADIENTS_ON_EVERY_BACKEND
        metafunc.parametrize("tp_backend", ("numpy",) if on_numpy_only else BACKENDS, indirect=True)


@pytest.fixture(autouse=True)
def tp_backend(request, _isolated_registries):
    """The backend a test runs on, made active for it: in PER_BACKEND_MODULES (parametrized
    over BACKENDS); elsewhere None, and nothing changes."""
    name = getattr(request, "param", None)
    if name is not None:
        tp.set_backend(name)
        why = unheld_dtypes(request.node.callspec.params)
        if why is not None:  # (a dtype the backend does not hold: no failure of its kernels)
            pytest.skip(why)
    return name


@pytest.fixture(params=FIXTURE_BACKENDS)
def backend(request):
    """The backend a test asks for by taking `backend`, made active: each first-party backend
    in turn (its jax run is marked and skipped where jax is absent, like every jax test)."""
    tp.set_backend(request.param)
    return request.param


@pytest.fixture
def core_gradients():
    """The core's default gradients for the core's kernels, whatever plugins are installed
    (example_ops overrides Round's): for tests of the defaults themselves. Plugins' own
    kernels keep their gradients. Undone by the isolation above."""
    import tensorplug as tp
    from tensorplug.registry._slots import CORE_SOURCE

    tp.extend.load_plugins()
    for key, stack in current().gradients.registrations():
        spec = current().specs.registration(key)
        if spec is None or spec.source != CORE_SOURCE:
            continue
        for reg in stack:
            if reg.source != CORE_SOURCE:
                current().gradients.remove(key, reg.source)
    yield
