"""The NumPy backend as a plugin: found through its entry point (and not at ``import tensorplug``),
a kernel for every kernel spec, one module per kernel family, the Backend object, and kernels
that fail on bad inputs (instead of returning garbage) on the ops' fast path too."""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import message
from tensorplug.errors import IndexOutOfRangeError, KernelError
from tensorplug.extend import (
    Dispatcher,
    TensorInfo,
    contributions,
    get_kernel,
    get_kernel_spec,
    list_kernel_specs,
    list_plugins,
    start_backend,
    wrap,
)
from tensorplug.registry.generic_kernels import GENERIC_KERNELS, GENERIC_SOURCE
from tensorplug_numpy.kernels._kernel import Kernel

DIST = "tensorplug-backend-numpy"
BACKEND = "numpy"
FAMILIES = ("creation", "decompositions", "elementwise", "fft", "indexing", "linalg", "manipulation", "nn",
            "optim", "reductions", "sorting")
FAMILIES += ("activations", "convolution", "einsum", "fused", "image", "layout", "linspace", "multinomial",
             "normalization", "pooling", "scatter_nd", "segments", "sparse", "structure")  # (issue 15)


# -- completeness and layout --------------------------------------------------------------------
def test_every_kernel_spec_has_a_numpy_kernel():
    start_backend(BACKEND)
    missing = []
    for spec in list_kernel_specs():
        try:
            get_kernel(spec.name, BACKEND)
        except tp.KernelNotFoundError:
            missing.append(spec.name)
    assert not missing, f"kernel specs without a numpy kernel: {missing}"


def test_every_numpy_kernel_is_registered_by_the_plugin():
    """The plugin provides exactly the core's kernel names (plugins' own specs are theirs),
    but for the generic ones the core gives every backend (control flow), which it does not
    replace; of those it has its own Threefry2x32 (fused, in place: ~10x the generic one)."""
    start_backend(BACKEND)
    registered = {k.split("/")[0] for k in contributions(DIST)["kernels"]}
    own = {"Threefry2x32"}
    assert registered == set(contributions("tensorplug-core")["kernel specs"]) - set(GENERIC_KERNELS) | own
    generic = {k.split("/")[0] for k in contributions(GENERIC_SOURCE)["kernels"] if k.endswith("/numpy")}
    assert generic == set(GENERIC_KERNELS) - own


@pytest.mark.parametrize("family", FAMILIES)
def test_one_kernel_module_per_spec_family(family):
    """kernels/<family>.py implements exactly the kernels tensorplug/families/<family>/spec.py declares."""
    kernels = importlib.import_module(f"tensorplug_numpy.kernels.{family}").KERNELS
    specs = importlib.import_module(f"tensorplug.families.{family}.spec")
    declared = {v.name for v in vars(specs).values() if isinstance(v, tp.extend.KernelSpec)}
    assert set(kernels) == declared
    assert all(callable(f) or isinstance(f, Kernel) for f in kernels.values())


def test_the_families_are_all_registered():
    from tensorplug_numpy import kernels

    names = [c.kernel_name for c in kernels.all_kernels(BACKEND)]
    assert len(names) == len(set(names))
    every = {name for family in FAMILIES
             for name in importlib.import_module(f"tensorplug_numpy.kernels.{family}").KERNELS}
    assert set(names) == every
    assert kernels.all_kernels(BACKEND)[0] is kernels.all_kernels(BACKEND)[0]  # (the same objects)


# -- discovery ----------------------------------------------------------------------------------
def test_the_backend_is_found_through_its_entry_point():
    (info,) = [p for p in list_plugins() if p.distribution == DIST]
    assert info.origin == "entry point" and info.active
    assert info.module.__name__ == "tensorplug_numpy.plugin"
    eps = importlib.metadata.entry_points(group="tensorplug")
    assert any(ep.value == "tensorplug_numpy.plugin" for ep in eps)
    assert BACKEND in tp.list_backends()


