"""tp.cond, tp.switch, tp.while_loop, tp.fori_loop and tp.scan (issue 34 item 1) against
jax.lax's, in float64: values eagerly and under tp.jit, gradients (first and second order, and
under tp.jit and tp.checkpoint), JVPs and vmap (one predicate for the batch, and one per
example), on the numpy backend (the generic kernels), the jax backend (lax's own) and a backend
without control flow of its own (the toy backend: the generic kernels over its kernels)."""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: jax in 64 bits)
from _toy_backend import install_toy_backend

pytestmark = pytest.mark.jax

TP = SimpleNamespace(cond=tp.cond, switch=tp.switch, while_loop=tp.while_loop, fori_loop=tp.fori_loop,
                     scan=tp.scan, sin=tp.sin, tanh=tp.tanh, sum=tp.sum, int32=tp.int32)
JAX = SimpleNamespace(cond=jax.lax.cond, switch=jax.lax.switch, while_loop=jax.lax.while_loop,
                      fori_loop=jax.lax.fori_loop, scan=jax.lax.scan, sin=jnp.sin, tanh=jnp.tanh,
                      sum=jnp.sum, int32=jnp.int32)


def _cond(m: Any, x: Any, w: Any) -> Any:
    return m.sum(m.cond(m.sum(x) * w > 0, lambda a: m.sin(a) * w, lambda a: a * a * w, x))


def _switch(m: Any, x: Any, w: Any) -> Any:
    index = (m.sum(x) * w > 0).astype(m.int32) * 2 - 1  # -1 (clamped to 0) or 1
    return m.sum(m.switch(index, [lambda a: a * w, lambda a: m.sin(a * w), lambda a: a], x))


def _fori(m: Any, x: Any, w: Any) -> Any:
    return m.sum(m.fori_loop(0, 4, lambda i, v: m.sin(v) * w + i, x))


def _scan(m: Any, x: Any, w: Any) -> Any:
    c, ys = m.scan(lambda c, xi: (m.tanh(c * w + xi), c * xi + w), x[0] * 0.5, x)
    return m.sum(ys) + c


def _scan_tree(m: Any, x: Any, w: Any) -> Any:
    """A dict carry holding an integer counter, xs a tuple, reversed, ys a dict."""
    def body(carry: Any, pair: Any) -> Any:
        a, b = pair
        h = m.tanh(carry["h"] * w + a * b)
        return {"h": h, "n": carry["n"] + 1}, {"y": h * b, "n": carry["n"]}
    last, ys = m.scan(body, {"h": x[0], "n": 0}, (x, m.sin(x)), reverse=True)
    return m.sum(ys["y"]) + last["h"] * last["n"]


def _nested(m: Any, x: Any, w: Any) -> Any:
    """A cond inside a scan body, closing over w."""
    def body(c: Any, xi: Any) -> Any:
        c = m.cond(xi > 0, lambda v: v * w + xi, lambda v: m.sin(v) - xi, c)
        return c, c * c
    c, ys = m.scan(body, x[-1], x)
    return c + m.sum(ys)


def _while(m: Any, x: Any, w: Any) -> Any:
    _, v = m.while_loop(lambda p: p[0] < 5, lambda p: (p[0] + 1, m.sin(p[1]) * w), (0, x))
    return m.sum(v)


DIFFERENTIABLE = {"cond": _cond, "switch": _switch, "fori_loop": _fori, "scan": _scan,
                  "scan_tree": _scan_tree,
                  "nested": _nested}
ALL = {**DIFFERENTIABLE, "while_loop": _while}
X = np.array([0.3, -1.1, 0.8, 2.0])
XS = np.array([[0.3, -1.1, 0.8, 2.0], [-0.5, -0.2, -0.9, 0.1], [1.5, 0.4, -0.3, 0.7]])


def _tp(name: str) -> Any:
    return lambda x, w: ALL[name](TP, x, w)


def _jax(name: str) -> Any:
    return lambda x, w: ALL[name](JAX, x, w)


#: (function, w): every function at one w, and the branching ones at a w that takes the other branch
CASES = [(name, 0.7) for name in sorted(ALL)] + [("cond", -0.4), ("switch", -0.4), ("nested", -0.4)]
GRAD_CASES = [(name, w) for name, w in CASES if name in DIFFERENTIABLE]


@functools.cache
def _want(kind: str, name: str, w: float) -> Any:
    """jax's value, gradient or second derivative of `name` (computed once for both backends)."""
    with jax.enable_x64(True):
        if kind == "value":
            return np.asarray(_jax(name)(X, w)), np.asarray(_jax(name)(X * 2, w))
        if kind == "grad":
            return tuple(np.asarray(g) for g in jax.grad(_jax(name), argnums=(0, 1))(X, w))
        return np.asarray(jax.grad(jax.grad(lambda v: _jax(name)(X, v)))(w))


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize(("name", "w"), CASES)
def test_values_eagerly_and_under_jit_agree_with_jax(name, w, backend):
    x, wt = tp.asarray(X), tp.asarray(w, dtype=tp.float64)
    want, want_doubled = _want("value", name, w)
    _close(_tp(name)(x, wt), want)
    jitted = tp.jit(_tp(name))
    _close(jitted(x, wt), want)
    _close(jitted(tp.asarray(X * 2), wt), want_doubled)  # (the plan again, new values)


