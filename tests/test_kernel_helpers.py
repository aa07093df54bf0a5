"""tensorplug.kernel_helpers: each helper on tables of valid inputs (against Python's and numpy's
own rules) and invalid ones (typed errors whose messages name kernel, backend and the fix); the
elementwise tables against the kernel specs; the helpers exported from tensorplug.extend."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

import tensorplug as tp
import tensorplug.extend
from tensorplug import kernel_helpers as kh
from tensorplug.errors import DTypeError, IndexOutOfRangeError, RegistrationError, ShapeError
from tensorplug.extend import KernelSpec, TensorInfo, get_kernel_spec
from tensorplug.families.elementwise import spec as elementwise_specs

WHERE = r"Kernel 'K' on backend 'b': "


# -- normalize_axis -------------------------------------------------------------------------------
@pytest.mark.parametrize(("axis", "ndim", "want"), [
    (0, 1, 0), (-1, 1, 0), (1, 3, 1), (-1, 3, 2), (-3, 3, 0), (2, 3, 2),
])
def test_normalize_axis(axis, ndim, want):
    assert kh.normalize_axis("K", "b", axis, ndim) == want


@pytest.mark.parametrize(("axis", "ndim", "message"), [
    (3, 3, r"axis 3 is out of range for a 3-d array; valid axes are -3\.\.2\. Pass an axis"),
    (-4, 3, r"axis -4 is out of range for a 3-d array; valid axes are -3\.\.2"),
    (0, 0, r"axis 0 is out of range for a 0-d array; a 0-d array has no axis"),
    (-1, 0, r"axis -1 is out of range for a 0-d array"),
])
def test_normalize_axis_refuses(axis, ndim, message):
    with pytest.raises(ShapeError, match=WHERE + message):
        kh.normalize_axis("K", "b", axis, ndim)


# -- slice_index ----------------------------------------------------------------------------------
BOUNDS = (None, -7, -3, -1, 0, 1, 2, 4, 7)
STEPS = (None, -3, -2, -1, 1, 2, 3)


@pytest.mark.parametrize("size", [0, 1, 2, 5])
def test_slice_index_reads_exactly_the_normalized_range(size):
    """Every Python slice of a dimension, normalized with slice.indices, gives a slice that reads
    exactly range(start, stop, step): the elements Python's own slice reads."""
    x = np.arange(size)
    for start in BOUNDS:
        for stop in BOUNDS:
            for step in STEPS:
                normalized = slice(start, stop, step).indices(size)
                (index,) = kh.slice_index("K", "b", [normalized], (size,))
                assert x[index].tolist() == list(range(*normalized)) == x[start:stop:step].tolist()


def test_slice_index_of_several_axes_and_of_a_0d_array():
    x = np.arange(24).reshape(2, 3, 4)
    slices = [(1, -1, -1), (0, 3, 2), (3, 0, -2)]
    index = kh.slice_index("K", "b", slices, x.shape)
    assert index == (slice(1, None, -1), slice(0, 3, 2), slice(3, 0, -2))
    np.testing.assert_array_equal(x[index], x[1::-1, 0:3:2, 3:0:-2])
    assert kh.slice_index("K", "b", [], ()) == ()


@pytest.mark.parametrize(("slices", "shape", "message"), [
    ([(0, 2, 1)], (2, 3), r"1 slices given for a 2-d input \(shape \(2, 3\)\); give one \(start, stop, "
                          r"step\) per axis\."),
    ([], (3,), r"0 slices given for a 1-d input"),
    ([(0, 3, 0)], (3,), r"slice \(0, 3, 0\) of axis 0 has step 0; normalize slices with slice\.indices"),
    ([(0, 5, 1)], (3,), r"slice \(0, 5, 1\) reads indices 0\.\.4, outside axis 0 of size 3 \(shape \(3,\)\); "
                        r"normalize slices with slice\.indices\(size\)\."),
    ([(0, 1, 1), (-1, 2, 1)], (1, 4), r"slice \(-1, 2, 1\) reads indices -1\.\.1, outside axis 1 of size 4"),
    ([(4, -1, -1)], (4,), r"slice \(4, -1, -1\) reads indices 4\.\.0, outside axis 0 of size 4"),
    ([(0, 1, 1)], (0,), r"slice \(0, 1, 1\) reads indices 0\.\.0, outside axis 0 of size 0"),
])
def test_slice_index_refuses(slices, shape, message):
    with pytest.raises(ShapeError, match=WHERE + message):
        kh.slice_index("K", "b", slices, shape)


