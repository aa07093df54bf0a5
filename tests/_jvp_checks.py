"""Checks shared by the JVP rule tests (tests/test_jvps_*.py): ``tp.jvp`` of a function against
``jax.jvp`` of the same function written in jax (float64; jax's answers cached, so that the tests
on both backends compute each once), a kernel's JVP rule against its gradient transposed (the
fallback the rule replaces), and ``tp.hvp`` (forward over reverse) against jax's.

A module runs its tests on both first-party backends either by its marks (``pytestmark =
ON_BOTH_BACKENDS``, or ``ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS``: through the conftest's
``tp_backend``) or by importing the ``backend`` fixture (autouse), which a test narrows to one
backend with ``@pytest.mark.parametrize("backend", ["numpy"], indirect=True)``."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jnp
from tensorplug.registry.jvps import find_jvp
from tensorplug.registry.specs import get_kernel_spec
from tensorplug.transforms.autodiff.forward import _transposed
from tensorplug.transforms.autodiff.tape import Entry

__all__ = [
    "ON_BOTH_BACKENDS",
    "ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS",
    "RNG",
    "assert_hvp_matches_jax",
    "assert_jvp_matches_jax",
    "assert_rule_matches_transposed",
    "backend",
    "random",
    "tangent_like",
]

BACKENDS = ("numpy", "jax")
#: a module's marks: its tests on both backends (the conftest's tp_backend fixture), with the
#: core's gradients (the rules that use a kernel's gradient use the core's, not a plugin's)
ON_BOTH_BACKENDS = [pytest.mark.parametrize("tp_backend", BACKENDS, indirect=True)]
ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS = [*ON_BOTH_BACKENDS, pytest.mark.usefixtures("core_gradients")]
RNG = np.random.default_rng(16)
TOL = 1e-6


@pytest.fixture(params=BACKENDS, autouse=True)
def backend(request):
    """Each test of a module that imports this runs on each first-party backend."""
    tp.set_backend(request.param)
    return request.param


def random(shape: tuple[int, ...], seed: int = 0, dtype: Any = np.float64) -> np.ndarray:
    """Standard normal values of `shape` (complex: real and imaginary parts both)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def tangent_like(x: np.ndarray) -> np.ndarray:
    """A random tangent of x's shape and dtype, the same for the same x (so that jax's answer
    serves the tests on both backends)."""
    x = np.asarray(x)
    rng = np.random.default_rng(zlib.crc32(x.tobytes()))
    t = rng.standard_normal(x.shape)
    if np.iscomplexobj(x):
        t = t + 1j * rng.standard_normal(x.shape)
    return t.astype(x.dtype)


def _leaves(tree: Any) -> list[np.ndarray]:
    leaves = jax.tree_util.tree_leaves(tree, is_leaf=lambda v: isinstance(v, tp.Tensor))
    return [np.asarray(leaf.numpy() if isinstance(leaf, tp.Tensor) else leaf) for leaf in leaves]


def _assert_close(got: Any, want: Any, what: str) -> None:
    got_leaves, want_leaves = _leaves(got), _leaves(want)
    assert len(got_leaves) == len(want_leaves), f"{what}: {len(got_leaves)} leaves, jax {len(want_leaves)}"
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        assert g.shape == w.shape, f"{what} {i}: shape {g.shape}, jax {w.shape}"
        np.testing.assert_allclose(g, w, rtol=TOL, atol=TOL, err_msg=f"{what} {i}")


def assert_jvp_matches_jax(ours: Callable[..., Any], theirs: Callable[..., Any], *primals: Any) -> None:
    """tp.jvp(ours) and jax.jvp(theirs) agree at `primals` (numpy arrays) along random tangents
    (`tangent_like`)."""
    primals = tuple(np.asarray(p) for p in primals)
    tangents = tuple(tangent_like(p) for p in primals)
    out, tangent_out = tp.jvp(
        ours, tuple(tp.asarray(p) for p in primals), tuple(tp.asarray(t) for t in tangents)
    )
    want_out, want_tangent = _jax_jvp(theirs, primals, tangents)
    _assert_close(out, want_out, "output")
    _assert_close(tangent_out, want_tangent, "tangent")


_REFERENCES: dict[Any, Any] = {}  # jax's answers, computed once for the tests on both backends


def _jax_jvp(
    theirs: Callable[..., Any], primals: Sequence[np.ndarray], tangents: Sequence[np.ndarray]
) -> Any:
    key = (theirs, *((a.shape, a.dtype.str, a.tobytes()) for a in (*primals, *tangents)))
    if key not in _REFERENCES:
        with jax.enable_x64(True):
            found = jax.jvp(
                theirs, tuple(jnp.asarray(p) for p in primals), tuple(jnp.asarray(t) for t in tangents)
            )
            _REFERENCES[key] = (_leaves(found[0]), _leaves(found[1]))
    return _REFERENCES[key]


def assert_hvp_matches_jax(ours: Callable[..., Any], theirs: Callable[..., Any], x: np.ndarray) -> None:
    """tp.hvp of scalar `ours` and jax's forward-over-reverse hvp of `theirs` agree at x, along
    a random v: through the JVP rules of the gradient's kernels."""
    v = tangent_like(x)
    (got,) = tp.hvp(ours, (tp.asarray(x),), (tp.asarray(v),))
    with jax.enable_x64(True):
        want = jax.jvp(jax.grad(theirs), (jnp.asarray(x),), (jnp.asarray(v),))[1]
        _assert_close(got, want, "hvp")


def assert_rule_matches_transposed(
    name: str,
    inputs: Sequence[Any],
    attrs: Mapping[str, Any] | None = None,
    differentiable: Sequence[int] | None = None,
) -> None:
    """Kernel `name`'s registered JVP rule on `inputs` (numpy arrays) gives the tangents of its
    floating outputs that its gradient transposed gives (random tangents on the floating
    inputs, or on the positions in `differentiable`)."""
    rule = find_jvp(name)
    assert rule is not None, f"no JVP rule registered for {name}"
    attrs = get_kernel_spec(name).normalize_attrs(dict(attrs or {}))
    xs = tuple(tp.asarray(x) for x in inputs)
    result = tp.run_kernel(name, xs, attrs)
    outputs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    tangents = tuple(
        tp.asarray(tangent_like(x.numpy()))
        if (x.dtype.is_inexact if differentiable is None else i in differentiable) else None
        for i, x in enumerate(xs)
    )
    got = rule.jvp_func(xs, tangents, outputs, attrs)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    want = _transposed(Entry(name, xs, attrs, outputs), tangents)
    assert len(got) == len(want) == len(outputs)
    for i, (g, w, o) in enumerate(zip(got, want, outputs)):
        if not o.dtype.is_inexact:
            continue
        g = np.zeros(o.shape) if g is None else np.asarray(g.numpy())
        w = np.zeros(o.shape) if w is None else np.asarray(w.numpy())
        np.testing.assert_allclose(g, w, rtol=TOL, atol=TOL, err_msg=f"{name} output {i}")
