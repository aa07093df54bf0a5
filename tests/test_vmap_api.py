"""tp.vmap's calling conventions against jax.vmap (float64, 1e-6) on both backends: keyword
arguments (batched along axis 0, whatever in_axes says), None leaves; values that escape the
vmapped function (refused with a TracedValueError when used, as JAX's UnexpectedTracerError);
and tp.jit functions called inside vmap (batched op by op, the jit cache left as it was)."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: 64-bit references)
from tensorplug.transforms.vmap.batching_backend import BatchingBackend

BACKENDS = ("numpy", "jax")
B = 3  # the batch size
TOL = {"rtol": 1e-6, "atol": 1e-6}


def _data(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), **TOL)


# -- keyword arguments -----------------------------------------------------------------------------
def _scaled(lib: Any) -> Any:
    def f(x: Any, w: Any, *, scale: Any, extra: Any = None) -> Any:
        out = lib.tanh(x @ w) * scale["a"] + scale["b"]
        return out if extra is None else out - extra
    return f


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("in_axes", [0, (0, None), (1, None), (None, None), None])
def test_keyword_arguments_are_batched_along_axis_0(backend: str, in_axes: Any) -> None:
    """Every leaf of every keyword argument is mapped over axis 0, whatever in_axes says about
    the positional ones (as jax.vmap)."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes, in_axes)
    x = _data({0: (B, 4), 1: (4, B), None: (4,)}[axes[0]], 0)
    w = _data((4, 2) if axes[1] is None else (B, 4, 2), 1)
    scale = {"a": _data((B, 2), 2), "b": _data((B, 1), 3)}
    extra = _data((B, 2), 4)
    want = jax.vmap(_scaled(jnp), in_axes=in_axes)(x, w, scale={k: jnp.asarray(v) for k, v in scale.items()},
                                                   extra=jnp.asarray(extra))
    with tp.backend_scope(backend):
        got = tp.vmap(_scaled(tp), in_axes=in_axes)(tp.asarray(x), tp.asarray(w),
                                                    scale={k: tp.asarray(v) for k, v in scale.items()},
                                                    extra=tp.asarray(extra))
    assert got.shape == want.shape
    _close(got.numpy(), want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_none_leaves_pass_through(backend: str) -> None:
    """None (an empty tree in JAX) is given to the function as it is, positional or keyword."""
    x = _data((B, 4), 0)
    want = jax.vmap(_scaled(jnp))(x, jnp.ones((B, 4, 2)),
                                  scale={"a": jnp.ones((B, 2)), "b": jnp.zeros((B, 1))}, extra=None)
    with tp.backend_scope(backend):
        got = tp.vmap(_scaled(tp))(tp.asarray(x), tp.ones((B, 4, 2), dtype=tp.float64),
                                   scale={"a": tp.ones((B, 2), dtype=tp.float64),
                                          "b": tp.zeros((B, 1), dtype=tp.float64)}, extra=None)
        seen = []
        tp.vmap(lambda a, m: seen.append(m) or a)(tp.asarray(x), None)
    _close(got.numpy(), want)
    assert seen == [None]


@pytest.mark.parametrize("backend", BACKENDS)
def test_none_results_pass_through(backend: str) -> None:
    """A None among the results is returned as None (JAX's empty tree), whatever out_axes says."""
    x = _data((B, 4), 0)
    want = jax.vmap(lambda a: (jnp.sin(a), None, {"n": None, "c": a * 2}))(x)
    with tp.backend_scope(backend):
        got = tp.vmap(lambda a: (tp.sin(a), None, {"n": None, "c": a * 2}))(tp.asarray(x))
        assert tp.vmap(lambda a: None, out_axes=1)(tp.asarray(x)) is None
    assert got[1] is None and got[2]["n"] is None and want[1] is None
    _close(got[0].numpy(), want[0])
    _close(got[2]["c"].numpy(), want[2]["c"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_keyword_arguments_compose_with_grad(backend: str) -> None:
    """Per-example gradients with the labels passed by keyword."""
    def loss(lib: Any) -> Any:
        return lambda w, x, *, y: lib.sum((lib.tanh(x @ w) - y) ** 2)
    w, x, y = _data((4, 2), 0), _data((B, 4), 1), _data((B, 2), 2)
    want = jax.vmap(lambda xi, y: jax.grad(loss(jnp))(jnp.asarray(w), xi, y=y))(x, y=y)
    with tp.backend_scope(backend):
        tw = tp.asarray(w)
        got = tp.vmap(lambda xi, y: tp.grad(loss(tp))(tw, xi, y=y))(tp.asarray(x), y=tp.asarray(y))
    _close(got.numpy(), want)


def test_keyword_argument_errors() -> None:
    x = tp.asarray(_data((B, 4), 0))
    f = tp.vmap(lambda a, scale: a * scale, in_axes=(0,))
    with pytest.raises(tp.ShapeError, match="keyword arguments are mapped over axis 0 .*'scale', a scalar.*"
                                            "functools.partial"):
        f(x, scale=2.0)
    with pytest.raises(tp.ShapeError, match="different sizes.*keyword argument 'scale' has 5"):
        f(x, scale=tp.ones((5, 4)))
    with pytest.raises(tp.ArgumentError, match="keyword argument 'scale' is 'no'.*functools.partial"):
        f(x, scale="no")
    with pytest.raises(tp.ArgumentError, match="in_axes has 2 entries for 1 positional arguments"):
        tp.vmap(lambda a, scale: a * scale, in_axes=(0, None))(x, scale=x)


# -- escaped values ------------------------------------------------------------------------------
_KEPT: list[tp.Tensor] = []  # a module global a vmapped function writes to


def _escapes(kept: list[tp.Tensor]) -> Any:
    """A function that returns 2 sin(x) and keeps values of the batch: in `kept` (a list of
    its caller), in a module global, in an object's attribute, and a value made inside (the
    same for every example)."""
    class Box:
        value: Any = None
    box = Box()

    def f(x: tp.Tensor) -> tp.Tensor:
        y = tp.sin(x)
        kept.append(y)
        _KEPT.append(y * 3.0)
        box.value = tp.ones(2, dtype=tp.float64) + 1.0
        kept.append(box.value)
        return 2.0 * y
    return f


_USES = {
    "op": lambda k, x: k + 1.0,
    "unary op": lambda k, x: tp.exp(k),
    "numpy": lambda k, x: k.numpy(),
    "float": lambda k, x: float(tp.sum(k)),
    "a later vmap (same batch size)": lambda k, x: tp.vmap(lambda a: a + k)(x),
    "a later vmap's result": lambda k, x: tp.vmap(lambda a: k)(x),
    "a later vmap's argument": lambda k, x: tp.vmap(lambda a, b: a * b, in_axes=(0, None))(x, k),
    "a nested vmap": lambda k, x: tp.vmap(lambda a: tp.vmap(lambda b: b * k)(a))(tp.stack([x, x])),
    "a later vmap (another batch size)": lambda k, x: tp.vmap(lambda a: a + k)(x[:2]),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("use", sorted(_USES))
def test_an_escaped_value_is_refused_when_used(backend: str, use: str) -> None:
    x = _data((B, 2), 0)
    kept: list[tp.Tensor] = []
    _KEPT.clear()
    with tp.backend_scope(backend):
        tx = tp.asarray(x)
        out = tp.vmap(_escapes(kept))(tx)
        _close(out.numpy(), 2 * np.sin(x))  # the result is fine
        for k in [*kept, *_KEPT]:
            with pytest.raises(tp.TracedValueError, match="vmap: a value computed inside vmap escaped"):
                _USES[use](k, tx)
            assert "<traced>" in repr(k)  # repr shows a placeholder
        _close(tp.vmap(_escapes([]))(tx).numpy(), 2 * np.sin(x))  # the level serves later calls
    _KEPT.clear()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_variable_takes_a_value_the_examples_share_and_refuses_one_per_example(backend: str) -> None:
    x = _data((B, 2), 0)
    with tp.backend_scope(backend):
        v = tp.Variable(tp.zeros((2,), dtype=tp.float64))

        def assigning(a: tp.Tensor, value: tp.Tensor) -> tp.Tensor:
            v.assign(value)
            return a
        tp.vmap(assigning, in_axes=(0, None))(tp.asarray(x), tp.asarray(x[1]))
        _close(v.numpy(), x[1])  # the same for every example: assigned
        with pytest.raises(tp.TracedValueError, match=f"Variable '{v.name}': cannot assign a value that "
                                                      "differs between the examples of a tp.vmap batch"):
            tp.vmap(lambda a: assigning(a, a * 2))(tp.asarray(x))
        _close(v.numpy(), x[1])  # left as it was


@pytest.mark.parametrize("backend", BACKENDS)
def test_escapes_from_an_inner_vmap_and_from_a_call_that_raised(backend: str) -> None:
    x = _data((B, 2), 0)
    kept: list[tp.Tensor] = []
    with tp.backend_scope(backend):
        def outer(a: tp.Tensor) -> tp.Tensor:
            inner = tp.vmap(lambda b: kept.append(b * 2.0) or b)(a)
            return inner + kept[-1]  # a value of the inner level, used at the outer one
        with pytest.raises(tp.TracedValueError, match="escaped"):
            tp.vmap(outer)(tp.asarray(x[:, :, None] * np.ones(2)))

        def raises(a: tp.Tensor) -> tp.Tensor:
            kept.append(tp.cos(a))
            raise RuntimeError("the function fails")
        with pytest.raises(RuntimeError, match="the function fails"):
            tp.vmap(raises)(tp.asarray(x))
        with pytest.raises(tp.TracedValueError, match="escaped"):
            tp.cos(kept[-1])
        nested = tp.vmap(lambda a: tp.vmap(lambda b: b * a)(tp.asarray(x)))(tp.asarray(x))  # no escape
    _close(nested.numpy(), x[:, None, :] * x[None, :, :])


# -- tp.jit inside vmap ----------------------------------------------------------------------------
def _counted() -> tuple[list[int], Any]:
    """A tp.jit function of (a, w) and the count of its Python runs (traces or eager calls)."""
    runs = [0]

    def f(a: Any, w: Any) -> Any:
        runs[0] += 1
        return tp.tanh(a @ w) * tp.sum(a)
    return runs, tp.jit(f)


def _reference(a: np.ndarray, w: np.ndarray) -> Any:
    return jnp.tanh(a @ w) * jnp.sum(a)


def _no_batching_entries(jitted: Any) -> None:
    """tp.jit's per-backend cache (``per_backend`` of the call path) holds no vmap level."""
    per_backend = inspect.getclosurevars(jitted).nonlocals["per_backend"]
    assert not any(isinstance(b, BatchingBackend) for b in per_backend), list(per_backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("plain_first", [False, True])
def test_vmap_of_jit_is_right_and_leaves_the_jit_cache_alone(backend: str, plain_first: bool) -> None:
    x, w = _data((B, 4), 0), _data((4, 2), 1)
    xs = _data((2, B, 4), 2)
    want = jax.vmap(_reference, in_axes=(0, None))(x, w)
    want_plain = _reference(x[0], w)
    with tp.backend_scope(backend):
        runs, jf = _counted()
        tx, tw = tp.asarray(x), tp.asarray(w)
        if plain_first:
            _close(jf(tx[0], tw).numpy(), want_plain)
        for in_axes in ((0, None), (1, None)):
            before = runs[0]
            got = tp.vmap(jf, in_axes=in_axes)(tx if in_axes[0] == 0 else tp.asarray(x.T), tw)
            _close(got.numpy(), want)
            assert runs[0] == before + 1  # f ran once, batched op by op
        # a tp.jit function of a value of the enclosing vmap level (nested vmap)
        nested = tp.vmap(lambda a: tp.vmap(lambda b: jf(b, tw) + jf(a, tw))(tx))(tp.asarray(xs))
        both = jax.vmap(lambda a: jax.vmap(lambda b: _reference(b, w) + _reference(a, w))(x))(xs)
        _close(nested.numpy(), both)
        _close(tp.vmap(tp.grad(lambda a: tp.sum(jf(a, tw))))(tx).numpy(),
               jax.vmap(jax.grad(lambda a: jnp.sum(_reference(a, w))))(x))
        _no_batching_entries(jf)
        # later plain calls compile (or replay): f's Python body stops running
        for _ in range(3):
            _close(jf(tx[0], tw).numpy(), want_plain)
        settled = runs[0]
        for _ in range(2):
            _close(jf(tx[0], tw).numpy(), want_plain)
        assert runs[0] == settled
        _no_batching_entries(jf)
