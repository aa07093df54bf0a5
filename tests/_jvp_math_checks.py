"""Checks the JVP rule tests share: tensorplug's jvp against jax.jvp of the same function
(float64), a kernel's registered rule against its gradient transposed, and hvp (forward over
reverse) against jax's."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import numpy as np
import pytest

import tensorplug as tp
from tensorplug.autodiff.forward import _transposed
from tensorplug.autodiff.tape import Entry
from tensorplug.registry.jvps import find_jvp
from tensorplug.registry.specs import get_kernel_spec

__all__ = [
    "assert_jvp_matches_jax",
    "assert_rule_matches_transposed",
    "assert_hvp_matches_jax",
    "ON_BOTH_BACKENDS",
    "ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS",
    "RNG",
    "tangent_like",
]

#: a module's marks: its tests on both backends (the conftest's tp_backend fixture), with the
#: core's gradients (the rules that use a kernel's gradient use the core's, not a plugin's)
ON_BOTH_BACKENDS = [pytest.mark.parametrize("tp_backend", ["numpy", "jax"], indirect=True)]
ON_BOTH_BACKENDS_WITH_CORE_GRADIENTS = [*ON_BOTH_BACKENDS, pytest.mark.usefixtures("core_gradients")]
RNG = np.random.default_rng(16)
TOL = 1e-6


def tangent_like(x: np.ndarray) -> np.ndarray:
    """A random tangent of x's shape and dtype, the same for the same x (so that jax's answer
    serves the tests on both backends)."""
    rng = np.random.default_rng(zlib.crc32(np.asarray(x).tobytes()))
    t = rng.standard_normal(x.shape)
    if np.iscomplexobj(x):
        t = t + 1j * rng.standard_normal(x.shape)
    return t.astype(x.dtype)


def _leaves(x: Any) -> list[np.ndarray]:
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [np.asarray(x.numpy() if isinstance(x, tp.Tensor) else x)]


def _assert_close(got: Any, want: Any, what: str) -> None:
    got_leaves, want_leaves = _leaves(got), _leaves(want)
    assert len(got_leaves) == len(want_leaves), what
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        assert g.shape == w.shape, f"{what} {i}: shape {g.shape}, jax {w.shape}"
        np.testing.assert_allclose(g, w, rtol=TOL, atol=TOL, err_msg=f"{what} {i}")


def assert_jvp_matches_jax(
    ours: Callable[..., Any],
    theirs: Callable[..., Any],
    primals: Sequence[np.ndarray],
    tangents: Sequence[np.ndarray] | None = None,
) -> None:
    """tp.jvp(ours) and jax.jvp(theirs) agree at `primals` along `tangents` (random if None)."""
    tangents = [tangent_like(p) for p in primals] if tangents is None else list(tangents)
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
                theirs,
                tuple(jax.numpy.asarray(p) for p in primals),
                tuple(jax.numpy.asarray(t) for t in tangents),
            )
            _REFERENCES[key] = (_leaves(found[0]), _leaves(found[1]))
    return _REFERENCES[key]


def assert_hvp_matches_jax(ours: Callable[..., Any], theirs: Callable[..., Any], x: np.ndarray) -> None:
    """tp.hvp of scalar `ours` and jax's forward-over-reverse hvp of `theirs` agree at x."""
    v = tangent_like(x)
    (got,) = tp.hvp(ours, (tp.asarray(x),), (tp.asarray(v),))
    with jax.enable_x64(True):
        want = jax.jvp(jax.grad(theirs), (jax.numpy.asarray(x),), (jax.numpy.asarray(v),))[1]
        _assert_close(got, want, "hvp")


def assert_rule_matches_transposed(
    name: str,
    inputs: Sequence[np.ndarray],
    attrs: Mapping[str, Any],
    with_tangent: Sequence[bool] | None = None,
) -> None:
    """Kernel `name`'s registered JVP rule gives the tangents its gradient transposed gives
    (random tangents on the floating inputs, or on those `with_tangent` marks)."""
    rule = find_jvp(name)
    assert rule is not None, f"no JVP rule registered for {name}"
    spec = get_kernel_spec(name)
    attrs = spec.normalize_attrs(dict(attrs))
    xs = tuple(tp.asarray(x) for x in inputs)
    result = tp.run_kernel(name, xs, attrs)
    outputs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    marks = [x.dtype.is_inexact for x in xs] if with_tangent is None else list(with_tangent)
    tangents = tuple(
        tp.asarray(tangent_like(np.asarray(x.numpy()))) if m else None for x, m in zip(xs, marks)
    )
    got = rule.jvp_func(xs, tangents, outputs, attrs)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    want = _transposed(Entry(name, xs, attrs, outputs), tangents)
    assert len(got) == len(want) == len(outputs)
    for i, (g, w, o) in enumerate(zip(got, want, outputs)):
        g = np.zeros(o.shape) if g is None else np.asarray(g.numpy())
        w = np.zeros(o.shape) if w is None else np.asarray(w.numpy())
        np.testing.assert_allclose(g, w, rtol=TOL, atol=TOL, err_msg=f"{name} output {i}")
