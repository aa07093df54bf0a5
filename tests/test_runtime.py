"""The runtime (``tensorplug.extend.Runtime``): the one object holding the registries, the started
backends and the plugins; swapping another in changes everything tensorplug sees, and swapping
back brings the first back whole, dispatchers included."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import KernelConfig, Runtime, current_runtime, register_kernel, use_runtime
from tensorplug.registry._slots import CORE_SOURCE


def test_every_registry_and_the_plugins_live_on_the_runtime():
    tp.asarray(0.0)  # a backend starts, plugins load
    runtime = current_runtime()
    assert list(runtime.tables()) == ["backend", "kernel spec", "kernel", "gradient", "JVP rule",
                                      "batching rule", "ONNX lowering", "op"]
    assert ("Exp", "numpy") in runtime.kernels.active and "Exp" in runtime.specs.active
    assert "numpy" in runtime.instances and runtime.plugins.loaded
    assert "tensorplug-backend-numpy" in runtime.plugins.plugins


def test_a_copy_is_its_own_and_dispatchers_follow_the_swap():
    x = tp.asarray([0.0, 1.0])
    assert tp.exp(x).tolist() == pytest.approx([1.0, np.e])  # the dispatcher binds to numpy's Exp
    copy = current_runtime().copy()
    with use_runtime(copy):
        register_kernel(KernelConfig("Exp", "numpy", lambda inputs, attrs, backend: inputs[0] + 7),
                        override=True)
        assert tp.exp(x).tolist() == [7.0, 8.0]
    assert copy.kernels.registration(("Exp", "numpy")).source != "tensorplug-backend-numpy"
    assert current_runtime().kernels.registration(("Exp", "numpy")).source == "tensorplug-backend-numpy"
    assert tp.exp(x).tolist() == pytest.approx([1.0, np.e])  # bound again to the outer kernel


def test_versions_are_unique_across_runtimes():
    """A cache keyed by a registry version cannot mistake one runtime's table for another's."""
    a, b = Runtime(), Runtime()
    assert a.kernels.version != b.kernels.version
    before = a.kernels.version
    a.specs.add("X", object(), source=CORE_SOURCE)
    assert a.specs.version > before and a.specs.version != b.specs.version


def test_a_core_only_runtime_discovers_the_plugins_again():
    with use_runtime(current_runtime().core_only()) as runtime:
        assert not runtime.plugins.loaded and not runtime.instances
        assert not any(b == "numpy" for _, b in runtime.kernels.active)
        assert {r.source for t in runtime.tables().values() for _, s in t.registrations() for r in s} \
            == {CORE_SOURCE}
        with tp.backend_scope("numpy"):
            assert tp.add(1.0, 2.0).tolist() == 3.0
        assert runtime.plugins.loaded and ("Add", "numpy") in runtime.kernels.active


def test_the_kit_gives_tests_a_runtime_of_their_own(tensorplug_runtime):
    assert current_runtime() is tensorplug_runtime
    with tp.backend_scope("numpy"):
        tp.asarray(0.0)
    assert ("Exp", "numpy") in tensorplug_runtime.kernels.active