def test_import_tensorplug_does_not_import_the_backend():
    code = textwrap.dedent("""
        import sys
        import tensorplug as tp
        assert "tensorplug_numpy" not in sys.modules, "imported at import tensorplug"
        assert "tensorplug_numpy.plugin" not in sys.modules
        assert "importlib_metadata" not in sys.modules, "heavy to load: only the plugin scan needs it"
        x = tp.run_kernel("Add", {"x": [1.0], "y": [2.0]})
        assert "tensorplug_numpy" in sys.modules, "not imported on first use"
        assert x.backend == "numpy" and x.numpy().tolist() == [3.0]
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# -- the Backend object -------------------------------------------------------------------------
def test_backend_copies_in_and_hands_out_read_only_views():
    backend = start_backend(BACKEND)
    host = np.arange(3.0)
    native = backend.from_numpy(host)
    host[0] = 99
    assert native[0] == 0
    out = backend.to_numpy(native)
    assert not out.flags.writeable and np.shares_memory(out, native)
    assert backend.dtype_of(native) is tp.float64 and backend.shape_of(native) == (3,)


@pytest.mark.parametrize("value", [np.float32(1), np.int64(2), np.bool_(True), np.array(1.0)], ids=repr)
def test_backend_describes_numpy_scalars(value):
    backend = start_backend(BACKEND)
    assert backend.shape_of(value) == ()
    assert backend.dtype_of(value) is tp.dtypes.from_numpy_dtype(value.dtype)


# -- kernels take numpy scalars (0-d results of other kernels are numpy scalars) ----------------
_SCALAR_ATTRS = {
    "Reshape": {"shape": (1,)}, "Transpose": {"perm": ()}, "BroadcastTo": {"shape": (2,)},
    "Pad": {"pad_width": ()}, "StridedSlice": {"slices": ()}, "StridedSliceGrad": {"shape": (), "slices": ()},
    "Cast": {"dtype": tp.int32}, "OneHot": {"depth": 3}, "Softmax": {"axis": -1},
}


def _scalar_dtype(spec, input_name):
    accepted = spec.input_dtypes.get(input_name, tp.dtypes.ALL_DTYPES)
    return tp.float32 if tp.float32 in accepted else accepted[-1]


def _scalar_cases():
    cases = []
    for spec in list_kernel_specs():
        if not spec.inputs:
            continue
        infos = [TensorInfo((), _scalar_dtype(spec, n)) for n in spec.inputs]
        try:
            spec.check(infos, spec.normalize_attrs(_SCALAR_ATTRS.get(spec.name)))
        except (tp.ShapeError, tp.DTypeError):
            continue  # the spec refuses 0-d inputs (Concat, Gather, MatMul, ...)
        cases.append(spec.name)
    return cases


@pytest.mark.parametrize("name", _scalar_cases())
def test_kernels_accept_numpy_scalar_inputs(name):
    spec = get_kernel_spec(name)
    backend = start_backend(BACKEND)
    dtypes = [_scalar_dtype(spec, n) for n in spec.inputs]
    inputs = [wrap(dt.numpy.type(1), backend) for dt in dtypes]
    assert all(isinstance(t.native, np.generic) for t in inputs)
    arg = {spec.inputs[0]: inputs} if spec.variadic else dict(zip(spec.inputs, inputs))
    out = tp.run_kernel(name, arg, _SCALAR_ATTRS.get(name))
    attrs = spec.normalize_attrs(_SCALAR_ATTRS.get(name))
    expected = spec.check([TensorInfo((), d) for d in dtypes], attrs)
    outs = out if isinstance(out, tuple) else (out,)  # (Unique has several outputs)
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        assert o.dtype is e.dtype
        assert -1 in e.shape or o.shape == e.shape


def test_scalar_cases_cover_the_one_input_families():
    wanted = {"Exp", "Sum", "ArgMax", "Cumsum", "Reshape", "Softmax", "NonZero", "Where", "Add"}
    assert wanted <= set(_scalar_cases())


# -- the dispatcher ops call: no spec check before the kernel, so kernels must fail on bad input -
def _call(name, arrays, attrs=None):
    spec = get_kernel_spec(name)
    tensors = tuple(tp.asarray(a) for a in arrays)
    return Dispatcher(name)(tensors, spec.normalize_attrs(attrs))


FAST_PATH_FAILURES = [
    ("Add", [np.zeros((2, 3)), np.zeros(4)], None, tp.ShapeError, ["(2, 3)", "(4,)"]),
    ("MatMul", [np.zeros((2, 3)), np.zeros((4, 5))], None, tp.ShapeError, ["(2, 3)", "(4, 5)"]),
    ("MatMul", [np.zeros(3), np.zeros((3, 2))], None, tp.ShapeError, ["at least 2 dimensions"]),
    ("Reshape", [np.zeros((2, 3))], {"shape": (4,)}, tp.ShapeError, ["cannot reshape 6 elements"]),
    ("Concat", [np.zeros((2, 3)), np.zeros((2, 4))], {"axis": 0}, tp.ShapeError,
     ["input 1 has shape (2, 4)"]),
    ("Stack", [np.zeros(2), np.zeros(3)], None, tp.ShapeError, ["equal shapes"]),
    ("Max", [np.zeros((0, 3))], {"axis": (0,)}, tp.ShapeError, ["empty axis"]),
    ("ArgMin", [np.zeros(0)], None, tp.ShapeError, ["(0,) is empty", "no index to return"]),
    ("Transpose", [np.zeros((2, 3))], {"perm": (0, 0)}, tp.ShapeError, ["not a permutation"]),
    ("BroadcastTo", [np.zeros(3)], {"shape": (4,)}, tp.ShapeError, ["(3,)", "(4,)"]),
    ("Pad", [np.zeros((2, 3))], {"pad_width": ((1, 1),)}, tp.ShapeError, ["1 pairs for a 2-d input"]),
    ("StridedSlice", [np.zeros(3)], {"slices": ((0, 5, 1),)}, tp.ShapeError, ["(0, 5, 1)", "size 3"]),
    ("StridedSlice", [np.zeros((2, 3))], {"slices": ((0, 2, 1),)}, tp.ShapeError, ["1 slices given"]),
    ("StridedSliceGrad", [np.zeros(2)], {"shape": (5,), "slices": ((0, 5, 1),)}, tp.ShapeError,
     ["dy has shape (2,)"]),
    ("Gather", [np.zeros((2, 3)), np.array([0, 3])], {"axis": 1}, IndexOutOfRangeError,
     ["index 3", "axis 1 of size 3"]),
    ("Gather", [np.zeros(3), np.array([0.5])], None, tp.DTypeError, ["indices", "float64"]),
    ("ScatterAdd", [np.array([0, 1]), np.ones(1)], {"shape": (4,)}, tp.ShapeError,
     ["updates have shape (1,)"]),
    ("ScatterAdd", [np.array([0, 9]), np.ones(2)], {"shape": (4,)}, IndexOutOfRangeError, ["index 9"]),
    ("ScatterAdd", [np.array([0]), np.ones(1)], {"shape": ()}, tp.ShapeError, ["0-d"]),
    ("Softmax", [np.zeros((2, 3), np.float32)], {"axis": 2}, tp.ShapeError, ["axis 2 is out of range"]),
    ("Cumsum", [np.zeros((2, 3))], {"axis": 2}, tp.ShapeError, ["axis 2 is out of range"]),
    ("Fill", [], {"shape": (-1,), "value": 0}, tp.ShapeError, ["negative"]),
    ("Range", [], {"stop": 3, "step": 0}, tp.ShapeError, ["step cannot be zero"]),
]


@pytest.mark.parametrize(("name", "arrays", "attrs", "error", "fragments"), FAST_PATH_FAILURES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(FAST_PATH_FAILURES)])
def test_kernels_fail_on_bad_inputs_on_the_fast_path(name, arrays, attrs, error, fragments):
    with pytest.raises(error, match=message(f"Kernel '{name}'", f"backend '{BACKEND}'", *fragments)) as exc:
        _call(name, arrays, attrs)
    assert not isinstance(exc.value, KernelError)


def test_fast_path_results_match_run_kernel():
    x, y = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    fast = _call("Add", [x, y])
    slow = tp.run_kernel("Add", {"x": x, "y": y})
    np.testing.assert_array_equal(fast.numpy(), slow.numpy())


def test_floating_point_edge_cases_give_ieee_values_without_numpy_warnings():
    """log(0), 1/0, 0/0, exp overflow and sqrt(-1) give -inf, inf, nan, inf and nan silently,
    as on jax and torch (pytest here turns any warning into an error); plain arithmetic and
    sums warn as numpy does (inf - inf); numpy's own settings outside the kernels are untouched."""
    tp.set_backend("numpy")
    zero, one = tp.asarray([0.0]), tp.asarray([1.0])
    inf = tp.asarray([np.inf])
    assert tp.log(zero).item() == -np.inf and tp.log1p(tp.asarray([-1.0])).item() == -np.inf
    assert tp.divide(one, zero).item() == np.inf and np.isnan(tp.divide(zero, zero).item())
    assert tp.exp(tp.asarray([100.0])).item() == np.inf
    assert np.isnan(tp.sqrt(tp.asarray(-1.0)).item())
    with pytest.warns(RuntimeWarning, match="invalid value"):
        assert np.isnan((inf - inf).item())
    with pytest.warns(RuntimeWarning, match="invalid value"):  # a sum is plain arithmetic too
        assert np.isnan(tp.sum(tp.asarray([np.inf, -np.inf])).item())
    assert tp.nn.log_softmax(tp.asarray([-np.inf, 0.0])).numpy().tolist() == [-np.inf, 0.0]
    with pytest.raises(RuntimeWarning):  # the user's numpy still warns (an error here)
        np.log(np.zeros(1))
    assert np.geterr()["divide"] == "warn"


def test_quieted_functions_stay_quiet_while_their_context_is_busy():
    """A quieted function runs inside one shared context with numpy quiet; while another
    thread is inside it (numpy released the GIL) or a quieted call runs another, the call
    swaps numpy's error state instead: IEEE results, no warning, the caller's settings kept."""
    from tensorplug_numpy._quiet import quieted

    inside, release = threading.Event(), threading.Event()

    def log_of(x, wait):
        if wait:
            inside.set()
            release.wait(10)
        return np.log(x)

    run = quieted(log_of, arity=2)
    zeros = np.zeros(2)
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(run(zeros, True)))
    worker.start()
    assert inside.wait(10)
    try:
        assert run(zeros, False).tolist() == [-np.inf, -np.inf]  # the context is busy: swapped
    finally:
        release.set()
        worker.join(10)
    assert len(results) == 1 and results[0].tolist() == [-np.inf, -np.inf]  # type: ignore[union-attr]
    nested = quieted(lambda x: run(x, False) + run(x, False))  # a quieted call inside another
    assert nested(zeros).tolist() == [-np.inf, -np.inf]
    assert np.geterr()["divide"] == "warn"
    with pytest.raises(RuntimeWarning):  # the caller's numpy still warns (an error here)
        np.log(zeros)


