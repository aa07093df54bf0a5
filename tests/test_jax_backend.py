"""The jax backend (tensorplug-backend-jax): found through its entry point, imported lazily, a
kernel for every kernel spec, the dtype policy (64-bit types scoped to tensorplug's calls),
devices, moves between backends, and errors explained like the numpy backend's."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import kernels_for_backend, list_kernel_specs, start_backend


def _python(code: str, **env_extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TENSORPLUG_", "JAX_", "XLA_"))}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True)


@pytest.fixture
def on_jax():
    return tp.set_backend("jax")


# -- discovery, laziness, completeness --------------------------------------------------------
def test_jax_is_imported_only_when_the_jax_backend_starts():
    proc = _python("""
        import sys
        import tensorplug as tp
        jaxish = lambda: sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib"))
        x = tp.asarray([1.0, 2.0])
        print(tp.list_backends(), tp.get_backend(), (x * 2).backend)   # numpy, plugins loaded
        print(jaxish(), "tensorplug_jax.plugin" in sys.modules, "tensorplug_jax.kernels" in sys.modules,
              "torch" in sys.modules)
        tp.set_backend("jax")
        print(bool(jaxish()), "tensorplug_jax.kernels" in sys.modules, (tp.asarray([1.0]) + 1.0).backend)
    """)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "['numpy', 'jax', 'torch'] numpy numpy"
    assert lines[1] == "[] True False False"  # the plugin modules are loaded, jax and torch are not
    assert lines[2] == "True True jax"


def test_the_jax_backend_is_a_plugin_found_through_its_entry_point():
    info = {p.name: p for p in tp.extend.list_plugins()}["tensorplug-backend-jax"]
    assert info.distribution == "tensorplug-backend-jax" and info.origin == "entry point" and info.active
    row = {r["name"]: r for r in tp.extend.backend_info()}["jax"]
    assert row["source"] == "tensorplug-backend-jax" and row["priority"] == 0  # numpy stays the default
    assert tp.get_backend() == "numpy"


def test_every_kernel_spec_has_a_jax_kernel(on_jax):
    """Completeness, computed from the registry: a spec added later without a jax kernel fails."""
    have = {c.kernel_name for c in kernels_for_backend("jax")}
    missing = sorted(s.name for s in list_kernel_specs() if s.name not in have)
    assert not missing, f"kernel specs without a jax kernel: {missing}"
    assert {c.kernel_name for c in kernels_for_backend("numpy")} <= have


def test_jax_kernels_are_registered_by_the_plugin(on_jax):
    reg = tp.extend.get_kernel("MatMul", "jax")
    assert reg is not None
    rows = {c.kernel_name for c in kernels_for_backend("jax")}
    assert "MatMul" in rows and "AdamUpdate" in rows


# -- dtypes -----------------------------------------------------------------------------------
def test_tensorplug_defaults_keep_their_dtypes_on_jax(on_jax):
    assert tp.asarray(3).dtype is tp.int64 and tp.asarray(3).native.dtype == np.int64
    assert tp.asarray(3.0).dtype is tp.float32
    assert tp.arange(4).dtype is tp.int64
    big = tp.asarray([2**40]) * 3
    assert big.dtype is tp.int64 and big.item() == 3 * 2**40  # not truncated to 32 bits
    x64 = tp.asarray(np.array([1 / 3]))  # numpy float64 stays float64
    assert x64.dtype is tp.float64 and x64.native.dtype == np.float64
    assert x64.item() == 1 / 3
    assert tp.argmax(tp.asarray([1.0, 3.0, 2.0])).dtype is tp.int64
    assert tp.sum(tp.asarray([1, 2], dtype=tp.int32)).dtype is tp.int64


@pytest.mark.parametrize("dtype", [tp.bool_, tp.int32, tp.int64, tp.float32, tp.float64], ids=str)
def test_every_dtype_round_trips_exactly(on_jax, dtype):
    values = np.array([0, 1, 2**31 + 5 if dtype is tp.int64 else 7, 3], dtype=dtype.numpy)
    t = tp.asarray(values)
    assert t.dtype is dtype and t.native.dtype == dtype.numpy
    np.testing.assert_array_equal(t.numpy(), values)
    assert t.numpy().dtype == dtype.numpy


def test_64_bit_types_are_enabled_only_inside_tensorplugs_calls(on_jax):
    """Other JAX code in the process keeps JAX's defaults (32-bit) before, between and after
    tensorplug's calls; tensorplug's results stay 64-bit."""
    assert not jax.config.jax_enable_x64
    t = tp.asarray([1, 2]) + 1
    assert t.native.dtype == np.int64
    assert not jax.config.jax_enable_x64 and not jax.enable_x64.value
    assert jnp.asarray(1).dtype == jnp.int32 and jnp.asarray(1.0).dtype == jnp.float32
    assert jnp.arange(3).dtype == jnp.int32


def test_a_kernel_another_plugin_registers_for_jax_runs_in_the_64_bit_scope(on_jax):
    """A third party's jax kernel computes as the backend's own do: x + 4.0 on float64 stays
    float64 (unscoped, jax's 32-bit default would make it float32), eagerly, under tp.jit, and
    through its gradient."""
    from tensorplug.extend import KernelConfig, register_kernel, unregister_kernel

    def add_four(inputs, attrs, backend):
        (x,) = inputs
        return x + 4.0  # (jnp arithmetic with a Python float: float32 outside the 64-bit scope)

    register_kernel(KernelConfig("Softplus", "jax", add_four), override=True)
    try:
        x = tp.asarray(np.array([1.0, 2.0]), dtype=tp.float64)
        for out in (tp.nn.softplus(x), tp.jit(tp.nn.softplus)(x)):
            assert out.dtype == tp.float64 and out.native.dtype == np.float64
            np.testing.assert_array_equal(out.numpy(), [5.0, 6.0])
    finally:
        unregister_kernel("Softplus", "jax", source="user code")
    assert tp.nn.softplus(x).dtype == tp.float64


def test_the_x64_scope_is_per_thread(on_jax):
    """A thread doing plain JAX work is not affected while another runs tensorplug ops."""
    stop = threading.Event()
    seen: set[str] = set()

    def plain_jax():
        while not stop.is_set():
            seen.add(str(jnp.asarray(1).dtype))

    thread = threading.Thread(target=plain_jax)
    thread.start()
    try:
        for _ in range(200):
            tp.asarray([1, 2]) * 3
    finally:
        stop.set()
        thread.join()
    assert seen == {"int32"}


def test_32_bit_calls_skip_the_64_bit_scope_and_64_bit_ones_keep_it(on_jax):
    """Elementwise kernels, reductions and MatMul on float32/int32 run unscoped (jax's 32-bit
    mode computes the same); 64-bit inputs, and int32 sums (which widen to int64), keep the
    scope, so no value is narrowed."""
    f32 = tp.asarray(np.array([[1.5, -2.0], [0.5, 4.0]], np.float32))
    np.testing.assert_allclose(tp.exp(f32).numpy(), np.exp(f32.numpy()), rtol=1e-6)
    assert (f32 @ f32).dtype is tp.float32 and tp.sum(f32).dtype is tp.float32
    assert tp.max(tp.asarray(np.array([3, 7], np.int32))).dtype is tp.int32
    big = tp.asarray(np.array([2**40, -(2**41)], np.int64))
    assert (big + big).numpy().tolist() == [2**41, -(2**42)] and (big + big).dtype is tp.int64
    assert tp.negative(big).numpy().tolist() == [-(2**40), 2**41]
    assert (big @ tp.reshape(big, (2, 1))).dtype is tp.int64
    widened = tp.sum(tp.asarray(np.array([2**30, 2**30], np.int32)))  # 2**31 overflows int32
    assert widened.dtype is tp.int64 and widened.item() == 2**31
    mixed = tp.exp(tp.asarray(np.array([0.5]))) + 1  # float64 stays float64
    assert mixed.dtype is tp.float64 and mixed.item() == pytest.approx(np.exp(0.5) + 1, rel=1e-15)
    assert not jax.config.jax_enable_x64 and not jax.enable_x64.value


def test_a_user_enabling_x64_globally_is_respected(on_jax):
    jax.config.update("jax_enable_x64", True)
    try:
        assert (tp.asarray([1.0]) * 2).dtype is tp.float32  # tensorplug's defaults do not move
        assert jnp.asarray(1.0).dtype == jnp.float64
    finally:
        jax.config.update("jax_enable_x64", False)


# -- devices ----------------------------------------------------------------------------------
def test_tensors_report_their_device(on_jax):
    t = tp.asarray([1.0, 2.0])
    assert t.device == "cpu:0"
    assert tp.devices() == ["cpu:0"] and tp.devices("numpy") == ["cpu"]
    assert tp.asarray([1.0], backend="numpy").device == "cpu"


def test_the_backend_can_be_told_which_device_to_use(on_jax):
    backend = start_backend("jax")
    tp.set_default_device("cpu:0", backend="jax")
    assert backend.device == jax.devices()[0] and backend.pinned_device is None
    tp.set_default_device("cpu")
    assert (tp.ones((2,)) + 1).device == "cpu:0"
    with pytest.raises(tp.DeviceError, match=r"Backend 'jax' has no device 'tpu:7'.*devices are \['cpu:0'\]"):
        tp.set_default_device("tpu:7")
    with pytest.raises(tp.DeviceError, match="Backend 'numpy' has no device 'gpu'"):
        tp.set_default_device("gpu", backend="numpy")


def test_the_device_comes_from_the_environment_when_the_backend_starts():
    proc = _python("""
        import tensorplug as tp
        tp.set_backend("jax")
        print(tp.asarray([1.0]).device, tp.extend.start_backend("jax").device)
    """, TENSORPLUG_JAX_DEVICE="cpu:0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "cpu:0"


def test_device_put_places_tensors_and_is_differentiable(on_jax):
    x = tp.asarray([1.0, 2.0])
    y = tp.device_put(x, "cpu:0")
    assert y.device == "cpu:0" and y.dtype is tp.float32
    y = tp.device_put({"a": x, "b": [x]}, jax.devices()[0])
    assert y["b"][0].device == "cpu:0"
    g = tp.grad(lambda x: tp.sum(tp.device_put(x, "cpu:0") ** 2))(x)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    assert tp.device_put(tp.asarray([1.0], backend="numpy"), "cpu").backend == "numpy"
    with pytest.raises(tp.DeviceError, match="no device 'cpu:9'"):
        tp.device_put(x, "cpu:9")


# -- moves between backends -------------------------------------------------------------------
def test_tensors_move_between_backends_explicitly(on_jax):
    a = tp.asarray(np.arange(6, dtype=np.int64).reshape(2, 3))
    on_numpy = a.to("numpy")
    assert on_numpy.backend == "numpy" and isinstance(on_numpy.native, np.ndarray)
    back = on_numpy.to("jax")
    assert back.backend == "jax" and isinstance(back.native, jax.Array) and back.dtype is tp.int64
    np.testing.assert_array_equal(back.numpy(), np.arange(6).reshape(2, 3))


def test_ops_mixing_backends_move_inputs_to_the_active_backend():
    n = tp.asarray([1.0, 2.0])  # numpy (the default)
    tp.set_backend("jax")
    j = tp.asarray([10.0, 20.0])
    out = n + j
    assert out.backend == "jax" and out.numpy().tolist() == [11.0, 22.0]
    tp.set_backend("numpy")
    out = j * n
    assert out.backend == "numpy" and isinstance(out.native, np.ndarray)
    assert out.numpy().tolist() == [10.0, 40.0]
    # a gradient flows back through the move
    g = tp.grad(lambda a: tp.sum(a * j))(n)
    assert g.backend == "numpy" and g.numpy().tolist() == [10.0, 20.0]


def test_numpy_always_works_and_is_read_only(on_jax):
    t = tp.asarray([[1.0, 2.0]]) * 2
    host = t.numpy()
    assert isinstance(host, np.ndarray) and host.tolist() == [[2.0, 4.0]]
    with pytest.raises(ValueError):
        host[0, 0] = 5.0
    assert np.asarray(t).tolist() == [[2.0, 4.0]] and float(tp.sum(t)) == 6.0
    assert "backend='jax'" in repr(t)


def test_from_numpy_copies(on_jax):
    a = np.arange(4, dtype=np.float32)
    for _ in range(3):  # the first sightings of a shape and the compiled path after them
        t = tp.asarray(a)
        a[0] = 99.0
        assert t.numpy()[0] != 99.0
        a[0] = 0.0


# -- errors -----------------------------------------------------------------------------------
def test_a_kernel_refusing_its_inputs_is_explained_from_the_spec_and_chained(on_jax):
    from tensorplug.families._common.convert import (
        caller,  # the ops' fast path: no spec check before the kernel
    )

    with pytest.raises(tp.ShapeError, match=r"Kernel 'MatMul' on backend 'jax'.*do not fit") as exc:
        caller("MatMul")((tp.ones((2, 3)), tp.ones((2, 3))), {"transpose_x": False, "transpose_y": False})
    assert isinstance(exc.value.__cause__, TypeError)  # jax's own complaint, chained
    with pytest.raises(tp.ShapeError, match=r"Kernel 'MatMul' on backend 'jax'.*do not fit"):
        tp.run_kernel("MatMul", [tp.ones((2, 3)), tp.ones((2, 3))])


def test_a_jax_failure_on_valid_inputs_is_a_kernel_error_naming_kernel_backend_and_plugin(on_jax):
    def broken(inputs, attrs, backend):
        raise RuntimeError("XLA said no")

    tp.extend.register_kernel(tp.extend.KernelConfig("Exp", "jax", broken), override=True)
    with pytest.raises(tp.KernelError, match=r"Kernel 'Exp' on backend 'jax'.*XLA said no.*'user code'") as e:
        tp.exp(tp.ones((2,)))
    assert isinstance(e.value.__cause__, RuntimeError)


def test_gather_out_of_range_is_an_error_not_a_clamp(on_jax):
    """jnp.take would fill (and x[i] would clamp): eagerly the kernel checks the indices."""
    x = tp.asarray([1.0, 2.0, 3.0])
    with pytest.raises(tp.IndexOutOfRangeError, match=r"Kernel 'Gather' on backend 'jax': index 5 is out"):
        tp.run_kernel("Gather", [x, tp.asarray([0, 5])], {"axis": 0})
    with pytest.raises(IndexError, match="out of range"):
        tp.take(x, tp.asarray([-4]))
    assert tp.take(x, tp.asarray([-1, 0])).tolist() == [3.0, 1.0]
    with pytest.raises(tp.IndexOutOfRangeError, match="Kernel 'ScatterAdd' on backend 'jax': index 3"):
        tp.run_kernel("ScatterAdd", [tp.asarray([3]), tp.ones((1,))], {"shape": (3,), "axis": 0})


def test_slices_out_of_range_are_shape_errors(on_jax):
    with pytest.raises(tp.ShapeError, match=r"Kernel 'StridedSlice' on backend 'jax'"):
        tp.run_kernel("StridedSlice", [tp.ones((3,))], {"slices": ((0, 5, 1),)})


def test_the_hot_kernels_offer_the_dispatcher_direct_calls(on_jax):
    """The elementwise kernels, MatMul and the float reductions offer their jitted functions
    (called without the 64-bit scope for 32-bit inputs); the 64-bit dtypes are never among them,
    and a specialized function is the one compiled for those attributes."""
    from tensorplug.extend import get_kernel

    offered = {}
    for name in ("Exp", "Add", "Multiply", "Less", "MatMul", "Sum", "Max"):
        offered[name] = set(get_kernel(name, "jax").direct.dtypes)
    assert offered["Exp"] == {tp.float32, tp.int32, tp.bool_}
    assert offered["Sum"] == {tp.float32}  # an int32 sum widens to int64: in the scope
    assert all(not ({tp.float64, tp.int64} & dts) for dts in offered.values())
    matmul = get_kernel("MatMul", "jax").direct
    plain = matmul.for_attrs({"transpose_x": False, "transpose_y": False})
    assert plain is matmul.for_attrs({"transpose_x": False, "transpose_y": False})  # compiled once
    assert plain is not matmul.for_attrs({"transpose_x": True, "transpose_y": False})
    for name in ("AdamUpdate", "Cumsum", "Gather"):  # not declared narrow: always in the scope
        assert get_kernel(name, "jax").direct is None, name
