"""Plugin discovery and loading with real toy distributions (a package plus a ``.dist-info``
with an entry point of group ``tensorplug``) written to a temporary directory on sys.path.

Each test runs inside ``fresh_plugin_discovery``: the registries hold only the core's entries
and the next backend use scans the entry points again, finding the numpy backend's
distribution and the test's toys."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import textwrap
import warnings

import pytest

import tensorplug as tp
from _toy_dist import ToyDist, forget, make_dist
from tensorplug.core.runtime import current
from tensorplug.errors import PluginError, PluginVersionError, TensorplugPluginWarning
from tensorplug.extend import (
    contributions,
    get_kernel_spec,
    hookimpl,
    list_ops,
    list_plugins,
    plugin_problems,
    register_plugin,
    unregister_plugin,
)
from tensorplug.testing.isolation import fresh_plugin_discovery

NUMPY_PLUGIN = "tensorplug-backend-numpy"
STRICT = "TENSORPLUG_STRICT_PLUGINS"
DISABLE = "TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD"

# A plugin adding a kernel spec, its numpy kernel, its gradient (written with ops) and an op.
GOOD_PLUGIN = """
import numpy as np
import tensorplug as tp


def _cube_rule(infos, attrs):
    return [infos[0]]


@hookimpl
def tensorplug_kernel_specs(register):
    register(KernelSpec(name="ToyCube", inputs=("x",), infer=_cube_rule,
                        input_dtypes={"x": (tp.float32, tp.float64)}))


def _cube(inputs, attrs, backend):
    return np.power(inputs[0], 3)


@hookimpl
def tensorplug_kernels(backend_name, register):
    if backend_name == "numpy":
        register(KernelConfig("ToyCube", "numpy", _cube))


def _cube_grad(dy, saved, attrs):
    (x,) = saved
    return {"x": lambda: dy * 3.0 * x * x}


@hookimpl
def tensorplug_gradients(register):
    register(GradConfig("ToyCube", _cube_grad, inputs_to_save=("x",)))


@hookimpl
def tensorplug_jvps(register):
    register(JvpConfig("ToyCube", lambda xs, ts, ys, attrs: ts[0] * 3.0 * xs[0] * xs[0]))


@hookimpl
def tensorplug_batching_rules(register):  # (elementwise: the batch axis stays where it is)
    register(BatchConfig("ToyCube", lambda xs, axes, attrs: (toy_cube(xs[0]), axes[0])))


def toy_cube(x):
    return tp.run_kernel("ToyCube", {"x": x})


@hookimpl
def tensorplug_ops(register):
    register(OpConfig("toy_cube", toy_cube))