def test_the_hot_kernels_offer_direct_calls_and_plain_arithmetic_offers_numpy_itself():
    """The dispatcher calls np.add itself for Add (no Python layer); kernels that switch numpy's
    warnings off (Exp, Divide) offer functions that switch them off too."""
    from tensorplug.extend import get_kernel

    tp.set_backend("numpy")
    assert get_kernel("Add", "numpy").direct.function is np.add
    assert get_kernel("Less", "numpy").direct.function is np.less
    for name in ("Exp", "Divide"):
        direct = get_kernel(name, "numpy").direct
        assert direct.function is not None and direct.function is not getattr(np, name.lower())
    assert get_kernel("Sum", "numpy").direct.dtypes == {tp.float32, tp.float64, tp.int64}  # no widening
    for name in ("Cumsum", "Gather", "Where"):  # kernels without direct calls
        assert get_kernel(name, "numpy").direct is None, name
    with np.errstate(all="raise"):  # the user's numpy settings do not reach the switching kernels
        assert tp.exp(tp.asarray([1000.0])).tolist() == [np.inf]
        assert tp.divide(tp.asarray([1.0]), tp.asarray([0.0])).tolist() == [np.inf]
        # plain arithmetic, sums and MatMul keep them: the user asked numpy to raise, and it does
        with pytest.raises(FloatingPointError):
            tp.sum(tp.asarray([3e38, 3e38]))
        with pytest.raises(FloatingPointError):
            tp.matmul(tp.asarray([[3e38]]), tp.asarray([[3e38]]))
        with pytest.raises(FloatingPointError):
            tp.add(tp.asarray([3e38]), tp.asarray([3e38]))
    # every dtype, results and dtypes as before (0-d inputs give numpy scalars, wrapped alike)
    for dtype in (tp.bool_, tp.int32, tp.int64, tp.float32, tp.float64):
        x = tp.asarray([1, 0], dtype=dtype)
        assert tp.equal(x, x).dtype is tp.bool_ and tp.logical_or(x, x).dtype is tp.bool_
        if dtype is not tp.bool_:
            assert tp.maximum(x, x).dtype is dtype and (x - x).dtype is dtype
    assert (tp.asarray(2, dtype=tp.int32) + tp.asarray(3, dtype=tp.int32)).dtype is tp.int32


