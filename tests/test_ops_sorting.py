"""Sorting, searching, set and grid ops against numpy and array-api-strict: sort, argsort,
searchsorted, count_nonzero, unique_*, isin, diff, meshgrid, tril, triu; their argument forms, edge
shapes and the errors that name the op and the fix."""

from __future__ import annotations

import array_api_strict as xp
import numpy as np
import pytest

import tensorplug as tp

RNG = np.random.default_rng(0)
F = RNG.standard_normal((3, 4, 5))
INTS = RNG.integers(-2, 3, (3, 4, 5)).astype(np.int32)
B = RNG.random((3, 4)) > 0.5
BACKENDS = ["numpy", pytest.param("jax", marks=pytest.mark.jax)]


@pytest.fixture(params=BACKENDS)
def backend(request):
    with tp.backend_scope(request.param):
        yield request.param


def _same(got, want):
    got = got.numpy() if isinstance(got, tp.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_array_equal(got, want)


# -- sort / argsort ----------------------------------------------------------------------------------
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("data", [F, INTS, B], ids=["float64", "int32", "bool"])
def test_sort_and_argsort_match_array_api_strict(backend, data, axis, descending):
    a = xp.asarray(data.astype(np.int8) if data.dtype == bool else data)  # (strict sorts no bools)
    _same(tp.argsort(data, axis=axis, descending=descending),
          np.asarray(xp.argsort(a, axis=axis, descending=descending)))
    _same(tp.sort(data, axis=axis, descending=descending, stable=False),
          np.asarray(xp.sort(a, axis=axis, descending=descending)).astype(data.dtype))


def test_sort_errors_name_the_op_and_the_fix():
    with pytest.raises(tp.ShapeError, match="sort: cannot sort a 0-d tensor.*reshape it to \\(1,\\)"):
        tp.sort(1.0)
    with pytest.raises(tp.ShapeError, match="argsort: axis 2 is out of range for a 2-d input"):
        tp.argsort(B, axis=2)
    with pytest.raises(tp.ArgumentError, match="sort: descending must be True or False"):
        tp.sort(F, descending="yes")
    with pytest.raises(tp.ShapeError, match="sort: axis must be an int"):
        tp.sort(F, axis=1.5)
    for op in (tp.sort, tp.argsort):  # the standard leaves the order of complex numbers undefined
        with pytest.raises(tp.DTypeError, match=f"{op.__name__}: cannot order values of dtype complex64"):
            op(np.ones(2, np.complex64))


# -- searchsorted -------------------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_with_and_without_sorter(backend, side):
    x1 = RNG.integers(-3, 4, 8).astype(np.float32)
    order = np.argsort(x1, kind="stable")
    x2 = RNG.integers(-4, 5, (2, 3)).astype(np.float32)
    _same(tp.searchsorted(np.sort(x1), x2, side=side), np.searchsorted(np.sort(x1), x2, side=side))
    _same(tp.searchsorted(x1, x2, side=side, sorter=order), np.searchsorted(x1, x2, side=side, sorter=order))


def test_searchsorted_promotes_and_takes_scalars():
    x1 = np.array([0, 2, 4], np.int32)
    _same(tp.searchsorted(x1, 2.5), np.searchsorted(x1, 2.5))
    _same(tp.searchsorted(x1, np.array([1.5, 4.0])), np.searchsorted(x1, [1.5, 4.0]))


def test_searchsorted_errors_name_the_op_and_the_fix():
    with pytest.raises(tp.ShapeError, match="searchsorted: x1 must be 1-d.*got shape \\(2, 2\\)"):
        tp.searchsorted(np.zeros((2, 2)), 1.0)
    with pytest.raises(tp.ShapeError, match="searchsorted: x1 must be 1-d"):
        tp.searchsorted(1.0, 1.0)
    with pytest.raises(tp.ArgumentError, match="searchsorted: side must be 'left' or 'right', got 'middle'"):
        tp.searchsorted(np.zeros(2), 1.0, side="middle")
    with pytest.raises(tp.DTypeError, match="searchsorted: sorter must hold integer indices"):
        tp.searchsorted(np.zeros(2), 1.0, sorter=np.zeros(2))
    with pytest.raises(tp.IndexOutOfRangeError, match="searchsorted: sorter holds an index out of range.*5"):
        tp.searchsorted(np.zeros(2), 1.0, sorter=np.array([0, 5]))
    with pytest.raises(tp.ShapeError, match="searchsorted: sorter must have x1's shape"):
        tp.searchsorted(np.zeros(2), 1.0, sorter=np.zeros(3, np.int64))


# -- count_nonzero ------------------------------------------------------------------------------------
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), ()])
@pytest.mark.parametrize("data", [INTS, F.round(), np.where(F > 0, np.nan, 0.0), B.reshape(3, 4, 1)],
                         ids=["int", "float", "nan", "bool"])