"""


@pytest.fixture
def toys(tmp_path, monkeypatch):
    """make(source, name=..., header=...) writes a toy distribution on sys.path; every test
    runs with plugin discovery reset, and the environment variables unset."""
    made: list[ToyDist] = []
    monkeypatch.delenv(STRICT, raising=False)
    monkeypatch.delenv(DISABLE, raising=False)
    monkeypatch.delenv("TENSORPLUG_BACKEND", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(source: str, name: str = "toy", **kw) -> ToyDist:
        toy = make_dist(tmp_path, source, name=name, **kw)
        made.append(toy)
        return toy

    with fresh_plugin_discovery():
        yield make
    forget(*made)


def _plugin_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, TensorplugPluginWarning)]


def _numpy_still_works() -> None:
    assert tp.get_backend() == "numpy"
    assert (tp.asarray([1.0, 2.0]) * 2.0).tolist() == [2.0, 4.0]
    assert tp.exp(0.0).item() == 1.0


# -- a good plugin, end to end ---------------------------------------------------------------
def test_a_good_plugin_works_end_to_end(toys):
    toy = toys(GOOD_PLUGIN, name="good")
    assert toy.module not in sys.modules  # nothing is imported before first use
    with warnings.catch_warnings():
        warnings.simplefilter("error", TensorplugPluginWarning)
        x = tp.asarray([1.0, 2.0])
        assert tp.ops.toy_cube(x).tolist() == [1.0, 8.0]
    assert toy.module in sys.modules
    assert tp.run_kernel("ToyCube", {"x": x}).tolist() == [1.0, 8.0]
    assert tp.grad(tp.ops.toy_cube)(2.0).item() == 12.0
    assert tp.grad(lambda x: tp.ops.toy_cube(x) * 2.0)(1.0).item() == 6.0
    assert "toy_cube" in list_ops()
    assert get_kernel_spec("ToyCube").name == "ToyCube"

    info = {p.name: p for p in list_plugins()}[toy.entry_name]
    assert (info.distribution, info.version, info.origin, info.active) == (
        toy.dist, "0.1.0", "entry point", True)
    assert info.module is sys.modules[toy.module]
    assert contributions(toy.entry_name) == {
        "backends": [], "kernel specs": ["ToyCube"], "kernels": ["ToyCube/numpy"],
        "gradients": ["ToyCube"], "JVP rules": ["ToyCube"], "batching rules": ["ToyCube"],
        "ONNX lowerings": [], "ops": ["toy_cube"],
    }
    assert tp.jvp(tp.ops.toy_cube, (2.0,), (0.5,))[1].item() == 6.0  # the plugin's JVP rule
    assert current().jvps.registration("ToyCube").source == toy.entry_name
    assert current().kernels.registration(("ToyCube", "numpy")).source == toy.entry_name
    assert plugin_problems() == []


def test_unregister_plugin_restores_core_behaviour(toys):
    source = """
    import numpy as np

    def _exp(inputs, attrs, backend):
        return np.zeros_like(inputs[0]) + 42

    @hookimpl
    def tensorplug_kernels(backend_name, register):
        if backend_name == "numpy":
            register(KernelConfig("Exp", "numpy", _exp), override=True)

    @hookimpl
    def tensorplug_gradients(register):
        register(GradConfig("Exp", lambda dy, saved, attrs: {"x": lambda: dy * 7.0}), override=True)
    """
    # "override-N" sorts before "tensorplug-backend-numpy": its kernel is registered first,
    # and still wins over the numpy plugin's default because it says override=True.
    toy = toys(source, name="override")
    assert tp.exp(1.0).item() == 42.0
    assert tp.grad(tp.exp)(1.0).item() == 7.0
    assert current().kernels.registration(("Exp", "numpy")).source == toy.entry_name
    unregister_plugin(toy.entry_name)
    assert tp.exp(1.0).item() == pytest.approx(math.e)
    assert tp.grad(tp.exp)(1.0).item() == pytest.approx(math.e)
    assert current().kernels.registration(("Exp", "numpy")).source == NUMPY_PLUGIN
    assert current().gradients.registration("Exp").source == "tensorplug-core"
    assert toy.entry_name not in {p.name for p in list_plugins()}
    with pytest.raises(tp.RegistrationError, match=rf"no plugin named '{toy.entry_name}'"):
        unregister_plugin(toy.entry_name)


# -- broken plugins are isolated -------------------------------------------------------------
def test_a_plugin_that_fails_to_import_gives_one_warning_and_the_rest_works(toys):
    toy = toys("raise RuntimeError('boom from the toy')\n", name="broken")
    with pytest.warns(TensorplugPluginWarning) as record:
        _numpy_still_works()
        tp.list_backends()
        list_plugins()
    messages = _plugin_warnings(record)
    assert len(messages) == 1
    assert f"plugin '{toy.entry_name}' (distribution {toy.dist}) failed at import" in messages[0]
    assert "RuntimeError: boom from the toy" in messages[0]
    [problem] = plugin_problems()
    assert (problem.plugin, problem.distribution, problem.stage) == (toy.entry_name, toy.dist, "import")
    info = {p.name: p for p in list_plugins()}[toy.entry_name]
    assert not info.active
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tp.asarray(1.0) + 1.0  # no second warning


def test_strict_mode_turns_an_import_failure_into_a_plugin_error(toys, monkeypatch):
    monkeypatch.setenv(STRICT, "1")
    toy = toys("raise RuntimeError('boom from the toy')\n", name="broken")
    with pytest.raises(PluginError, match=rf"plugin '{toy.entry_name}' \(distribution {toy.dist}\) failed at "
                       r"import: RuntimeError: boom from the toy") as err:
        tp.asarray(1.0)
    assert err.value.plugin == toy.entry_name
    assert isinstance(err.value.__cause__, RuntimeError)
    # The error is raised once discovery has finished: the good plugins are loaded; and it is
    # raised again at every use until the environment is fixed.
    assert {p.name: p.active for p in list_plugins()}["tensorplug-backend-numpy"]
    with pytest.raises(PluginError) as again:
        tp.asarray(1.0)
    assert again.value is err.value
    monkeypatch.delenv(STRICT)  # not strict: the problem was reported, the rest works
    _numpy_still_works()


def test_autoload_disabled_loads_no_plugin_and_says_how_to_get_a_backend(toys, monkeypatch):
    monkeypatch.setenv(DISABLE, "1")
    toy = toys(GOOD_PLUGIN, name="good")
    with pytest.raises(tp.BackendNotFoundError, match=r"No tensorplug backend is installed\. Install one, "
                       r"e\.g\. `pip install tensorplug-backend-numpy`.*autoload is disabled "
                       r"\(TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD\)"):
        tp.asarray(1.0)
    assert tp.list_backends() == []
    assert list_plugins() == []
    assert toy.module not in sys.modules
    with pytest.raises(tp.BackendNotFoundError, match=r"No backend named 'numpy'; registered backends: none"):
        tp.set_backend("numpy")

    import tensorplug_numpy.plugin as numpy_plugin

    info = register_plugin(numpy_plugin, name="numpy-by-hand")
    assert info.origin == "registered by hand" and info.active
    _numpy_still_works()
    assert current().kernels.registration(("Exp", "numpy")).source == "numpy-by-hand"


def test_plugins_can_be_registered_by_hand(toys):
    class CubePlugin:
        tensorplug_api_version = tp.API_VERSION

        @hookimpl
        def tensorplug_ops(self, register):
            register(tp.extend.OpConfig("toy_twice", lambda x: tp.asarray(x) * 2.0))

    plugin = CubePlugin()
    info = register_plugin(plugin, name="by-hand")
    assert tp.ops.toy_twice(2.0).item() == 4.0
    assert register_plugin(plugin, name="by-hand") is info  # the same plugin again: a no-op
    with pytest.raises(tp.RegistrationError, match=r"a plugin named 'by-hand' is already registered"):
        register_plugin(CubePlugin(), name="by-hand")
    unregister_plugin("by-hand")
    with pytest.raises(AttributeError, match="toy_twice"):
        tp.ops.toy_twice  # noqa: B018


def test_a_plugin_registered_by_hand_raises_its_problems(toys):
    class Broken:
        tensorplug_api_version = tp.API_VERSION

        @hookimpl
        def tensorplug_gradients(self, register):
            raise ValueError("bad gradient table")

    with pytest.raises(PluginError, match=r"plugin 'broken-by-hand' failed at hook tensorplug_gradients: "
                       r"ValueError: bad gradient table") as err:
        register_plugin(Broken(), name="broken-by-hand")
    assert isinstance(err.value.__cause__, ValueError)
    assert "broken-by-hand" not in {p.name for p in list_plugins()}

    class Old:
        tensorplug_api_version = 0

    with pytest.raises(PluginVersionError, match=r"built for tensorplug API version 0"):
        register_plugin(Old(), name="old-by-hand")


def test_a_misspelled_hook_is_reported_not_silently_ignored(toys):
    toy = toys("""
    @hookimpl
    def tensorplug_kernel(backend_name, register):
        pass

    @hookimpl
    def tensorplug_ops(register):
        register(OpConfig("toy_typo", lambda x: x))
    """, name="typo")
    with pytest.warns(TensorplugPluginWarning) as record:
        _numpy_still_works()
    [message] = _plugin_warnings(record)
    assert (f"plugin '{toy.entry_name}' (distribution {toy.dist}) failed at registration with pluggy: it "
            "implements unknown hook(s) 'tensorplug_kernel' (did you mean 'tensorplug_kernels'?)") in message
    assert "toy_typo" not in list_ops()  # the plugin was refused as a whole

    class ByHand:
        tensorplug_api_version = tp.API_VERSION

        @hookimpl
        def tensorplug_gradient(self, register):
            pass

    with pytest.raises(PluginError, match=r"unknown hook\(s\) 'tensorplug_gradient' \(did you mean "
                       r"'tensorplug_gradients'\?\)\. Implement only tensorplug's hooks: "
                       r"tensorplug_backends"):
        register_plugin(ByHand(), name="typo-by-hand")


# -- API version declarations ----------------------------------------------------------------
VERSIONED = """
from tensorplug.extend import BackendConfig, hookimpl
import tensorplug_numpy

