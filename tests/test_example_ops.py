"""The example_ops plugin (plugins/example_ops/), installed and found through its entry point:
each path of the guide working (values and gradients against finite differences), its
gradient override against scoped overrides, and unregistering it restoring core behaviour."""

from __future__ import annotations

import ast
import math
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import importlib_metadata
import numpy as np
import pytest

import tensorplug as tp
import tensorplug_example_ops as example
from tensorplug.core.runtime import current
from tensorplug.errors import KernelSpecNotFoundError
from tensorplug.extend import (
    Backend,
    BackendConfig,
    GradConfig,
    contributions,
    get_kernel_spec,
    list_ops,
    list_plugins,
    override_gradient,
    plugin_problems,
    register_backend,
    unregister_plugin,
)
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.testing import check_gradients

PLUGIN = "tensorplug-example-ops"
ROOT = Path(__file__).resolve().parents[1] / "plugins" / "example_ops"
SOURCES = sorted((ROOT / "src" / "tensorplug_example_ops").glob("*.py"))


def _ema_reference(x: np.ndarray, alpha: float, axis: int) -> np.ndarray:
    """The recurrence itself, step by step."""
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, 0)
    out = np.empty_like(x)
    out[0] = x[0]
    for t in range(1, len(x)):
        out[t] = alpha * x[t] + (1 - alpha) * out[t - 1]
    return np.moveaxis(out, 0, axis)


# -- the distribution ------------------------------------------------------------------------
def test_the_plugin_is_installed_found_and_loaded_without_problems():
    info = {p.name: p for p in list_plugins()}[PLUGIN]
    assert (info.distribution, info.version, info.origin, info.active) == (
        PLUGIN, "0.1.0", "entry point", True)
    assert info.module is sys.modules["tensorplug_example_ops.plugin"]
    assert [p for p in plugin_problems() if p.plugin == PLUGIN] == []
    tp.asarray(1.0)  # starts the numpy backend: the plugin's kernels are registered
    assert contributions(PLUGIN) == {
        "backends": [], "kernel specs": ["Erf"], "kernels": ["Erf/numpy"],
        "gradients": ["Erf", "Round"], "JVP rules": ["Erf", "Round"], "batching rules": ["Erf"],
        "ONNX lowerings": ["Erf"],
        "ops": ["clip_gradient", "ema", "erf", "softplus"],
    }


def test_the_ops_are_reachable_from_tp_ops_and_from_the_package():
    for name in ("ema", "erf", "softplus", "clip_gradient"):
        assert getattr(tp.ops, name) is getattr(example, name)
        assert name in list_ops()


def test_the_distribution_depends_only_on_core_and_ships_its_types():
    dist = importlib_metadata.distribution(PLUGIN)
    assert [re.split(r"[<>=!~ ;]", r)[0] for r in dist.requires] == ["tensorplug-core"]
    [ep] = dist.entry_points
    assert (ep.group, ep.name, ep.value) == ("tensorplug", PLUGIN, "tensorplug_example_ops.plugin")
    assert (ROOT / "src" / "tensorplug_example_ops" / "py.typed").exists()
    assert (ROOT / "README.md").read_text().startswith("# tensorplug-example-ops")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_the_plugin_uses_only_the_public_api(path):
    """Imports of tensorplug are `tensorplug` and `tensorplug.extend` only (its own package's are its
    own business), and the testing kit
    in `references.py` (which the plugin imports only inside its references hook); jax is
    imported only inside a function (never when the plugin loads)."""
    tree = ast.parse(path.read_text())
    top_level = set(tree.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module or ""]
        else:
            continue
        for module in modules:
            if module.split(".")[0] == "tensorplug":
                public = ("tensorplug", "tensorplug.extend") + (
                    ("tensorplug.testing",) if path.name == "references.py" else ())
                assert module in public, f"{path.name} imports {module}"
            if module.split(".")[0] == "jax":
                assert node not in top_level, f"{path.name} imports jax at module level"
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module == "references":
            assert node not in top_level, f"{path.name} imports the references at module level"


# -- path 1: an op composed from existing ops ------------------------------------------------
@pytest.mark.parametrize(("shape", "alpha", "axis"), [
    ((5,), 0.3, -1), ((3, 4), 0.5, 0), ((3, 4), 0.9, 1), ((2, 3, 4), 1.0, 1), ((1,), 0.2, 0),
])
def test_ema_values(shape, alpha, axis):
    x = np.random.default_rng(0).standard_normal(shape)
    got = tp.ops.ema(x, alpha, axis=axis)
    assert got.shape == shape and got.dtype == tp.float64
    np.testing.assert_allclose(got.numpy(), _ema_reference(x, alpha, axis), rtol=1e-12, atol=1e-12)


