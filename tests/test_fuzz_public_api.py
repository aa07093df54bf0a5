"""Fuzz of the public API: every public callable of ``tp``, ``tp.nn``, ``tp.linalg``, ``tp.fft``
and ``tp.random``, found from the modules themselves and called through its ``inspect.signature``
with bad and edge arguments (None, nan/inf, huge and negative ints, ragged lists, numpy arrays,
tensors of odd dtypes and shapes, strings, dtypes where values belong, ...), on each first-party backend.

Every exception must be a TensorplugError, or the TypeError Python raises when the arguments
do not bind to the signature (such calls are not made). A callable's result that is itself a
function (``tp.grad(f)``, ``tp.jit(f)``, ``tp.custom_grad(f)``) is called once with a tensor.
Huge sizes are among the arguments: they must be refused before anything is allocated.

Bounded for CI (deterministic, a few examples per callable); ``TENSORPLUG_FUZZ_EXAMPLES=N``
raises the number of examples per callable for a longer run by hand.
"""

from __future__ import annotations

import contextvars
import inspect
import math
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorplug as tp
from tensorplug.core.runtime import current

EXAMPLES = int(os.environ.get("TENSORPLUG_FUZZ_EXAMPLES", "20"))
NAMESPACES = {"tp": tp, "tp.nn": tp.nn, "tp.random": tp.random, "tp.linalg": tp.linalg, "tp.fft": tp.fft}
NAMESPACES["tp.losses"] = tp.losses
NAMESPACES["tp.sparse"] = tp.sparse
NAMESPACES["tp.image"] = tp.image
NAMESPACES["tp.data"] = tp.data
NAMESPACES["tp.metrics"] = tp.metrics

# Public callables left out, each with its reason.
EXCLUDED = {
    "tp.save": "writes the file it is given (here: into the working tree); test_saving.py checks its errors",
    **{f"tp.linalg.{name}": "a named tuple tp.linalg returns; it is not called to compute"
       for name in ("EighResult", "QRResult", "SVDResult", "SlogdetResult")},
}


def _public_callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    for prefix, module in NAMESPACES.items():
        for name in getattr(module, "__all__", dir(module)):
            obj = getattr(module, name, None)
            qualified = f"{prefix}.{name}"
            if name.startswith("_") or not callable(obj) or qualified in EXCLUDED:
                continue
            if isinstance(obj, type) and issubclass(obj, BaseException):
                continue  # error types: raised by tensorplug, not called by users to compute
            yield qualified, obj


CALLABLES = dict(_public_callables())


def _f_sum(*args: Any, **kwargs: Any) -> Any:
    return tp.sum(args[0] * args[0]) if args else tp.asarray(0.0)


def _f_float(*args: Any, **kwargs: Any) -> Any:
    return 3.0


def _f_pair(*args: Any, **kwargs: Any) -> Any:
    return (3.0, lambda d: d)


def _f_tensor_pair(*args: Any, **kwargs: Any) -> Any:
    x = args[0] if args else tp.asarray(1.0)
    return (x, lambda d: (d,))


# Values by name, made on the active backend when drawn (tensors need one).
VALUES: dict[str, Callable[[], Any]] = {
    "None": lambda: None,
    "true": lambda: True,
    "0": lambda: 0,
    "1": lambda: 1,
    "2": lambda: 2,
    "-1": lambda: -1,
    "-3": lambda: -3,
    "2**40": lambda: 2**40,
    "2**63": lambda: 2**63,
    "-2**63": lambda: -(2**63),
    "10**30": lambda: 10**30,
    "10**400": lambda: 10**400,  # (past any float)
    "0.5": lambda: 0.5,
    "nan": lambda: math.nan,
    "inf": lambda: math.inf,
    "-inf": lambda: -math.inf,
    "'numpy'": lambda: "numpy",
    "'abc'": lambda: "abc",
    "''": lambda: "",
    "b'x'": lambda: b"x",
    "1j": lambda: 1j,
    "()": lambda: (),
    "(2,)": lambda: (2,),
    "(2, 3)": lambda: (2, 3),
    "(0,)": lambda: (0,),
    "(-1,)": lambda: (-1,),
    "(2**40, 2**40)": lambda: (2**40, 2**40),
    "(2, None)": lambda: (2, None),
    "(0.5,)": lambda: (0.5,),
    "(1,)*70": lambda: (1,) * 70,
    "[1, 2]": lambda: [1, 2],
    "[[1], [2, 3]]": lambda: [[1], [2, 3]],
    "[[1.0, 2.0], [3.0, 4.0]]": lambda: [[1.0, 2.0], [3.0, 4.0]],
    "[None]": lambda: [None],
    "['a']": lambda: ["a"],
    "{}": lambda: {},
    "{'a': 1}": lambda: {"a": 1},
    "object()": lambda: object(),
    "tp.float32": lambda: tp.float32,
    "tp.int32": lambda: tp.int32,
    "tp.bool": lambda: tp.bool,
    "np.float16": lambda: np.float16,
    "'complex64'": lambda: "complex64",
    "np.array([1, 2])": lambda: np.array([1, 2]),
    "np.array(1.5)": lambda: np.array(1.5),
    "np.zeros((2, 3), float32)": lambda: np.zeros((2, 3), np.float32),
    "np.array(['a'])": lambda: np.array(["a"]),
    "np.array([1+2j])": lambda: np.array([1 + 2j]),
    "np.array([None])": lambda: np.array([None]),
    "np.float64(2.0)": lambda: np.float64(2.0),
    "np.int64(2)": lambda: np.int64(2),
    "np.uint64(2**63)": lambda: np.uint64(2**63),
    "x f32[2,3]": lambda: tp.asarray([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]]),
    "x f32[3]": lambda: tp.asarray([0.25, -1.0, 2.0]),
    "x f64[2,2]": lambda: tp.asarray(np.array([[1.0, 2.0], [3.0, 5.0]])),
    "x f32[]": lambda: tp.asarray(2.0),
    "x f32[0]": lambda: tp.zeros((0,)),
    "x f32[2,0,3]": lambda: tp.zeros((2, 0, 3)),
    "x f32 nan/inf": lambda: tp.asarray([math.nan, math.inf, -math.inf]),
    "x i64[3]": lambda: tp.asarray([0, 2, -1]),
    "x i32[2,3]": lambda: tp.asarray(np.array([[1, 0, 2], [3, 1, 0]], np.int32)),
    "x i64[]": lambda: tp.asarray(1),
    "x bool[3]": lambda: tp.asarray([True, False, True]),
    "x i64 big": lambda: tp.asarray([2**62, -(2**62)]),
    "variable": lambda: tp.Variable(tp.asarray([1.0, 2.0])),
    "f: sum": lambda: _f_sum,
    "f: float": lambda: _f_float,
    "f: (3.0, g)": lambda: _f_pair,
    "f: (x, g)": lambda: _f_tensor_pair,
    "print": lambda: print,
}
NAMES = sorted(VALUES)


