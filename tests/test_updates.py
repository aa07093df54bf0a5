"""Functional updates (x.at[key].set/add/multiply/min/max/get) against numpy's in-place
updates on a copy, for every index kind getitem takes; their gradients; __setitem__ refused."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

_MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])

# (key as tensorplug takes it, key as numpy takes it)
KEYS = [
    (1, 1),
    (-1, -1),
    ((slice(None), slice(1, 3)), (slice(None), slice(1, 3))),
    ((slice(None, None, -2), 0), (slice(None, None, -2), 0)),
    ((Ellipsis, 2), (Ellipsis, 2)),
    ((None, 1, slice(None)), (None, 1, slice(None))),
    (([2, 0], slice(None)), ([2, 0], slice(None))),
    ((slice(None), [3, 3, 1]), (slice(None), [3, 3, 1])),  # repeated places
    (([0, 2], [1, 3]), ([0, 2], [1, 3])),
    ("mask", _MASK),
    ((), ()),
]
IDS = ["int", "negative", "slices", "negative-step", "ellipsis", "newaxis", "int-array",
       "repeated", "paired-arrays", "mask", "empty-tuple"]


def _key(key):
    return tp.asarray(_MASK) if isinstance(key, str) else key


def _numpy_update(method: str, base: np.ndarray, key, values) -> np.ndarray:
    out = base.copy()
    ufunc = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}.get(method)
    if ufunc is None:
        out[key] = values
    else:  # unbuffered: repeated places accumulate, as .at does
        ids = np.arange(base.size).reshape(base.shape)[key]
        flat = out.reshape(-1)
        ufunc.at(flat, ids.reshape(-1), np.broadcast_to(values, ids.shape).reshape(-1))
    return out


@pytest.mark.parametrize("key, np_key", KEYS, ids=IDS)
@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
def test_updates_match_numpy(backend, method, key, np_key):
    base = np.arange(12.0).reshape(3, 4) - 5.0
    x = tp.asarray(base)
    shape = base[np_key].shape
    values = (np.arange(np.prod(shape[-1:], dtype=int)) * 1.5 - 2.0).reshape(shape[-1:]) if shape else 7.0
    got = getattr(x.at[_key(key)], method)(tp.asarray(values) if np.ndim(values) else values)
    assert (got.shape, got.dtype, got.backend) == (x.shape, x.dtype, backend)
    np.testing.assert_allclose(got.numpy(), _numpy_update(method, base, np_key, values))
    np.testing.assert_array_equal(x.numpy(), base)  # x itself never changes


def test_get_is_getitem_and_values_take_the_dtype_of_x(backend):
    x = tp.asarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    np.testing.assert_array_equal(x.at[:, 1].get().numpy(), x.numpy()[:, 1])
    y = x.at[0, 0].set(2.7)
    assert y.dtype == tp.int32 and int(y[0, 0]) == 2
    b = tp.asarray([True, False]).at[1].set(True)
    assert b.numpy().tolist() == [True, True]


def test_set_with_a_repeated_place_keeps_the_last_value(backend):
    x = tp.zeros(3)
    y = x.at[tp.asarray([1, 1, 1])].set(tp.asarray([5.0, 6.0, 7.0]))
    np.testing.assert_array_equal(y.numpy(), [0.0, 7.0, 0.0])


_REPEATED, _BASIC = (slice(None), [3, 0, 3]), (1, slice(1, None))
GRAD_CASES = [(m, _REPEATED) for m in ("set", "add", "multiply", "min", "max")] + [
    ("set", "mask"), ("max", "mask"), ("multiply", _BASIC)]


@pytest.mark.parametrize("method, key", GRAD_CASES,
                         ids=[f"{m}-{'mask' if k == 'mask' else 'repeated' if k is _REPEATED else 'basic'}"
                              for m, k in GRAD_CASES])
def test_gradients_with_respect_to_x_and_values(backend, method, key):
    rng = np.random.default_rng(0)
    base = rng.normal(size=(3, 4))
    shape = base[_MASK if isinstance(key, str) else key].shape
    values = rng.normal(size=shape)
    check_gradients(lambda x, v: getattr(x.at[_key(key)], method)(v), base, values, order=2)


def test_updates_under_jit_match_eager(backend):
    x = tp.asarray(np.arange(8.0).reshape(2, 4))
    f = tp.jit(lambda x, v: x.at[:, [0, 0, 2]].add(v))
    v = tp.asarray([1.0, 2.0, 3.0])
    for _ in range(2):
        np.testing.assert_array_equal(f(x, v).numpy(), x.at[:, [0, 0, 2]].add(v).numpy())


def test_setitem_says_tensors_are_immutable_and_shows_the_fix(backend):
    x = tp.zeros((2, 2))
    with pytest.raises(tp.ImmutableTensorError,
                       match=r"immutable.*x = x\.at\[0, 1:\]\.set\(value\)") as info:
        x[0, 1:] = 1.0
    assert isinstance(info.value, TypeError)


def test_bad_updates_are_tensorplug_errors(backend):
    x = tp.zeros((2, 3))
    with pytest.raises(tp.IndexOutOfRangeError):
        x.at[5].set(1.0)
    with pytest.raises(tp.ShapeError):
        x.at[0].set(tp.ones(4))
    with pytest.raises(tp.DTypeError):
        x.at[0].set(tp.asarray([1j, 2j, 3j]))
    with pytest.raises(tp.DTypeError):
        x.at[1.5].set(1.0)


# -- keys whose values are unknown: batched inside tp.vmap, traced inside tp.jit ------------------
_X = np.arange(24.0).reshape(3, 8) / 7
_I = np.array([[0, -3, 7, 0], [2, 2, 5, 1], [7, 6, -8, 3]])  # per example: repeated, negative


@pytest.mark.parametrize("method", ["set", "add"])
def test_updates_with_batched_keys_inside_vmap_match_numpy(backend, method):
    values = np.array([1.5, -2.0, 4.0, 0.5])
    got = tp.vmap(lambda x, i: getattr(x.at[i], method)(tp.asarray(values)))(tp.asarray(_X), tp.asarray(_I))
    want = np.stack([_numpy_update(method, x, i, values) for x, i in zip(_X, _I)])
    if method == "set":  # (a repeated place: which value wins is unspecified, as in JAX)
        repeated = [np.flatnonzero(np.bincount(i % 8, minlength=8) > 1) for i in _I]
        for row, places in enumerate(repeated):
            want[row, places] = got.numpy()[row, places]
    np.testing.assert_allclose(got.numpy(), want)
    x3, rows, cols = np.arange(60.0).reshape(3, 4, 5), np.array([1, 3, 0]), np.array([4, 0, -1])
    got = tp.vmap(lambda m, r, c: getattr(m.at[r, c], method)(9.0))(*map(tp.asarray, (x3, rows, cols)))
    want = np.stack([_numpy_update(method, m, (r, c), 9.0) for m, r, c in zip(x3, rows, cols)])
    np.testing.assert_allclose(got.numpy(), want)


def test_updates_with_traced_keys_under_jit_match_eager_with_gradients(backend):
    def f(x, i):
        return tp.sum(x.at[i].set(x[0] * 3.0) ** 2) + tp.sum(x.at[i].add(tp.sin(x[1])))
    x, i = tp.asarray(_X), tp.asarray(np.array([2, 1, 2]))
    for fn in (f, tp.grad(f)):
        np.testing.assert_allclose(tp.jit(fn)(x, i).numpy(), fn(x, i).numpy(), rtol=1e-12)


def test_updates_with_unknown_keys_refuse_what_needs_their_values(backend):
    x, i = tp.asarray(_X), tp.asarray(_I[:, 0])
    for update, what in ((lambda r, k: r.at[k].multiply(2.0), r"got x.at\[idx\].multiply"),
                         (lambda r, k: r.at[r > k].set(0.0), "x.at\\[key\\] takes only integer tensors")):
        with pytest.raises(tp.ArgumentError, match=what):
            tp.vmap(update)(x, i)
    with pytest.raises(tp.IndexOutOfRangeError, match=r"index \[9\] is out of range"):  # the key's own index
        tp.vmap(lambda r, k: r.at[k].set(0.0))(x, tp.asarray(np.array([0, 9, 1])))


def test_scatter_update_gradients_go_to_the_update_the_kernel_kept(backend):
    """With a repeated row, the updates that were overwritten had no effect: their gradient is
    zero (finite differences agree), under tp.jit too, where .at[].set is TensorScatterUpdate."""
    rng = np.random.default_rng(1)
    x, updates, rows = rng.normal(size=(4, 3)), rng.normal(size=(3, 3)), np.array([[2], [0], [2]])
    check_gradients(lambda x, u: tp.tensor_scatter_update(x, rows, u), x, updates, order=2)
    grad = tp.jit(tp.grad(lambda u, i: tp.sum(tp.asarray(x).at[i].set(u) ** 2)))
    got = grad(tp.asarray(updates), tp.asarray(rows[:, 0])).numpy()
    kept = tp.tensor_scatter_update(tp.zeros((4,), dtype=tp.int64), rows, tp.arange(3)).numpy()
    for r, (row,) in enumerate(rows):
        want = 2 * updates[r] if kept[row] == r else np.zeros(3)
        np.testing.assert_allclose(got[r], want, rtol=1e-12)