@pytest.mark.parametrize(("name", "w"), GRAD_CASES)
def test_gradients_agree_with_jax(name, w, backend):
    x, wt = tp.asarray(X), tp.asarray(w, dtype=tp.float64)
    want = _want("grad", name, w)
    grads = [tp.grad(_tp(name), argnums=(0, 1)), tp.jit(tp.grad(_tp(name), argnums=(0, 1)))]
    if name in ("cond", "nested"):  # (tp.checkpoint: the forward pass run again in the backward one)
        grads.append(tp.grad(tp.checkpoint(_tp(name)), argnums=(0, 1)))
    for grad in grads:
        gx, gw = grad(x, wt)
        _close(gx, want[0])
        _close(gw, want[1])


@pytest.mark.parametrize("name", ["cond", "scan", "nested"])
def test_second_derivatives_agree_with_jax(name, backend):
    x = tp.asarray(X)
    got = tp.grad(tp.grad(lambda w: _tp(name)(x, w)))(tp.asarray(0.7, dtype=tp.float64))
    _close(got, _want("second", name, 0.7))


@pytest.mark.parametrize("name", sorted(ALL))
def test_jvps_agree_with_jax(name, backend):
    t = np.array([0.2, -0.3, 0.5, 0.1])
    out, tangent = tp.jvp(_tp(name), (tp.asarray(X), tp.asarray(0.7, dtype=tp.float64)),
                          (tp.asarray(t), tp.asarray(0.25, dtype=tp.float64)))
    want_out, want_tangent = jax.jvp(_jax(name), (X, 0.7), (t, 0.25))
    _close(out, want_out)
    _close(tangent, want_tangent)


@pytest.mark.parametrize("name", sorted(ALL))
def test_vmap_agrees_with_jax(name, backend):
    """Batched data (one predicate per example in cond, switch and while: every branch runs and
    each example takes its own; a while loop runs until every example is done), then a batched w."""
    got = tp.vmap(_tp(name), in_axes=(0, None))(tp.asarray(XS), tp.asarray(0.7, dtype=tp.float64))
    _close(got, jax.vmap(_jax(name), in_axes=(0, None))(XS, 0.7))
    ws = np.array([0.7, -0.4, 1.3])
    got = tp.vmap(_tp(name), in_axes=(None, 0))(tp.asarray(X), tp.asarray(ws))
    _close(got, jax.vmap(_jax(name), in_axes=(None, 0))(X, ws))


@pytest.mark.parametrize("name", ["cond", "scan_tree", "nested"])
def test_per_example_gradients_under_jit(name, backend):
    """vmap of grad, compiled: what a per-example-gradient training step does."""
    per_example = tp.jit(tp.vmap(tp.grad(_tp(name)), in_axes=(0, None)))
    got = per_example(tp.asarray(XS), tp.asarray(0.7, dtype=tp.float64))
    _close(got, jax.vmap(jax.grad(_jax(name)), in_axes=(0, None))(XS, 0.7))


@pytest.mark.parametrize("name", ["cond", "scan_tree", "while_loop"])
def test_a_backend_without_control_flow_of_its_own_gets_the_generic_kernels(name):
    """The toy backend registers none of Cond, While and Scan: the core's generic kernels run
    its bodies with its own kernels (counted on it)."""
    install_toy_backend()
    with tp.backend_scope("toy") as toy:
        x, w = tp.asarray(X), tp.asarray(0.7, dtype=tp.float64)
        got = _tp(name)(x, w)
        assert got.backend == "toy"
        assert toy.calls["Sin"] + toy.calls["Tanh"] > 0  # (the bodies ran on the toy's kernels)
    _close(got.numpy(), _jax(name)(X, 0.7))
    registered = {k: b for k, b in tp.extend.contributions("tensorplug-core (generic kernels)").items()}
    assert {"Cond/toy", "While/toy", "Scan/toy"} <= set(registered["kernels"])


def test_the_jax_backend_runs_its_own_lax_control_flow():
    tp.extend.start_backend("jax")
    source = {k for k in tp.extend.contributions("tensorplug-backend-jax")["kernels"]}
    assert {"Cond/jax", "While/jax", "Scan/jax"} <= source


@pytest.mark.parametrize("kernel", ["Cond", "While", "Scan"])
def test_the_generic_kernels_pass_the_kit_on_numpy_and_torch(kernel):
    """The kit leaves a backend's generic kernels out of its run (they are the core's): the
    core's own check of them, on the two first-party backends that run them."""
    for backend in ("numpy", "torch"):
        result = tp.testing.opcheck(kernel, backend)
        assert result.ok, result.report()
