"""Checks shared by the JVP rule tests (tests/test_jvps_*.py), on each first-party backend (the
`backend` fixture, autouse where imported): ``tp.jvp`` of a function against ``jax.jvp`` of
the same function written in jax.numpy / jax.lax, a kernel's JVP rule against its transposed
gradient (the fallback the rule replaces), and ``tp.jvp`` of ``tp.grad`` (a Hessian-vector
product) against jax's."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jnp
from tensorplug.autodiff.forward import _transposed
from tensorplug.autodiff.tape import Entry
from tensorplug.registry.jvps import find_jvp
from tensorplug.registry.specs import get_kernel_spec

__all__ = ["backend", "random", "tangents_for", "check_jvp", "check_rule", "check_hvp"]

BACKENDS = ("numpy", "jax")
TOL = dict(rtol=1e-6, atol=1e-6)


@pytest.fixture(params=BACKENDS, autouse=True)
def backend(request):
    """Each test of a module that imports this runs on each first-party backend."""
    tp.set_backend(request.param)
    return request.param


def random(shape, seed=0, dtype=np.float64):
    """Standard normal values of `shape` (complex: real and imaginary parts both)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def tangents_for(primals, seed=1):
    return tuple(random(np.shape(p), seed + i, np.asarray(p).dtype) for i, p in enumerate(primals))


def _leaves(tree):
    return [np.asarray(leaf.numpy() if isinstance(leaf, tp.Tensor) else leaf)
            for leaf in jax.tree_util.tree_leaves(tree, is_leaf=lambda v: isinstance(v, tp.Tensor))]


def _close(got, want, what):
    got, want = _leaves(got), _leaves(want)
    assert len(got) == len(want), f"{what}: {len(got)} leaves, jax {len(want)}"
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"{what}: shape {g.shape}, jax {w.shape}"
        np.testing.assert_allclose(g, w, **TOL, err_msg=what)


def check_jvp(f, f_jax, *primals, seed=1):
    """tp.jvp(f) at the (floating) `primals` along random tangents equals jax.jvp(f_jax)."""
    tangents = tangents_for(primals, seed)
    out, t_out = tp.jvp(f, tuple(tp.asarray(p) for p in primals), tangents)
    want_out, want_t = jax.jvp(f_jax, tuple(jnp.asarray(p) for p in primals),
                               tuple(jnp.asarray(t) for t in tangents))
    _close(out, want_out, "primal output")
    _close(t_out, want_t, "tangent")


def check_hvp(f, f_jax, x, seed=3):
    """tp.jvp of tp.grad(f) (f scalar) at x along a random v equals jax's: forward over reverse,
    through the JVP rules of the gradient's kernels."""
    (v,) = tangents_for((x,), seed)
    got = tp.jvp(tp.grad(f), (tp.asarray(x),), (v,))[1]
    want = jax.jvp(jax.grad(f_jax), (jnp.asarray(x),), (jnp.asarray(v),))[1]
    _close(got, want, "hvp")


def check_rule(name, inputs, attrs=None, differentiable=None, seed=5):
    """Kernel `name`'s JVP rule on `inputs` (numpy arrays; tangents on the floating ones, or on
    the positions in `differentiable`) equals its gradient transposed."""
    spec = get_kernel_spec(name)
    attrs = spec.normalize_attrs(dict(attrs or {}))
    xs = tuple(tp.asarray(x) for x in inputs)
    result = tp.run_kernel(name, list(xs), attrs)
    outputs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    tangents = tuple(
        tp.asarray(random(x.shape, seed + i, x.dtype.numpy))
        if (x.dtype.is_inexact if differentiable is None else i in differentiable) else None
        for i, x in enumerate(xs))
    found = find_jvp(name)
    assert found is not None, f"{name} has no JVP rule"
    got = found.jvp_func(xs, tangents, outputs, attrs)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    want = _transposed(Entry(name, xs, attrs, outputs), tangents)
    assert len(got) == len(outputs)
    for o, g, w in zip(outputs, got, want):
        if not o.dtype.is_inexact:
            continue
        g = np.zeros(o.shape) if g is None else g.numpy()
        w = np.zeros(o.shape) if w is None else w.numpy()
        np.testing.assert_allclose(g, w, **TOL, err_msg=name)