def test_ema_keeps_float32_and_takes_integers():
    assert tp.ops.ema(tp.asarray([1.0, 2.0]), 0.5).dtype == tp.float32
    assert tp.ops.ema([1, 3], 0.5).tolist() == [1.0, 2.0]


def test_ema_is_differentiable_for_free_in_x_and_alpha():
    x = np.random.default_rng(1).standard_normal((3, 5))
    check_gradients(lambda x: tp.ops.ema(x, 0.3, axis=1), x, order=2)
    check_gradients(lambda a: tp.ops.ema(x, a, axis=0), 0.4, order=2)
    assert "Ema" not in {s.name for s in tp.extend.list_kernel_specs()}  # no kernel, no gradient


@pytest.mark.parametrize(("args", "error", "match"), [
    (([1.0, 2.0], 0.0), ValueError, r"alpha must lie in \(0, 1\], got 0\.0"),
    (([1.0, 2.0], 1.5), ValueError, r"alpha must lie in \(0, 1\], got 1\.5"),
    ((3.0, 0.5), tp.ShapeError, r"needs at least one axis"),
    (([1.0, 2.0], 0.5, 1), tp.ShapeError, r"axis 1 is out of range for shape \(2,\)"),
    (([1.0, 2.0], [0.5, 0.5]), tp.ShapeError, r"alpha must be a scalar, got shape \(2,\)"),
])
def test_ema_refuses_bad_arguments(args, error, match):
    with pytest.raises(error, match=match):
        tp.ops.ema(*args)


# -- path 2: a new kernel --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64])
def test_erf_values_and_dtypes(dtype):
    x = np.array([[-3.0, -0.5, 0.0], [0.25, 1.0, 6.0]])
    got = tp.ops.erf(tp.asarray(x, dtype=dtype))
    assert got.dtype == dtype and got.shape == (2, 3)
    want = np.vectorize(math.erf)(x)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dtype == tp.float32 else 1e-15)
    assert tp.ops.erf([0, 1]).dtype == tp.float32  # integers go to the default float


def test_erf_is_a_kernel_registered_by_the_plugin():
    tp.asarray(1.0)
    assert current().specs.registration("Erf").source == PLUGIN
    assert current().kernels.registration(("Erf", "numpy")).source == PLUGIN
    assert current().gradients.registration("Erf").source == PLUGIN
    assert get_kernel_spec("Erf") is example.ERF_SPEC
    assert tp.run_kernel("Erf", {"x": tp.asarray([0.5])}).tolist() == pytest.approx([math.erf(0.5)])
    with pytest.raises(tp.DTypeError, match=r"kernel 'Erf' input 'x' must have dtype float32 or float64; "
                       r"got int64"):
        tp.run_kernel("Erf", {"x": tp.asarray([1])})


def test_erf_gradient_to_second_order():
    x = np.array([[-1.5, -0.2, 0.0], [0.3, 0.9, 2.0]])
    check_gradients(tp.ops.erf, x, order=2)
    assert tp.grad(tp.ops.erf)(0.0).item() == pytest.approx(2 / math.sqrt(math.pi))


class _JaxArrays(Backend):
    """A minimal backend holding jax arrays, for when the jax backend is not installed."""

    def from_numpy(self, array):
        import jax.numpy as jnp

        return jnp.asarray(array)

    def to_numpy(self, native):
        return np.asarray(native)


@pytest.mark.jax
def test_erf_kernel_on_the_jax_backend():
    """The plugin's jax branch: with the jax backend installed it is that backend; without
    it, a minimal backend named 'jax' stands in, so the kernel is exercised either way."""
    if "jax" not in tp.list_backends():
        register_backend(BackendConfig("jax", _JaxArrays, priority=-10))
    with tp.backend_scope("jax"):
        x = tp.asarray(np.array([-1.0, 0.0, 0.5, 2.0], dtype=np.float32))
        got = tp.run_kernel("Erf", {"x": x})
        assert type(got._data).__module__.startswith("jax")
    assert current().kernels.registration(("Erf", "jax")).source == PLUGIN
    np.testing.assert_allclose(got.numpy(), [math.erf(v) for v in (-1.0, 0.0, 0.5, 2.0)], rtol=1e-6)