def test_count_nonzero(data, axis, keepdims):
    _same(tp.count_nonzero(data, axis=axis, keepdims=keepdims),
          np.count_nonzero(data, axis=axis, keepdims=keepdims).astype(np.int64))


def test_count_nonzero_errors():
    with pytest.raises(tp.ShapeError, match="count_nonzero: axis 3 is out of range"):
        tp.count_nonzero(F, axis=3)
    with pytest.raises(tp.ArgumentError, match="count_nonzero: keepdims must be True or False"):
        tp.count_nonzero(F, keepdims=None)


# -- unique_* -----------------------------------------------------------------------------------------
def test_unique_functions_give_the_standards_named_tuples(backend):
    x = np.array([[2.0, np.nan, 1.0], [2.0, -0.0, np.nan]], np.float32)
    want = np.unique_all(x)
    got = tp.unique_all(x)
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    for g, w in zip(got, want):
        _same(g, w.astype(np.int64) if w.dtype.kind == "i" else w)
    counts = tp.unique_counts(x)
    assert counts._fields == ("values", "counts")
    _same(counts.counts, want.counts.astype(np.int64))
    inverse = tp.unique_inverse(x)
    assert inverse._fields == ("values", "inverse_indices") and inverse.inverse_indices.shape == (2, 3)
    _same(tp.unique_values(INTS), np.unique(INTS))  # (np.unique_values need not sort)
    _same(tp.unique_values(B), np.unique(B))
    z = np.array([[1 + 1j, -1j, 1 + 1j], [1 - 1j, 2j, -1j]], np.complex128)  # by real, then imaginary part
    want = np.unique(z, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(tp.unique_all(z), want):
        _same(g, w.astype(np.int64).reshape(g.shape) if w.dtype.kind == "i" else w)


@pytest.mark.parametrize(("fn", "kernel"), [(tp.unique_values, "UniqueCounts"),
                                            (lambda x: tp.unique_counts(x).values, "UniqueCounts"),
                                            (lambda x: tp.unique_all(x).values, "Unique")])
def test_unique_values_is_not_differentiable(fn, kernel):
    with pytest.raises(tp.GradientNotFoundError, match=f"kernel '{kernel}'.*not differentiable"):
        tp.grad(lambda x: tp.sum(fn(x)))(tp.asarray([1.0, 2.0]))


@pytest.mark.jax
@pytest.mark.parametrize(("fn", "kernel"), [(tp.unique_values, "UniqueCounts"),
                                            (lambda x: tp.unique_inverse(x).values, "Unique")])
def test_unique_inside_jit_on_jax_is_a_traced_value_error(fn, kernel):
    with tp.backend_scope("jax"), pytest.raises(tp.TracedValueError,
                                                 match=f"Kernel '{kernel}' on backend 'jax'"):
        tp.jit(fn)(tp.asarray([1.0, 1.0]))


# -- isin ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize(("x1", "x2"), [
    (INTS, INTS[0, :2, :3] * 2), (INTS.astype(np.uint8), np.array([0, 200], np.int16)),
    (np.array([np.nan, -0.0, 1.5, np.inf]), np.array([0.0, np.nan, np.inf], np.float32)),
    (B, np.array(True)), (np.array(3), np.array([[1, 3], [5, 7]])), (INTS, np.zeros(0, np.int32)),
    (np.array([1 + 1j, 2, -1j]), np.array([2, 1 + 1j], np.complex64)),
], ids=["int32", "uint8-int16", "float-nan-zero", "bool-0d", "0d-2d", "empty", "complex"])
def test_isin_matches_numpy(backend, x1, x2, invert):
    got = tp.isin(tp.asarray(x1), tp.asarray(x2), invert=invert)
    _same(got, np.isin(x1, x2, invert=invert))


def test_isin_takes_python_scalars_and_runs_in_jit_and_vmap(backend):
    x = tp.asarray(INTS)
    _same(tp.isin(x, 2), INTS == 2)
    _same(tp.isin(1, x), np.array(True))
    _same(tp.jit(tp.isin)(x, tp.asarray([0, 2])), np.isin(INTS, [0, 2]))
    _same(tp.vmap(lambda row: tp.isin(row, tp.asarray([0, 2])))(x), np.isin(INTS, [0, 2]))


def test_isin_errors_name_the_op():
    with pytest.raises(tp.ArgumentError, match="isin: invert must be True or False"):
        tp.isin(INTS, INTS, invert="yes")
    with pytest.raises(tp.DTypeError, match="isin: no integer dtype holds every value of both int64"):
        tp.isin(INTS.astype(np.int64), INTS.astype(np.uint64))


