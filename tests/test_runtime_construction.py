"""A runtime is built by a call: ``Runtime()`` is empty, ``register_core(runtime)`` gives it the
core's kernel specs, gradients, JVP and batching rules, and it computes and differentiates.
Two runtimes share no registration, plugin or cache; a copy shares its tables and pluggy's
manager until it changes them (copy on write)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import (
    GradConfig,
    OpConfig,
    Runtime,
    hookimpl,
    register_core,
    register_gradient,
    register_plugin,
    use_runtime,
)
from tensorplug.families.registration import load_core_rules
from tensorplug.registry import batching, gradients, jvps, onnx_lowerings
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.registry.core_entries import CORE_ENTRIES

load_core_rules()  # (CORE_ENTRIES holds the rules once their modules are imported)

_CORE_KINDS = {"specs": "kernel spec", "gradients": "gradient", "jvps": "JVP rule",
               "batching": "batching rule", "onnx_lowerings": "ONNX lowering"}


def test_a_new_runtime_is_empty_and_register_core_gives_it_the_cores_entries():
    runtime = Runtime()
    assert all(not table.active for table in runtime.tables().values())
    assert register_core(runtime) is runtime
    for attribute, what in _CORE_KINDS.items():
        table = runtime.tables()[what]
        assert table.active == CORE_ENTRIES[attribute]
        assert {r.source for _, stack in table.registrations() for r in stack} == {CORE_SOURCE}
    assert "Exp" in runtime.specs.active and "Exp" in runtime.gradients.active
    assert not runtime.kernels.active and not runtime.backends.active and not runtime.plugins.loaded


def test_register_core_twice_changes_nothing():
    runtime = register_core(Runtime())
    before = {what: dict(t.active) for what, t in runtime.tables().items()}
    register_core(runtime)
    assert {what: dict(t.active) for what, t in runtime.tables().items()} == before


def test_register_core_beneath_what_is_there():
    runtime = Runtime()
    mine = GradConfig("Exp", lambda dy, saved, attrs: {"x": lambda: dy})
    with use_runtime(runtime):
        runtime.specs.add("Exp", CORE_ENTRIES["specs"]["Exp"], source=CORE_SOURCE)
        register_gradient(mine, override=True)
    register_core(runtime)
    assert runtime.gradients.active["Exp"] is mine  # (the core's is beneath it)
    assert [r.source for r in runtime.gradients.stacks["Exp"]] == [CORE_SOURCE, "user code"]


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_runtime_plus_register_core_computes_and_differentiates(backend):
    with use_runtime(register_core(Runtime())) as runtime, tp.backend_scope(backend):
        x = tp.asarray([0.5, 1.0, 2.0])
        np.testing.assert_allclose(tp.exp(x).numpy(), np.exp([0.5, 1.0, 2.0]), rtol=1e-6)
        g = tp.grad(lambda x: tp.sum(tp.tanh(x) ** 2))(x)
        expected = 2 * np.tanh(x.numpy()) * (1 - np.tanh(x.numpy()) ** 2)
        np.testing.assert_allclose(g.numpy(), expected, rtol=1e-5)
        _, tangent = tp.jvp(tp.sin, (x,), (tp.ones_like(x),))
        np.testing.assert_allclose(tangent.numpy(), np.cos(x.numpy()), rtol=1e-6)
        np.testing.assert_allclose(tp.vmap(tp.sum)(tp.ones((2, 3))).numpy(), [3.0, 3.0])
        assert g.backend == backend and backend in runtime.instances


def test_two_runtimes_share_no_registration_plugin_or_cache():
    class Twice:
        tensorplug_api_version = tp.API_VERSION

        @hookimpl
        def tensorplug_ops(self, register):
            register(OpConfig("toy_twice", lambda x: tp.asarray(x) * 2.0))

    a, b = register_core(Runtime()), register_core(Runtime())
    x = tp.asarray([1.0, 2.0], backend="numpy")
    with use_runtime(a), tp.backend_scope("numpy"):
        register_plugin(Twice(), name="twice")
        assert tp.ops.toy_twice(x).tolist() == [2.0, 4.0]
        register_gradient(GradConfig("Exp", lambda dy, saved, attrs: {"x": lambda: dy * 0.0}), override=True)
        assert tp.grad(lambda x: tp.sum(tp.exp(x)))(x).tolist() == [0.0, 0.0]
        tp.vmap(tp.sum)(tp.ones((2, 3)))
    assert "Exp" in a.grad_plans and a.vmap_levels
    with use_runtime(b), tp.backend_scope("numpy"):
        assert "twice" not in b.plugins.plugins and "toy_twice" not in b.ops.active
        with pytest.raises(AttributeError, match="toy_twice"):
            tp.ops.toy_twice  # noqa: B018
        assert not b.grad_plans and not b.vmap_levels
        np.testing.assert_allclose(tp.grad(lambda x: tp.sum(tp.exp(x)))(x).numpy(), np.exp([1.0, 2.0]),
                                   rtol=1e-6)
    assert b.plugins.pm is not a.plugins.pm
    assert a.grad_plans["Exp"] is not b.grad_plans["Exp"]


def test_a_copy_shares_its_tables_and_plugin_manager_until_it_changes_them():
    with tp.backend_scope("numpy"):
        tp.asarray(0.0)  # plugins loaded, numpy started
    outer = tp.extend.current_runtime()
    copy = outer.copy()
    assert copy.kernels.active is outer.kernels.active and copy.plugins.pm is outer.plugins.pm
    with use_runtime(copy):
        register_gradient(GradConfig("Exp", lambda dy, saved, attrs: {"x": lambda: dy}), override=True)
        assert copy.gradients.active is not outer.gradients.active
        assert outer.gradients.registration("Exp").source != "user code"
        assert copy.kernels.active is outer.kernels.active  # (the tables it did not change)

        class Nothing:
            tensorplug_api_version = tp.API_VERSION

        register_plugin(Nothing(), name="nothing")
        assert copy.plugins.pm is not outer.plugins.pm
    assert not outer.plugins.pm.has_plugin("nothing") and copy.plugins.pm.has_plugin("nothing")


@pytest.mark.parametrize("attribute,rules", [("gradients", gradients._RULES), ("jvps", jvps._RULES),
                                             ("batching", batching._RULES),
                                             ("onnx_lowerings", onnx_lowerings._RULES)])
def test_every_core_rule_checks_against_its_spec(attribute, rules):
    """register_core does not check the core's entries one by one: this does, once."""
    with use_runtime(register_core(Runtime())):
        for config in CORE_ENTRIES[attribute].values():
            rules.validate(config, f"the core's {attribute}")
    assert set(CORE_ENTRIES[attribute]) <= set(CORE_ENTRIES["specs"])