{declaration}


@hookimpl
def tensorplug_backends(register):
    register(BackendConfig("toyversioned", tensorplug_numpy.NumpyBackend, priority=-5))
"""


@pytest.mark.parametrize("declaration, why", [
    ("tensorplug_api_version = 999", r"it was built for tensorplug API version 999, and this tensorplug-core "
                                     r"has API version 1"),
    ("", r"it does not declare tensorplug_api_version, and this tensorplug-core has API version 1"),
])
def test_a_plugin_for_another_api_version_is_refused(toys, declaration, why):
    toy = toys(VERSIONED.format(declaration=declaration), name="versioned", header=False)
    with pytest.warns(TensorplugPluginWarning) as record:
        _numpy_still_works()
    [message] = _plugin_warnings(record)
    assert f"plugin '{toy.entry_name}' (distribution {toy.dist}) failed at API version check" in message
    assert re.search(why, message)
    assert "Install a release of the plugin built for API version 1" in message
    assert "toyversioned" not in tp.list_backends()  # its hooks never ran
    assert plugin_problems()[0].stage == "API version check"


@pytest.mark.parametrize("declaration", ["tensorplug_api_version = 999", ""])
def test_strict_mode_refuses_another_api_version_with_a_plugin_version_error(toys, monkeypatch, declaration):
    monkeypatch.setenv(STRICT, "1")
    toy = toys(VERSIONED.format(declaration=declaration), name="versioned", header=False)
    with pytest.raises(PluginVersionError, match=rf"plugin '{toy.entry_name}'.*API version check"):
        tp.list_backends()
    with pytest.raises(PluginVersionError):  # at every use, until the environment is fixed
        tp.list_backends()
    monkeypatch.delenv(STRICT)
    assert "toyversioned" not in tp.list_backends()


# -- hooks that misbehave: isolated, rolled back, reported -----------------------------------
RAISING_HOOK = """
def _rule(infos, attrs):
    return [infos[0]]