# -- check_index_bounds ---------------------------------------------------------------------------
@pytest.mark.parametrize(("indices", "shape", "axis"), [
    ([0, 1, 2, -1, -3], (3,), 0),
    ([[0, -2], [1, 1]], (4, 2), 1),
    ([1], (4, 2), -2),
    ([], (0,), 0),  # no index: nothing to check, even on an empty axis
    (np.int64(-4), (4,), 0),
])
def test_check_index_bounds_accepts(indices, shape, axis):
    assert kh.check_index_bounds("K", "b", indices, shape, axis) is None


@pytest.mark.parametrize(("indices", "shape", "axis", "what", "message"), [
    ([0, 3], (2, 3), 1, "x",
     r"index 3 is out of range for axis 1 of size 3 \(x shape \(2, 3\)\); valid indices are -3\.\.2\. "
     r"Check the indices, or clip them into range first\."),
    ([5, -9, 1, 7], (4,), 0, "output",
     r"index 5 is out of range for axis 0 of size 4 \(output shape \(4,\)\); valid indices are -4\.\.3 "
     r"\(3 indices out of range\)\."),
    ([[0], [-3]], (2, 2), -1, "x", r"index -3 is out of range for axis -1 of size 2"),
    ([0], (3, 0), 1, "x", r"index 0 is out of range for axis 1 of size 0 \(x shape \(3, 0\)\); "
                          r"the axis is empty, so no index is\."),
])
def test_check_index_bounds_names_the_first_index_out_of_range(indices, shape, axis, what, message):
    with pytest.raises(IndexOutOfRangeError, match=WHERE + message):
        kh.check_index_bounds("K", "b", np.asarray(indices), shape, axis, what)


def test_check_index_bounds_refuses_an_axis_the_shape_lacks():
    with pytest.raises(ShapeError, match=WHERE + "axis 0 is out of range for a 0-d array"):
        kh.check_index_bounds("K", "b", [0], (), 0)
    with pytest.raises(ShapeError, match=WHERE + "axis 2 is out of range for a 2-d array"):
        kh.check_index_bounds("K", "b", [0], (3, 3), 2)


# -- clip_bounds ----------------------------------------------------------------------------------
I32, I64 = np.iinfo(np.int32), np.iinfo(np.int64)


@pytest.mark.parametrize(("dtype", "lo", "hi", "want"), [
    (np.float32, 1.5, 2.5, (1.5, 2.5)),  # floats: unchanged
    (np.float64, None, math.nan, (None, math.nan)),
    (np.int32, 1.5, 2.5, (2, 2)),  # integers: the integers inside [lo, hi]
    (np.int64, -1.5, 2.5, (-1, 2)),
    (np.int64, -2.0, 3.0, (-2, 3)),
    (np.int32, None, 3.7, (None, 3)),
    (np.int32, -3.7, None, (-3, None)),
    (np.int32, None, None, (None, None)),
    (np.int32, -1e20, 1e20, (I32.min, I32.max)),  # limited to the dtype's range
    (np.int32, 2**40, -(2**40), (I32.max, I32.min)),
    (np.int64, -math.inf, math.inf, (I64.min, I64.max)),
    (np.int64, float(2**63), None, (I64.max, None)),  # 2.0**63 is above the largest int64
    ("int32", 0.5, 0.7, (1, 0)),  # no integer inside: the clip gives lo's
])
def test_clip_bounds(dtype, lo, hi, want):
    got = kh.clip_bounds("K", "b", dtype, lo, hi)
    assert got == want or (math.isnan(got[1]) and math.isnan(want[1]))
    if np.dtype(dtype).kind == "i":
        assert all(b is None or type(b) is int for b in got)  # Python ints: no float dtype leaks in


