"""The batching rules of the indexing, scatter, segment, sparse and layout kernels against a loop
over the examples, computed with the ops themselves outside vmap: indices and segment ids that
differ per example, batched along axis 0 and along another axis, values batched or shared; one
case per kernel on jax; an index out of range raises the loop's own error (never a read from or
a write into the neighbouring example), a segment id out of range is dropped as the loop drops
it; gradients through vmap of a scatter and a segment reduction against the loop's."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import ShapeError, VmapFallbackWarning
from tensorplug.profiler import count_kernels

B = 3  # the batch size
Maker = Callable[[np.random.Generator], np.ndarray]  # one example's input


@contextlib.contextmanager
def _no_fallback() -> Iterator[None]:
    """Inside: a kernel batched by the loop fallback is an error (the rules must run)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)
        yield


def floats(*shape: int) -> Maker:
    return lambda rng: rng.standard_normal(shape)


def ints(low: Any, high: Any, *shape: int) -> Maker:
    return lambda rng: rng.integers(low, high, shape)


def sorted_ids(high: int, n: int) -> Maker:
    return lambda rng: np.sort(rng.integers(0, high, n))


def distinct_rows(shape: tuple[int, ...], n: int) -> Maker:
    """n distinct index rows into `shape` (shape (n, len(shape)))."""
    def make(rng: np.random.Generator) -> np.ndarray:
        return np.stack(np.unravel_index(rng.choice(int(np.prod(shape)), n, replace=False), shape), -1)
    return make


def _examples(makers: list[Maker]) -> list[list[np.ndarray]]:
    """B examples, each drawn with its own seed: indices and ids differ between examples."""
    return [[make(np.random.default_rng(100 * i + j)) for j, make in enumerate(makers)] for i in range(B)]


def _batched(examples: list[list[np.ndarray]], in_axes: tuple[int | None, ...]) -> list[tp.Tensor]:
    """Each input stacked along its axis, or example 0's for every example (None)."""
    return [tp.asarray(examples[0][j] if a is None else np.stack([ex[j] for ex in examples], axis=a))
            for j, a in enumerate(in_axes)]


def _loop(f: Callable[..., Any], examples: list[list[np.ndarray]], in_axes: tuple[int | None, ...]
          ) -> np.ndarray:
    return np.stack([np.asarray(f(*[tp.asarray(ex[j] if a is not None else examples[0][j])
                                    for j, a in enumerate(in_axes)]).numpy()) for ex in examples])


def _agrees(f: Callable[..., Any], makers: list[Maker], in_axes: tuple[int | None, ...],
            backend: str) -> None:
    """vmap of `f` on `backend` against the loop on numpy."""
    examples = _examples(makers)
    with tp.backend_scope(backend), _no_fallback():
        got = tp.vmap(f, in_axes=in_axes)(*_batched(examples, in_axes)).numpy()
    with tp.backend_scope("numpy"):
        want = _loop(f, examples, in_axes)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _scatter_add(idx: tp.Tensor, updates: tp.Tensor) -> tp.Tensor:  # (no public op: Gather's gradient)
    return tp.run_kernel("ScatterAdd", [idx, updates], {"shape": (2, 5, 3), "axis": 1})


def _fused(a: tp.Tensor, b: tp.Tensor, bias: tp.Tensor, slopes: tp.Tensor) -> tp.Tensor:
    return tp.nn.fused_matmul(a, b, bias, "prelu", prelu_weights=slopes)