# -- diff ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "axis"), [(1, -1), (2, 0), (0, 1), (7, -1), (3, 1)])
@pytest.mark.parametrize("data", [F, INTS, B], ids=["float64", "int32", "bool"])
def test_diff(backend, data, n, axis):
    want = np.diff(data, n=n, axis=axis)
    got = tp.diff(data, n=n, axis=axis)
    assert got.dtype.numpy == want.dtype
    _same(got, want)


def test_diff_with_prepend_and_append():
    _same(tp.diff(F, axis=1, prepend=F[:, :2], append=F[:, :1]),
          np.diff(F, axis=1, prepend=F[:, :2], append=F[:, :1]))
    _same(tp.diff(INTS, prepend=0, append=np.int32(9)), np.diff(INTS, prepend=0, append=np.int32(9)))
    out = tp.diff(np.array([1, 2], np.int32), prepend=np.array([0.5]))  # dtypes promote
    assert out.dtype is tp.float64 and out.tolist() == [0.5, 1.0]


def test_diff_errors_name_the_op_and_the_fix():
    with pytest.raises(tp.ShapeError, match="diff: x is 0-d.*reshape it to \\(1,\\)"):
        tp.diff(1.0)
    with pytest.raises(tp.ShapeError, match="diff: axis 3 is out of range"):
        tp.diff(F, axis=3)
    with pytest.raises(tp.ShapeError, match="diff: n must be >= 0"):
        tp.diff(F, n=-1)
    with pytest.raises(tp.ShapeError, match="diff: prepend has shape \\(4,\\)"):
        tp.diff(F, prepend=np.zeros(4))
    with pytest.raises(tp.ShapeError, match="diff: append has shape \\(3, 4, 2\\); it needs x's shape"):
        tp.diff(F, axis=1, append=np.zeros((3, 4, 2)))


# -- meshgrid -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_meshgrid(backend, indexing, count):
    arrays = [np.arange(k + 2, dtype=np.float32) * (k + 1) for k in range(count)]
    got = tp.meshgrid(*arrays, indexing=indexing)
    want = xp.meshgrid(*(xp.asarray(a) for a in arrays), indexing=indexing)
    assert isinstance(got, tuple) and len(got) == count
    for g, w in zip(got, want):
        _same(g, np.asarray(w))


def test_meshgrid_errors():
    with pytest.raises(tp.ArgumentError, match="meshgrid: indexing must be 'xy' or 'ij', got 'yx'"):
        tp.meshgrid(np.zeros(2), indexing="yx")
    with pytest.raises(tp.ShapeError, match="meshgrid: array 1 has shape \\(2, 2\\); every array must be"):
        tp.meshgrid(np.zeros(2), np.zeros((2, 2)))
    with pytest.raises(tp.DTypeError, match="meshgrid: the arrays must share one dtype.*cast them"):
        tp.meshgrid(np.zeros(2), np.zeros(2, np.int32))


# -- tril / triu --------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [0, 1, -1, 3, -7, 10**30])
@pytest.mark.parametrize("data", [F, INTS, B, F[:, :0]], ids=["float64", "int32", "bool", "empty"])
def test_tril_and_triu(backend, data, k):
    _same(tp.tril(data, k=k), np.tril(data, k=min(k, 99)))
    _same(tp.triu(data, k=k), np.triu(data, k=min(k, 99)))


def test_tril_and_triu_errors():
    with pytest.raises(tp.ShapeError, match="tril: x must be a matrix or a stack of matrices.*\\(3,\\)"):
        tp.tril(np.zeros(3))
    with pytest.raises(tp.ShapeError, match="triu: x must be a matrix"):
        tp.triu(1.0)
    with pytest.raises(tp.ArgumentError, match="triu: k must be an int"):
        tp.triu(F, k=0.5)


def test_the_new_functions_are_exported():
    names = ["sort", "argsort", "searchsorted", "count_nonzero", "unique_all", "unique_counts",
             "unique_inverse", "unique_values", "diff", "meshgrid", "tril", "triu"]
    assert [n for n in names if n not in tp.__all__ or not callable(getattr(tp, n))] == []


def test_sorting_ops_inside_jit_give_their_eager_results(backend):
    def f(x):
        return (tp.sort(x, descending=True), tp.argsort(x, axis=0), tp.searchsorted(tp.sort(x[0]), x),
                tp.count_nonzero(x > 0, axis=1), tp.diff(x, n=2), tp.tril(x, k=-1),
                tp.meshgrid(x[0], x[1])[1])

    x = tp.asarray(np.round(F[0], 1))
    for compiled, eager in zip(tp.jit(f)(x), f(x)):
        _same(compiled, eager.numpy())
    grad = tp.grad(lambda t: tp.sum(tp.sort(t, axis=0) * tp.arange(4.0)[:, None]))
    _same(tp.jit(grad)(x), grad(x).numpy())