@pytest.mark.parametrize(("lo", "hi", "message"), [
    (math.nan, None, r"cannot clip int32 values to a NaN bound \(min=nan\); pass a number or None, or cast"),
    (0.0, math.nan, r"cannot clip int32 values to a NaN bound \(max=nan\)"),
])
def test_clip_bounds_refuses_a_nan_bound_of_integers(lo, hi, message):
    with pytest.raises(DTypeError, match=WHERE + message):
        kh.clip_bounds("K", "b", np.int32, lo, hi)


def test_clip_bounds_keep_the_dtype_of_integers_in_np_clip():
    x = np.array([-(2**31), -1, 0, 1, 2**31 - 1], np.int32)
    got = np.clip(x, *kh.clip_bounds("K", "b", x.dtype, -1e12, 1.5))
    assert got.dtype == np.int32
    assert got.tolist() == [-(2**31), -1, 0, 1, 1]


# -- range_length, range_dtype --------------------------------------------------------------------
@pytest.mark.parametrize(("start", "stop", "step"), [
    (0, 5, 1), (0, 5, 2), (5, 0, -1), (5, 0, -2), (0, 0, 1), (3, 0, 1), (0, 3, -1), (-4, 4, 3),
    (0.0, 1.0, 0.1), (0.5, 2.0, 0.5), (1.0, 0.0, -0.25), (0, 1, 0.3), (2.0, 1.0, 0.5),
])
def test_range_length_is_the_length_of_start_plus_step_times_i(start, stop, step):
    n = kh.range_length(start, stop, step)
    assert n == max(0, math.ceil((stop - start) / step))
    if all(isinstance(v, int) for v in (start, stop, step)):
        assert n == len(range(start, stop, step))
    values = [start + step * i for i in range(n)]  # each one before stop, in step's direction
    assert all((v - stop) * step < 0 for v in values)


@pytest.mark.parametrize(("start", "stop", "step", "want"), [
    (0, 5, 1, np.int64), (np.int32(0), 5, np.int64(2), np.int64), (True, 5, 1, np.int64),
    (0, 5, 0.5, np.float64), (0.0, 5, 1, np.float64), (0, np.float32(5), 1, np.float64),
])
def test_range_dtype(start, stop, step, want):
    assert kh.range_dtype(start, stop, step) == np.dtype(want)


# -- ACCUMULATOR_DTYPES ---------------------------------------------------------------------------
@pytest.mark.parametrize("kernel", ["Sum", "Prod", "Cumsum", "Cumprod"])
@pytest.mark.parametrize("dtype", [tp.bool_, tp.int32, tp.int64, tp.float32, tp.float64], ids=str)
def test_accumulator_dtypes_are_the_specs(kernel, dtype):
    spec = get_kernel_spec(kernel)
    if dtype not in spec.input_dtypes.get("x", (dtype,)):
        pytest.skip(f"{kernel} does not take {dtype}")
    (out,) = spec.check([TensorInfo((3,), dtype)], spec.normalize_attrs({}))
    assert kh.ACCUMULATOR_DTYPES.get(dtype.numpy, dtype.numpy) == out.dtype.numpy


def test_accumulator_dtypes_cannot_be_changed():
    with pytest.raises(TypeError):
        kh.ACCUMULATOR_DTYPES[np.dtype(np.int64)] = np.dtype(np.float64)