@hookimpl
def tensorplug_kernel_specs(register):
    register(KernelSpec(name="ToyRolledBack", inputs=("x",), infer=_rule))


@hookimpl
def tensorplug_gradients(register):
    raise ValueError("the gradient table is broken")
"""

UNKNOWN_KERNEL = """
import numpy as np

@hookimpl
def tensorplug_kernels(backend_name, register):
    register(KernelConfig("Exp", backend_name, lambda i, a, b: np.exp(i[0]) * 0), override=True)
    register(KernelConfig("Exq", backend_name, lambda i, a, b: i[0]))
"""

WRONG_TYPE = """
@hookimpl
def tensorplug_gradients(register):
    register(KernelConfig("Exp", "numpy", lambda i, a, b: i[0]))
"""


@pytest.mark.parametrize("source, stage, cause", [
    (RAISING_HOOK, "hook tensorplug_gradients", r"ValueError: the gradient table is broken"),
    (UNKNOWN_KERNEL, "hook tensorplug_kernels (backend 'numpy')",
     r"KernelSpecNotFoundError: No kernel spec named 'Exq'\. Did you mean 'Exp'"),
    (WRONG_TYPE, "hook tensorplug_gradients",
     r"RegistrationError: tensorplug_gradients passed a KernelConfig to register\(\); it takes a GradConfig"),
], ids=["raises", "unknown-kernel-name", "wrong-type"])
def test_a_misbehaving_hook_is_isolated_rolled_back_and_reported(toys, source, stage, cause):
    toy = toys(source, name="misbehaving")
    good = toys(GOOD_PLUGIN, name="zgood")  # loads after the misbehaving one
    with pytest.warns(TensorplugPluginWarning) as record:
        _numpy_still_works()  # the override of Exp by UNKNOWN_KERNEL was rolled back
    [message] = _plugin_warnings(record)
    assert message.startswith(
        f"tensorplug plugin '{toy.entry_name}' (distribution {toy.dist}) failed at {stage}: ")
    assert re.search(cause, message)
    assert "rolled back" in message
    [problem] = plugin_problems()
    assert (problem.plugin, problem.stage) == (toy.entry_name, stage)
    assert all(v == [] for v in contributions(toy.entry_name).values())
    with pytest.raises(LookupError, match="ToyRolledBack"):
        get_kernel_spec("ToyRolledBack")
    assert tp.ops.toy_cube(2.0).item() == 8.0  # the other plugin is unaffected
    assert contributions(good.entry_name)["kernels"] == ["ToyCube/numpy"]


def test_strict_mode_raises_for_a_misbehaving_hook(toys, monkeypatch):
    monkeypatch.setenv(STRICT, "1")
    toy = toys(RAISING_HOOK, name="misbehaving")
    with pytest.raises(PluginError, match=rf"'{toy.entry_name}'.*failed at hook tensorplug_gradients: "
                       r"ValueError: the gradient table is broken"):
        tp.asarray(1.0)
    with pytest.raises(LookupError, match="ToyRolledBack"):
        get_kernel_spec("ToyRolledBack")


# -- two plugins for one slot ----------------------------------------------------------------
CLASH_SPEC = """
def _rule(infos, attrs):
    return [infos[0]]