def test_the_ops_and_gradients_agree_on_every_installed_backend():
    """Whatever backends are installed (numpy, and jax when its backend is), each op of the
    plugin gives numpy's values and gradients there."""
    x = np.array([-1.5, -0.2, 0.4, 2.0], dtype=np.float32)
    ops = {
        "erf": tp.ops.erf,
        "ema": lambda v: tp.ops.ema(v, 0.3),
        "softplus": tp.ops.softplus,
        "clip_gradient": lambda v: tp.ops.clip_gradient(v, -0.5, 0.5) * 3.0,
        "round (straight through)": lambda v: tp.round(v) * 2.0,
    }

    def values_and_gradients(backend: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        with tp.backend_scope(backend):
            out = {}
            for name, f in ops.items():
                value = f(tp.asarray(x))
                assert value.backend == backend, name
                gradient = tp.grad(lambda v, f=f: tp.sum(f(v)))(tp.asarray(x))
                out[name] = (value.numpy(), gradient.numpy())
            return out

    want = values_and_gradients("numpy")
    assert want["round (straight through)"][1].tolist() == [2.0] * 4
    for backend in tp.list_backends():
        got = values_and_gradients(backend)
        for name in ops:
            for i, what in enumerate(("value", "gradient")):
                np.testing.assert_allclose(got[name][i], want[name][i], rtol=2e-6, atol=1e-7,
                                           err_msg=f"{name} {what} on {backend}")


def _subprocess(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_the_plugin_never_imports_jax_itself():
    proc = _subprocess(
        "import sys, tensorplug as tp\n"
        "x = tp.asarray([0.5, 1.0])\n"
        "tp.ops.erf(x); tp.ops.ema(x, 0.5); tp.ops.softplus(x); tp.grad(lambda v: tp.sum(tp.round(v)))(x)\n"
        "assert 'tensorplug_example_ops.plugin' in sys.modules\n"
        "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_erf_on_a_backend_without_the_kernel_says_where_it_is():
    from _toy_backend import install_toy_backend

    install_toy_backend(without=("Erf",))  # it copies the numpy backend's kernels
    with tp.backend_scope("toy"), pytest.raises(
            tp.KernelNotFoundError,
            match=r"Kernel 'Erf' is not registered for backend 'toy'; it is registered for 'numpy'"):
        tp.ops.erf(0.5)


# -- path 3: a gradient override of a core kernel --------------------------------------------
def _round_gradient(x) -> list[float]:
    return tp.grad(lambda v: tp.sum(tp.round(v) * 3.0))(tp.asarray(x)).tolist()


def test_round_gradient_is_straight_through_while_the_plugin_is_installed():
    assert tp.round(tp.asarray([0.2, 1.7])).tolist() == [0.0, 2.0]  # the values are the core's
    assert _round_gradient([0.2, 1.7, -2.5]) == [3.0, 3.0, 3.0]
    stack = current().gradients.stacks["Round"]
    assert [(r.source, r.override) for r in stack] == [(CORE_SOURCE, False), (PLUGIN, True)]
    assert current().gradients.active["Round"] is example.ROUND_STRAIGHT_THROUGH


def test_forward_mode_follows_the_plugins_jvp_rules():
    x, t = np.array([0.2, 1.7, -2.5]), np.array([1.0, -2.0, 0.5])
    straight = tp.jvp(lambda v: tp.round(v) * 3.0, (x,), (t,))[1]
    assert straight.tolist() == (3.0 * t).tolist()
    assert current().jvps.registration("Round").source == PLUGIN
    # Erf's rule against its derivative, and against forward mode by the transposed gradient
    got = tp.jvp(tp.ops.erf, (x,), (t,))[1].numpy()
    np.testing.assert_allclose(got, t * 2 / np.sqrt(np.pi) * np.exp(-x * x), rtol=1e-12)
    from tensorplug.transforms.autodiff.forward import _transposed
    from tensorplug.transforms.autodiff.tape import Entry
    xt = tp.asarray(x)
    (derived,) = _transposed(Entry("Erf", (xt,), {}, (tp.ops.erf(xt),)), (tp.asarray(t),))
    np.testing.assert_allclose(derived.numpy(), got, rtol=1e-12)


def test_vmap_batches_erf_by_the_plugins_rule():
    """One Erf call for the whole batch (no loop, no warning), the batch axis where it was."""
    import warnings

    from tensorplug.errors import VmapFallbackWarning
    from tensorplug.profiler import count_kernels

    x = np.linspace(-2.0, 2.0, 12).reshape(3, 4)
    assert current().batching.registration("Erf").source == PLUGIN
    with warnings.catch_warnings(), count_kernels() as calls:
        warnings.simplefilter("error", VmapFallbackWarning)
        got = tp.vmap(tp.ops.erf, in_axes=1, out_axes=1)(tp.asarray(x))
    assert calls.counts[("Erf", "numpy")] == 1
    np.testing.assert_allclose(got.numpy(), [[math.erf(v) for v in row] for row in x], rtol=1e-12)


def test_a_scoped_override_wins_over_the_plugin_override_and_is_undone_after():
    double = GradConfig("Round", lambda dy, saved, attrs: {"x": lambda: dy * 2.0})
    with override_gradient(double):
        assert _round_gradient([0.2]) == [6.0]
    assert _round_gradient([0.2]) == [3.0]
    with pytest.raises(RuntimeError, match="in the block"), override_gradient(double):
        raise RuntimeError("in the block")
    assert _round_gradient([0.2]) == [3.0]


def test_a_scoped_override_applies_only_in_its_own_thread():
    seen: dict[str, list[float]] = {}
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait(5)
        seen["other"] = _round_gradient([0.2])
        done.set()

    worker = threading.Thread(target=other)
    worker.start()
    with override_gradient(GradConfig("Round", lambda dy, saved, attrs: {"x": lambda: dy * 0.0})):
        inside.set()
        assert done.wait(5)
        seen["this"] = _round_gradient([0.2])
    worker.join()
    assert seen == {"other": [3.0], "this": [0.0]}


# -- path 4: custom_grad ---------------------------------------------------------------------
def test_softplus_is_stable_and_its_gradient_is_the_sigmoid():
    x = tp.asarray([-1000.0, -30.0, 0.0, 2.0, 1000.0], dtype=tp.float64)
    got = tp.ops.softplus(x).numpy()
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, [0.0, math.log1p(math.exp(-30.0)), math.log(2.0),
                                     math.log1p(math.exp(2.0)), 1000.0], rtol=1e-15)
    g = tp.grad(lambda v: tp.sum(tp.ops.softplus(v)))(x).numpy()
    np.testing.assert_allclose(g, np.exp(-np.logaddexp(0.0, -x.numpy())), rtol=1e-14)  # sigmoid
    assert tp.ops.softplus([0, 1]).dtype == tp.float32


def test_softplus_gradient_to_third_order():
    check_gradients(tp.ops.softplus, np.array([[-2.0, -0.3, 0.0], [0.4, 1.1, 3.0]]), order=3)


def test_clip_gradient_is_the_identity_forward_and_clips_backward():
    x = tp.asarray([-2.0, 0.5, 3.0])
    assert tp.ops.clip_gradient(x, -1.0, 1.0).tolist() == [-2.0, 0.5, 3.0]
    scale = tp.asarray([10.0, 0.25, -7.0])
    g = tp.grad(lambda v: tp.sum(tp.ops.clip_gradient(v, -1.0, 1.0) * scale))(x)
    assert g.tolist() == [1.0, 0.25, -1.0]
    check_gradients(lambda v: tp.ops.clip_gradient(v, -math.inf, math.inf) * v, np.array([0.3, -1.2]),
                    order=2)
    with pytest.raises(ValueError, match=r"lo must not exceed hi, got lo=1\.0, hi=-1\.0"):
        tp.ops.clip_gradient(x, 1.0, -1.0)


# -- unregistering the plugin restores core behaviour ----------------------------------------
def test_unregister_plugin_restores_core_behaviour():
    tp.asarray(1.0)
    assert _round_gradient([0.2]) == [3.0]
    unregister_plugin(PLUGIN)

    assert _round_gradient([0.2]) == [0.0]  # the core's zero gradient again
    assert current().gradients.registration("Round").source == CORE_SOURCE
    with pytest.raises(KernelSpecNotFoundError, match=r"No kernel spec named 'Erf'"):
        get_kernel_spec("Erf")
    with pytest.raises(LookupError, match=r"No kernel spec named 'Erf'"):
        tp.run_kernel("Erf", {"x": tp.asarray([0.5])})
    assert not any(k == "Erf" for k, _ in current().kernels.active)
    assert "Erf" not in current().gradients.active
    for name in ("ema", "erf", "softplus", "clip_gradient"):
        assert name not in list_ops()
        with pytest.raises(AttributeError, match=rf"tensorplug has no op '{name}'"):
            getattr(tp.ops, name)
    assert all(v == [] for v in contributions(PLUGIN).values())
    assert PLUGIN not in {p.name for p in list_plugins()}

    # the package still works as a library, through what core has: the composed op and the
    # scoped override
    assert example.ema([1.0, 3.0], 0.5).tolist() == [1.0, 2.0]
    with override_gradient(example.ROUND_STRAIGHT_THROUGH):
        assert _round_gradient([0.2]) == [3.0]
    assert _round_gradient([0.2]) == [0.0]


def test_the_conftest_isolation_brought_the_plugin_back():
    """Runs after the test above in the same process or not: either way the plugin is there."""
    assert PLUGIN in {p.name for p in list_plugins() if p.active}
    assert _round_gradient([0.2]) == [3.0]