def _sample(shape: tuple[int, ...], dtype: tp.DType, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(dtype.numpy)


def _matmul_kernel(x: np.ndarray, y: np.ndarray, attrs: dict) -> np.ndarray:
    """MatMul through the dispatcher (its direct call for these attributes) on the numpy backend,
    on the arrays as they are (views included)."""
    backend = tp.asarray(0.0)._backend
    inputs = (wrap(x, backend), wrap(y, backend))
    return Dispatcher("MatMul")(inputs, {"transpose_x": False, "transpose_y": False, **attrs}).numpy()


@pytest.mark.parametrize("transposes", [(False, False), (True, False), (False, True), (True, True)], ids=str)
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64, tp.int32], ids=lambda d: d.name)
def test_matrix_products_give_np_matmuls_values(dtype, transposes):
    """Two matrices go through np.dot (cheaper on small inputs): the values are np.matmul's to the
    last bit for contiguous and transposed inputs (the same BLAS call), for every transpose and
    for NaN and inf; close for other strided views (numpy lays them out for BLAS its own way)."""
    tx, ty = transposes
    tol = {tp.float32: 1e-4, tp.float64: 1e-12}.get(dtype, 0)  # (sums of up to 130 products near 10)
    for m, k, n in [(1, 1, 1), (3, 5, 2), (17, 64, 33), (2, 130, 128)]:
        x = _sample((k, m) if tx else (m, k), dtype, seed=m)
        y = _sample((n, k) if ty else (k, n), dtype, seed=n)
        attrs = {"transpose_x": tx, "transpose_y": ty}
        want = np.matmul(x.T if tx else x, y.T if ty else y)
        np.testing.assert_array_equal(_matmul_kernel(x, y, attrs), want)
        x_view = np.repeat(x, 2, axis=1)[:, ::2]  # the same values, every other element
        assert x_view.strides[1] == 2 * x.strides[1]
        np.testing.assert_allclose(_matmul_kernel(x_view, y, attrs), want, rtol=tol, atol=10 * tol)
    if dtype.is_floating:
        x = np.array([[np.nan, 1.0], [np.inf, 2.0]], dtype.numpy)
        with np.errstate(invalid="ignore"):  # (both warn, as numpy's arithmetic does)
            np.testing.assert_array_equal(_matmul_kernel(x, x, {}), np.matmul(x, x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_update_keeps_the_parameters_dtype_whatever_float_type_its_attributes_have(dtype):
    """The kernel rounds its attributes to the parameter's dtype: a numpy float64 from a caller
    that skipped the spec's validation must not widen float32."""
    adam = Dispatcher("AdamUpdate")
    ones = tuple(tp.asarray(np.ones(3, dtype)) for _ in range(4)) + (tp.asarray(np.array(0.1, dtype)),
                                                                    tp.asarray(np.array(1e-7, dtype)))
    numbers = {"beta1": 0.9, "beta2": 0.999}
    plain = adam(ones, numbers)
    widened = adam(ones, {k: np.float64(v) for k, v in numbers.items()})
    for a, b in zip(plain, widened):
        assert a.native.dtype == b.native.dtype == dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.uint8, np.int64])
def test_range_counts_in_the_output_dtype_only_while_it_holds_every_count(dtype):
    """Range's np.arange fast path is taken for 0, 1, ..., n-1 only while `dtype` holds n-1 (and
    so every count below) exactly; there np.arange in the dtype is the int64 count cast (checked
    on float16, whose limit, 2049 values, is small enough to build)."""
    from tensorplug_numpy.kernels.creation import _counts_exactly

    top = np.iinfo(dtype).max if np.dtype(dtype).kind in "iu" else 2 ** (np.finfo(dtype).nmant + 1)
    assert _counts_exactly(np.dtype(dtype), top + 1) and not _counts_exactly(np.dtype(dtype), top + 2)
    assert not _counts_exactly(np.dtype(np.complex64), 3)
    n = 2 ** (np.finfo(np.float16).nmant + 1) + 1
    np.testing.assert_array_equal(np.arange(n, dtype=np.float16), np.arange(n).astype(np.float16))