@hookimpl
def tensorplug_kernel_specs(register):
    register(KernelSpec(name="ToyClash", inputs=("x",), infer=_rule))
"""

CLASH_KERNEL = """
import numpy as np

@hookimpl
def tensorplug_kernels(backend_name, register):
    if backend_name == "numpy":
        register(KernelConfig("ToyClash", "numpy", lambda i, a, b: np.zeros_like(i[0]) + {value}){extra})
"""


def test_two_plugins_registering_one_kernel_is_an_error_naming_both(toys):
    first = toys(CLASH_SPEC + CLASH_KERNEL.format(value=1, extra=""), name="clash-a")
    second = toys(CLASH_KERNEL.format(value=2, extra=""), name="clash-b")
    with pytest.warns(TensorplugPluginWarning) as record:
        tp.asarray(1.0)
    [message] = _plugin_warnings(record)
    assert f"plugin '{second.entry_name}'" in message
    assert (f"Kernel 'ToyClash' for backend 'numpy' is already registered by '{first.entry_name}'; "
            f"'{second.entry_name}' registers a different one") in message
    assert tp.run_kernel("ToyClash", {"x": 0.0}).item() == 1.0


@pytest.mark.parametrize("extra", [", override=True", ", override=True, priority=1"])
def test_two_plugins_registering_one_kernel_with_override(toys, extra):
    first = toys(CLASH_SPEC + CLASH_KERNEL.format(value=1, extra=""), name="clash-a")
    second = toys(CLASH_KERNEL.format(value=2, extra=extra), name="clash-b")
    with warnings.catch_warnings():
        warnings.simplefilter("error", TensorplugPluginWarning)
        assert tp.run_kernel("ToyClash", {"x": 0.0}).item() == 2.0
    assert current().kernels.registration(("ToyClash", "numpy")).source == second.entry_name
    unregister_plugin(second.entry_name)
    assert tp.run_kernel("ToyClash", {"x": 0.0}).item() == 1.0
    assert current().kernels.registration(("ToyClash", "numpy")).source == first.entry_name


# -- discovery: lazy, once -------------------------------------------------------------------
def test_discovery_scans_entry_points_once(toys, monkeypatch):
    import importlib_metadata

    calls = []
    real = importlib_metadata.entry_points

    def counting(*args, **kwargs):
        calls.append(kwargs.get("group"))
        return real(*args, **kwargs)

    monkeypatch.setattr(importlib_metadata, "entry_points", counting)
    toy = toys(GOOD_PLUGIN, name="good")
    assert calls == []
    tp.asarray(1.0) + 1.0
    tp.list_backends()
    tp.ops.toy_cube(2.0)
    list_plugins()
    plugin_problems()
    tp.set_backend("numpy")
    assert calls == ["tensorplug"]
    assert toy.entry_name in {p.name for p in list_plugins()}


def _run(code: str, env_extra: dict[str, str] | None = None,
         pythonpath: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    env.update(env_extra or {})
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True)


def test_import_tensorplug_imports_no_plugin_module_and_first_use_does(tmp_path):
    toy = make_dist(tmp_path, GOOD_PLUGIN, name="lazy")
    proc = _run(f"""
        import sys
        import tensorplug as tp
        import tensorplug.extend, tensorplug.ops
        loaded = [m for m in sys.modules if m.startswith(("tensorplug_numpy", "{toy.module}"))]
        assert loaded == [], loaded
        tp.asarray(1.0)
        assert "tensorplug_numpy.plugin" in sys.modules and "{toy.module}" in sys.modules
        print(tp.ops.toy_cube(2.0).item())
    """, pythonpath=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "8.0"