# (kernel, function of one example, makers of its inputs, in_axes layouts: the first runs on jax too)
CASES: list[tuple[str, Callable[..., Any], list[Maker], list[tuple[int | None, ...]]]] = [
    ("Gather", lambda x, i: tp.take(x, i, axis=1), [floats(2, 5, 3), ints(-5, 5, 4, 2)],
     [(0, 0), (2, 1), (None, 0), (0, None)]),
    ("ScatterAdd", _scatter_add, [ints(-5, 5, 4), floats(2, 4, 3)], [(0, 0), (1, 3), (0, None), (None, 1)]),
    ("GatherNd", tp.gather_nd, [floats(4, 5, 2), ints(0, (4, 5), 6, 2)],
     [(0, 0), (3, 1), (None, 0), (None, 2), (1, None)]),
    ("ScatterNd", lambda i, u: tp.scatter_nd(i, u, (4, 5, 3)), [ints(0, (4, 5), 6, 2), floats(6, 3)],
     [(0, 0), (1, 2), (0, None), (None, 1)]),
    ("TensorScatterUpdate", tp.tensor_scatter_update,
     [floats(4, 5, 3), distinct_rows((4, 5), 5), floats(5, 3)],
     [(0, 0, 0), (3, 2, 1), (None, 0, None), (2, None, None), (None, None, 2), (0, 1, None)]),
    ("SparseToDense", lambda i, v, d: tp.sparse.to_dense(i, v, (4, 5), d),
     [distinct_rows((4, 5), 6), floats(6), floats()],
     [(0, 0, None), (2, 1, 0), (None, 0, None), (None, None, 0), (1, None, 0)]),
    ("SparseToDense", lambda i, v: tp.sparse.to_dense(i, v, 7), [ints(0, 7, 1), floats()],
     [(0, 0), (0, None), (None, 0)]),
    ("UnsortedSegmentSum", lambda d, s: tp.segment_sum(d, s, 4), [floats(6, 3), ints(0, 4, 6)],
     [(0, 0), (2, 1), (None, 0), (1, None)]),
    ("UnsortedSegmentMax", lambda d, s: tp.segment_max(d, s, 4), [floats(2, 3, 2), ints(0, 4, 2, 3)],
     [(0, 0), (3, 2), (None, 1), (2, None)]),
    ("UnsortedSegmentMin", lambda d, s: tp.segment_min(d, s, 5), [floats(6), ints(0, 5, 6)],
     [(0, 0), (1, 1), (None, 0), (0, None)]),
    ("SparseSegmentSum", lambda d, i, s: tp.sparse.segment_sum(d, i, s, 4),
     [floats(5, 3), ints(0, 5, 6), sorted_ids(4, 6)],
     [(0, 0, 0), (2, 1, None), (None, 0, 0), (None, None, 1), (1, None, None)]),
    ("SparseSegmentMean", lambda d, i, s: tp.sparse.segment_mean(d, i, s, 4),
     [floats(5, 3), ints(0, 5, 6), sorted_ids(4, 6)],
     [(0, 0, 0), (1, None, 1), (None, 1, 0), (0, None, None)]),
    ("SparseSegmentSum", lambda d, i, s: tp.sparse.segment_sum(d, i, s),  # (num_segments from the ids)
     [floats(5, 3), ints(0, 5, 6), lambda rng: np.array([0, 0, 1, 1, 3, 3])],
     [(0, None, None), (2, None, None)]),
    ("Diag", tp.linalg.tensor_diag,  # (zeros off the diagonal, even beside an inf or a NaN)
     [lambda rng: np.array([[1.0, np.inf], [np.nan, -2.0]]) * rng.standard_normal()], [(0,), (1,), (2,)]),
    ("Prelu", tp.nn.prelu, [floats(3, 4), floats(4)], [(0, 0), (1, None), (None, 0), (2, 0)]),
    ("FusedMatMul", _fused, [floats(2, 3), floats(3, 4), floats(4), floats(4)],
     [(0, 0, 0, 0), (0, None, None, None), (None, 2, None, None), (None, None, 0, None),
      (None, None, None, 0), (2, 1, None, 1)]),
    ("FusedMatMul", lambda a, b: tp.nn.fused_matmul(a, b, None, "relu", transpose_b=True),
     [floats(3, 2), floats(2, 4, 2)], [(0, 0), (None, 3), (1, None)]),
    ("SpaceToBatchND", lambda x: tp.nn.space_to_batch_nd(x, (2, 2), ((0, 0), (1, 1))),
     [floats(2, 4, 2, 3)], [(0,), (2,), (4,)]),
    ("BatchToSpaceND", lambda x: tp.nn.batch_to_space_nd(x, (2, 2), ((0, 0), (1, 1))),
     [floats(8, 2, 2, 1)], [(0,), (3,), (4,)]),
]
NUMPY = [pytest.param(f, makers, axes, id=f"{name}-{axes}") for name, f, makers, layouts in CASES
         for axes in layouts]
JAX = [pytest.param(f, makers, layouts[0], id=name, marks=pytest.mark.jax)  # (the first case of each)
       for name, f, makers, layouts in {c[0]: c for c in reversed(CASES)}.values()]


@pytest.mark.parametrize(("f", "makers", "in_axes"), NUMPY)
def test_rule_agrees_with_a_loop_of_the_op(f: Any, makers: list[Maker], in_axes: Any) -> None:
    _agrees(f, makers, in_axes, "numpy")