# -- the elementwise tables -----------------------------------------------------------------------
def test_the_tables_are_the_elementwise_specs_of_one_and_two_inputs_without_attributes():
    declared = {v.name for v in vars(elementwise_specs).values() if isinstance(v, KernelSpec)}
    # (Copy and Erfinv have no Array API function to take from a namespace: each backend writes its own)
    assert set(kh.UNARY_KERNELS) | set(kh.BINARY_KERNELS) == declared - {"Cast", "Where", "Clip", "Copy",
                                                                        "Erfinv"}
    assert len(set(kh.UNARY_KERNELS)) == len(kh.UNARY_KERNELS)
    assert len(set(kh.BINARY_KERNELS)) == len(kh.BINARY_KERNELS)
    for name in kh.UNARY_KERNELS + kh.BINARY_KERNELS:
        spec = get_kernel_spec(name)
        assert len(spec.inputs) == (1 if name in kh.UNARY_KERNELS else 2), name
        assert spec.attrs == (), name
    assert kh.PLAIN_ARITHMETIC.issubset(kh.UNARY_KERNELS + kh.BINARY_KERNELS)
    assert not kh.PLAIN_ARITHMETIC & {"Divide", "Log", "Sqrt", "Pow", "Exp"}


def test_elementwise_functions_of_numpy():
    def sigmoid(x):  # stand-ins: only identity matters here
        return x

    functions = kh.elementwise_functions(np, Sigmoid=sigmoid, Relu=abs, Pow=pow)
    assert tuple(functions) == kh.UNARY_KERNELS + kh.BINARY_KERNELS
    assert functions["Exp"] is np.exp
    assert functions["Abs"] is np.abs
    assert functions["FloorDivide"] is np.floor_divide
    assert functions["GreaterEqual"] is np.greater_equal
    assert (functions["Sigmoid"], functions["Relu"], functions["Pow"]) == (sigmoid, abs, pow)
    assert kh.elementwise_functions(np, Sigmoid=sigmoid, Relu=abs)["Pow"] is np.pow


def test_elementwise_functions_refuses_unknown_overrides_and_missing_functions():
    with pytest.raises(RegistrationError, match=r"\['Sigmod'\] are not kernels of the elementwise tables"):
        kh.elementwise_functions(np, Sigmod=abs, Relu=abs)
    with pytest.raises(RegistrationError, match=r"kernel 'Sigmoid' \(the Array API has none\); pass one: "
                                                r"elementwise_functions\(numpy, Sigmoid=\.\.\.\)"):
        kh.elementwise_functions(np, Relu=abs)
    partial = types.SimpleNamespace(**{name: getattr(np, name) for name in ("negative", "abs", "sign")})
    partial.__name__ = "mylib"
    with pytest.raises(RegistrationError, match=r"kernel 'Square' \(mylib has no function 'square'\); "
                                                r"pass one: elementwise_functions\(mylib, Square=\.\.\.\)"):
        kh.elementwise_functions(partial, Sigmoid=abs, Relu=abs)


# -- the public surface ---------------------------------------------------------------------------
def test_every_helper_is_exported_from_tensorplug_extend():
    for name in kh.__all__:
        assert name in tensorplug.extend.__all__, name
        assert getattr(tensorplug.extend, name) is getattr(kh, name), name


# -- stable_argsort ---------------------------------------------------------------------------------
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("values", [
    [2.0, np.nan, -0.0, 2.0, 0.0, -np.inf, np.nan, 1.0], [3, 1, 3, -(2**63), 1], [True, False, True, False],
], ids=["float", "int64", "bool"])
def test_stable_argsort_is_stable_both_ways_with_nans_last(values, descending):
    x = np.array(values)
    order = kh.stable_argsort(lambda a, axis: np.argsort(a, axis=axis, kind="stable"), x, 0, descending)
    py = x.tolist()  # Python numbers: negating the smallest int64 does not overflow here
    nan = [v != v for v in py]
    want = sorted(range(x.size), key=lambda i: (nan[i], 0 if nan[i] else (-py[i] if descending else py[i])))
    assert order.tolist() == want
    stacked = kh.stable_argsort(lambda a, axis: np.argsort(a, axis=axis, kind="stable"),
                                np.stack([x, x]), 1, descending)
    assert stacked.tolist() == [want, want]