class _Bound:
    """One drawn call: positional and keyword arguments by value name (for the report)."""

    def __init__(self, args: list[str], kwargs: dict[str, str]) -> None:
        self.args, self.kwargs = args, kwargs

    def __repr__(self) -> str:
        shown = [*self.args, *(f"{k}={v}" for k, v in self.kwargs.items())]
        return f"({', '.join(shown)})"


@st.composite
def calls(draw: Any, fn: Callable[..., Any]) -> _Bound:
    """Arguments for `fn` from its signature: every required parameter, some optional ones."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return _Bound([draw(st.sampled_from(NAMES)) for _ in range(draw(st.integers(0, 3)))], {})
    args: list[str] = []
    kwargs: dict[str, str] = {}
    positional = True  # until a positional parameter is skipped
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            if positional:
                args += [draw(st.sampled_from(NAMES)) for _ in range(draw(st.integers(0, 3)))]
        elif p.kind is p.VAR_KEYWORD:
            if draw(st.booleans()):
                kwargs[draw(st.sampled_from(["axis", "dtype", "foo"]))] = draw(st.sampled_from(NAMES))
        elif p.default is not p.empty and not draw(st.booleans()):
            positional = positional and p.kind is p.KEYWORD_ONLY
        elif p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and positional
                                             and draw(st.booleans())):
            args.append(draw(st.sampled_from(NAMES)))
        else:
            kwargs[p.name] = draw(st.sampled_from(NAMES))
            positional = positional and p.kind is p.KEYWORD_ONLY
    return _Bound(args, kwargs)


def raw_exception(fn: Callable[..., Any], call: _Bound) -> BaseException | None:
    """Call `fn` with `call`'s values (then its result, if a function, with a tensor) and
    return an exception that is not a TensorplugError, or None. Calls that do not bind to the
    signature are not made (Python's own TypeError)."""
    args = [VALUES[n]() for n in call.args]
    kwargs = {k: VALUES[v]() for k, v in call.kwargs.items()}
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return None
    except ValueError:  # no signature to check against
        pass
    runtime = current()
    default = runtime.default_backend
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's RuntimeWarnings are not errors here
            with np.errstate(all="ignore"):
                result = fn(*args, **kwargs)
                if callable(result) and not isinstance(result, (tp.Tensor, type)):
                    result(tp.asarray([1.0, 2.0]))
    except tp.TensorplugError:
        return None
    except Exception as exc:
        return exc
    finally:
        runtime.default_backend = default
    return None


def run_isolated(fn: Callable[..., Any], call: _Bound, backend: str) -> BaseException | None:
    """raw_exception in a copy of this context, with `backend` active: what the call sets
    (tp.set_backend, tp.debug_nans) does not outlive it."""
    def go() -> BaseException | None:
        tp.set_backend(backend)
        return raw_exception(fn, call)
    return contextvars.copy_context().run(go)


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_public_callable_raises_only_tensorplug_errors(name: str, backend: str) -> None:
    fn = CALLABLES[name]
    if backend == "jax":
        pytest.importorskip("jax")

    @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(calls(fn))
    def check(call: _Bound) -> None:
        exc = run_isolated(fn, call, backend)
        if exc is not None:
            raise AssertionError(f"{name}{call!r} on {backend} raised {type(exc).__name__}: {exc}") from exc

    check()


def test_every_namespace_is_fuzzed() -> None:
    """The generated list covers the ops of every namespace (a broken scan would fuzz nothing)."""
    for prefix in NAMESPACES:
        assert any(q.startswith(prefix + ".") for q in CALLABLES), prefix
    expected = {"tp.zeros", "tp.sum", "tp.grad", "tp.set_backend", "tp.nn.one_hot", "tp.random.normal",
                "tp.linalg.cholesky", "tp.fft.fft"}
    assert expected <= set(CALLABLES)