@pytest.mark.parametrize(("f", "makers", "in_axes"), JAX)
def test_rule_agrees_with_a_loop_of_the_op_on_jax(f: Any, makers: list[Maker], in_axes: Any) -> None:
    _agrees(f, makers, in_axes, "jax")


def test_every_kernel_here_has_a_rule() -> None:
    for name in {c[0] for c in CASES}:
        assert tp.extend.find_batching_rule(name) is not None, name


def test_sparse_segment_ids_batched_without_num_segments() -> None:
    """Each example's number of segments is its own last id + 1: one batched call when every
    example has the same (read from the ids), the loop's own error when they differ."""
    examples = _examples([floats(5, 3), ints(0, 5, 6), lambda rng: np.sort(rng.integers(0, 3, 6))])
    for ex in examples:
        ex[2][-1] = 2  # (one number of segments for every example: the loop can stack them)

    def f(d: Any, i: Any, s: Any) -> Any:
        return tp.sparse.segment_sum(d, i, s)
    with tp.backend_scope("numpy"), warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)  # the rule batches it: no loop
        for in_axes in ((0, 0, 0), (None, None, 0), (0, 0, None)):
            with count_kernels() as calls:
                got = tp.vmap(f, in_axes=in_axes)(*_batched(examples, in_axes))
            assert calls.counts[("SparseSegmentSum", "numpy")] == 1, in_axes  # (the loop: B calls)
            np.testing.assert_allclose(got.numpy(), _loop(f, examples, in_axes), err_msg=str(in_axes))
        examples[1][2][-1] = 1  # example 1 has two segments, the others three
        warnings.simplefilter("ignore", VmapFallbackWarning)
        with pytest.raises(ShapeError, match="different shapes"):
            tp.vmap(f)(*_batched(examples, (0, 0, 0)))


# -- indices out of range: the loop's error, never the neighbouring example's element -------------
def _kernel(name: str, **attrs: Any) -> Callable[..., Any]:
    return lambda *xs: tp.run_kernel(name, list(xs), attrs)


# (kernel function, example inputs with one index out of range in example 1: flattened with
# offsets it would address an element of example 0 or 2)
OUT_OF_RANGE: list[tuple[str, Callable[..., Any], list[list[np.ndarray]], tuple[int | None, ...]]] = [
    ("Gather", _kernel("Gather", axis=0), [[np.ones(4), np.array([0, 3])], [np.ones(4), np.array([4, 1])],
                                           [np.ones(4), np.array([2, -4])]], (0, 0)),
    ("Gather", _kernel("Gather", axis=0), [[np.ones(4), np.array([0, 3])], [np.ones(4), np.array([-5, 1])],
                                           [np.ones(4), np.array([2, 2])]], (0, 0)),
    ("ScatterAdd", _kernel("ScatterAdd", shape=(4,), axis=0),
     [[np.array([1]), np.ones(1)], [np.array([4]), np.ones(1)], [np.array([0]), np.ones(1)]], (0, 0)),
    ("GatherNd", _kernel("GatherNd"),
     [[np.ones((2, 3)), np.array([[1, 2]])], [np.ones((2, 3)), np.array([[0, 3]])],
      [np.ones((2, 3)), np.array([[1, 0]])]], (0, 0)),
    ("ScatterNd", _kernel("ScatterNd", shape=(2, 3)),
     [[np.array([[1, 2]]), np.ones(1)], [np.array([[0, -1]]), np.ones(1)], [np.array([[0, 0]]), np.ones(1)]],
     (0, None)),
    ("TensorScatterUpdate", _kernel("TensorScatterUpdate"),
     [[np.zeros(3), np.array([[1]]), np.ones(1)], [np.zeros(3), np.array([[3]]), np.ones(1)],
      [np.zeros(3), np.array([[0]]), np.ones(1)]], (0, 0, None)),
    ("SparseToDense", _kernel("SparseToDense", output_shape=(3,)),
     [[np.array([1]), np.ones(1), np.array(0.0)], [np.array([3]), np.ones(1), np.array(0.0)],
      [np.array([0]), np.ones(1), np.array(0.0)]], (0, 0, None)),
    ("SparseSegmentSum", _kernel("SparseSegmentSum", num_segments=2),
     [[np.ones((3, 2)), np.array([0, 2]), np.array([0, 1])],
      [np.ones((3, 2)), np.array([3, 0]), np.array([0, 1])],
      [np.ones((3, 2)), np.array([0, 0]), np.array([0, 1])]], (0, 0, None)),
]


@pytest.mark.parametrize(("f", "examples", "in_axes"),
                         [pytest.param(f, ex, axes, id=name) for name, f, ex, axes in OUT_OF_RANGE])
def test_an_index_out_of_range_raises_the_loops_error(f: Any, examples: Any, in_axes: Any) -> None:
    with tp.backend_scope("numpy"):
        with pytest.raises(tp.IndexOutOfRangeError) as looped:
            _loop(f, examples, in_axes)
        with _no_fallback(), pytest.raises(type(looped.value)) as batched:
            tp.vmap(f, in_axes=in_axes)(*_batched(examples, in_axes))
    assert str(batched.value) == str(looped.value)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("jax", marks=pytest.mark.jax)])
def test_an_index_out_of_range_through_the_ops_raises_as_the_loop(backend: str) -> None:
    """The ops inside vmap cannot see batched indices: they pass one out of range on, and the
    kernel refuses it as in the loop."""
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([[0, 1], [2, 4], [1, 1]])  # (example 1's 4: with offsets, example 2's element 0)
    rows = np.array([[[0, 1]], [[1, 4]], [[2, 0]]])
    with tp.backend_scope(backend):
        for f, args in ((lambda a, i: tp.take(a, i), (x, idx)),
                        (lambda a, i: tp.gather_nd(a, i), (x.reshape(3, 1, 4), rows))):
            with pytest.raises(tp.IndexOutOfRangeError):
                f(tp.asarray(args[0][1]), tp.asarray(args[1][1]))
            with _no_fallback(), pytest.raises(tp.IndexOutOfRangeError):
                tp.vmap(f)(*map(tp.asarray, args))


@pytest.mark.parametrize("name", ["UnsortedSegmentSum", "UnsortedSegmentMax", "SparseSegmentMean"])
def test_a_segment_id_out_of_range_is_dropped_as_in_the_loop(name: str) -> None:
    """Ids -1 and num_segments (with offsets: the previous example's last segment, the next's
    first) are dropped."""
    data = np.arange(12.0).reshape(3, 4) + 1
    ids = np.array([[0, 1, 2, 2], [-1, 1, 3, 0], [0, 0, 2, 1]])
    if name.startswith("Sparse"):
        ids = np.array([[0, 1, 2, 2], [-1, 0, 1, 3], [0, 0, 1, 2]])
        f = _kernel(name, num_segments=3)
        examples = [[data[i], np.array([3, 2, 1, 0]), ids[i]] for i in range(B)]
        in_axes: tuple[int | None, ...] = (0, None, 0)
    else:
        f = _kernel(name, num_segments=3)
        examples = [[data[i], ids[i]] for i in range(B)]
        in_axes = (0, 0)
    with tp.backend_scope("numpy"):
        want = _loop(f, examples, in_axes)
        with _no_fallback():
            got = tp.vmap(f, in_axes=in_axes)(*_batched(examples, in_axes))
    np.testing.assert_allclose(got.numpy(), want)


# -- gradients through vmap -----------------------------------------------------------------------
def _grad_agrees(f: Callable[..., Any], values: np.ndarray, indices: np.ndarray, weights: np.ndarray) -> None:
    """d/d values of sum(vmap(f)(values, indices) * weights), against the loop's."""
    v, i, w = tp.asarray(values), tp.asarray(indices), tp.asarray(weights)
    with _no_fallback():
        got = tp.grad(lambda a: tp.sum(tp.vmap(f)(a, i) * w))(v)
    want = tp.grad(lambda a: sum(tp.sum(f(a[k], i[k]) * w[k]) for k in range(B)))(v)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_grad_of_vmap_of_a_scatter_and_a_segment_reduction() -> None:
    rng = np.random.default_rng(0)
    with tp.backend_scope("numpy"):
        _grad_agrees(lambda u, i: tp.scatter_nd(i, u, (4, 2)), rng.standard_normal((B, 5, 2)),
                     rng.integers(0, 4, (B, 5, 1)), rng.standard_normal((B, 4, 2)))
        _grad_agrees(lambda d, s: tp.segment_max(d, s, 3), rng.standard_normal((B, 6, 2)),
                     rng.integers(0, 3, (B, 6)), rng.standard_normal((B, 3, 2)))
