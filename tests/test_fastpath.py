"""Ops' fast paths (``tensorplug._fastpath``): once the engine knows a kernel's direct function,
an op's common call (Tensors of an accepted dtype on the active backend, no tape) runs it
without the engine's dispatch frame; every other call is the op's own, with the same results,
errors and gradients."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
import tensorplug.engine as engine
from tensorplug.errors import KernelError, ShapeError
from tensorplug.extend import KernelConfig, register_kernel

pytestmark = pytest.mark.usefixtures("numpy_backend")


@pytest.fixture
def numpy_backend():
    with tp.backend_scope("numpy"):
        yield tp.extend.start_backend("numpy")


def _dispatches(fn: Callable[[], Any]) -> tuple[Any, int]:
    """fn()'s result and how many times it entered the engine's dispatch function."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        code = frame.f_code
        if event == "call" and code.co_name == "call" and code.co_filename == engine.__file__:
            count += 1

    sys.setprofile(profile)
    try:
        out = fn()
    finally:
        sys.setprofile(None)
    return out, count


def _exp_kernel(calls: list[str], direct: Callable[[Any], Any], dtypes: tuple = (tp.float32,)):
    def kernel(inputs, attrs, backend):
        calls.append("kernel")
        return np.exp(inputs[0])

    def logged(x):
        calls.append("direct")
        return direct(x)

    kernel.direct, kernel.direct_attrs, kernel.direct_dtypes = {(): logged}, (), dtypes
    return kernel


def test_after_the_first_call_the_direct_function_runs_without_the_engine():
    calls: list[str] = []
    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel(calls, np.exp)), override=True)
    x = tp.asarray([0.0, 1.0], dtype=tp.float32)
    first, n_first = _dispatches(lambda: tp.exp(x))
    second, n_second = _dispatches(lambda: tp.exp(x))
    assert (n_first, n_second) == (1, 0) and calls == ["direct", "direct"]
    for out in (first, second):
        assert out.dtype == tp.float32 and out.backend == "numpy"
        np.testing.assert_allclose(out.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)


def test_the_numpy_backends_arithmetic_takes_the_fast_path():
    a = tp.asarray([1.0, 2.0], dtype=tp.float32)
    b = tp.asarray([3.0, 5.0], dtype=tp.float32)
    for fn in (lambda: tp.add(a, b), lambda: a + b, lambda: a * b):
        fn()
        out, n = _dispatches(fn)
        assert n == 0 and out.dtype == tp.float32
    assert (a + b).tolist() == [4.0, 7.0] and (a * b).tolist() == [3.0, 10.0]


def test_calls_the_op_would_change_go_through_the_op():
    calls: list[str] = []
    # a direct function offered for int64 too: exp's op casts integers to float first, so the
    # fast path must not hand it an int64 tensor
    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel(calls, np.exp, (tp.float32, tp.int64))),
                    override=True)
    tp.exp(tp.asarray([0.0], dtype=tp.float32))
    out, n = _dispatches(lambda: tp.exp(tp.asarray([1], dtype=tp.int64)))
    assert out.dtype == tp.float32 and n >= 1
    a = tp.asarray([1.0, 2.0], dtype=tp.float32)
    tp.add(a, a)
    for result, expected in ((tp.add(a, 1.0), [2.0, 3.0]), (tp.add([1.0, 1.0], a), [2.0, 3.0]),
                             (tp.add(a, tp.asarray([1, 1], dtype=tp.int32)), [2.0, 3.0])):
        assert result.dtype == tp.float32 and result.tolist() == expected
    bools = tp.asarray([True, False])
    with pytest.raises(tp.errors.DTypeError, match="add does not accept bool"):
        tp.add(bools, bools)


def test_bad_shapes_after_a_warm_call_are_explained():
    a = tp.asarray([1.0, 2.0], dtype=tp.float32)
    tp.add(a, a)
    with pytest.raises(ShapeError, match="Add"):
        tp.add(a, tp.asarray([1.0, 2.0, 3.0], dtype=tp.float32))


def test_a_tape_sees_every_call():
    calls: list[str] = []
    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel(calls, np.exp)), override=True)
    x = tp.asarray([0.5, 1.0], dtype=tp.float32)
    tp.exp(x), tp.exp(x)  # warm
    grad = tp.grad(lambda v: tp.sum(tp.exp(v) * v))(x)
    np.testing.assert_allclose(grad.numpy(), np.exp([0.5, 1.0]) * (1 + np.array([0.5, 1.0])), rtol=1e-6)


def test_a_kernel_registered_later_replaces_the_known_direct_function():
    first: list[str] = []
    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel(first, np.exp)), override=True)
    x = tp.asarray([0.0], dtype=tp.float32)
    tp.exp(x), tp.exp(x)
    second: list[str] = []
    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel(second, lambda v: np.exp(v) + 1)), override=True)
    assert tp.exp(x).tolist() == [2.0] and tp.exp(x).tolist() == [2.0]
    assert first == ["direct", "direct"] and second == ["direct", "direct"]


def test_turning_direct_calls_off_takes_effect_at_once(numpy_backend, monkeypatch):
    calls: list[str] = []
    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel(calls, np.exp)), override=True)
    x = tp.asarray([0.0], dtype=tp.float32)
    tp.exp(x), tp.exp(x)
    monkeypatch.setattr(numpy_backend, "direct_kernels", False)
    assert tp.exp(x).tolist() == [1.0]
    assert calls == ["direct", "direct", "kernel"]


def test_a_direct_function_that_raises_falls_back_to_the_kernel():
    calls: list[str] = []

    def picky(x):
        if x.size > 1:
            raise ValueError("direct path bug")
        return np.exp(x)

    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel(calls, picky)), override=True)
    tp.exp(tp.asarray([0.0], dtype=tp.float32))
    out = tp.exp(tp.asarray([0.0, 0.0], dtype=tp.float32))
    assert out.tolist() == [1.0, 1.0] and calls[-2:] == ["direct", "kernel"]

    def failing_kernel(inputs, attrs, backend):
        raise RuntimeError("kernel bug")

    failing_kernel.direct, failing_kernel.direct_attrs = {(): picky}, ()
    failing_kernel.direct_dtypes = (tp.float32,)
    register_kernel(KernelConfig("Exp", "numpy", failing_kernel), override=True)
    tp.exp(tp.asarray([0.0], dtype=tp.float32))
    with pytest.raises(KernelError, match="Kernel 'Exp' on backend 'numpy'.*kernel bug"):
        tp.exp(tp.asarray([0.0, 0.0], dtype=tp.float32))


def _matmul_kernel(ranks: list[int], checked: bool):
    def plain(x, y):
        ranks.append(min(x.ndim, y.ndim))
        if checked and min(x.ndim, y.ndim) < 2:
            raise ValueError("MatMul takes 2-d and up")
        return x @ y

    def kernel(inputs, attrs, backend):
        return inputs[0] @ inputs[1]

    kernel.direct, kernel.direct_attrs = {(False, False): plain}, ("transpose_x", "transpose_y")
    kernel.direct_dtypes, kernel.direct_checked = (tp.float32,), checked
    return kernel


@pytest.mark.parametrize("checked", [False, True])
def test_matmul_hands_its_kernel_only_matrices(checked):
    ranks: list[int] = []
    register_kernel(KernelConfig("MatMul", "numpy", _matmul_kernel(ranks, checked)), override=True)
    m = tp.asarray(np.arange(6, dtype=np.float32).reshape(3, 2))
    v = tp.asarray(np.arange(3, dtype=np.float32))
    mt = m.T
    tp.matmul(mt, m)
    _, n = _dispatches(lambda: tp.matmul(mt, m))
    assert n == 0
    for _ in range(3):
        out = tp.matmul(v, m)  # a vector: the op makes it a row, then drops that axis
        assert out.shape == (2,) and out.tolist() == (v.numpy() @ m.numpy()).tolist()
    # unchecked direct functions never see the vector; checked ones refuse it once (the op
    # then runs), and the fast path checks ranks itself from then on
    assert ranks.count(1) == (1 if checked else 0)


def test_op_names_and_docs_are_the_ops_own():
    assert tp.exp.__name__ == "exp" and tp.add.__name__ == "add" and tp.matmul.__name__ == "matmul"
    assert "Matrix product" in (tp.matmul.__doc__ or "")


def test_the_jax_backend_takes_the_fast_path_with_the_same_results():
    with tp.backend_scope("jax"):
        m_np = np.arange(6, dtype=np.float32).reshape(2, 3)
        m = tp.asarray(m_np)
        v = tp.asarray(np.arange(3, dtype=np.float32))
        mt = m.T
        for fn in (lambda: tp.exp(m), lambda: m + m, lambda: tp.matmul(m, mt)):
            fn()
            out, n = _dispatches(fn)
            assert n == 0 and out.backend == "jax" and out.dtype == tp.float32
        np.testing.assert_allclose(tp.exp(m).numpy(), np.exp(m_np), rtol=1e-6)
        np.testing.assert_allclose(tp.matmul(m, m.T).numpy(), m_np @ m_np.T, rtol=1e-6)
        for _ in range(3):  # (jax's direct MatMul refuses vectors once, when traced)
            np.testing.assert_allclose(tp.matmul(m, v).numpy(), m_np @ np.arange(3), rtol=1e-6)
        assert tp.matmul(m, v).shape == (2,)


def test_only_the_accepted_dtypes_take_the_fast_path():
    from tensorplug._fastpath import fast_unary
    from tensorplug.ops._convert import caller

    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel([], np.exp, (tp.float32, tp.int64))),
                    override=True)
    call = caller("Exp")
    seen: list[Any] = []

    def op(x):
        seen.append(x.dtype)
        return call((x,), {})

    fast = fast_unary(call, (tp.float32,), op)
    call((tp.asarray([1], dtype=tp.int64),), {})  # the engine knows int64's direct output too
    for dtype in (tp.float32, tp.int64):
        x = tp.asarray([1], dtype=dtype)
        fast(x), fast(x)
    assert seen == [tp.float32, tp.int64, tp.int64]  # a known float32 call skips the op


def test_a_call_with_nothing_to_learn_does_not_ask_the_engine_again():
    from tensorplug._fastpath import fast_unary
    from tensorplug.ops._convert import caller

    # direct functions for float32 and int32; int32 never called, so its output stays unknown
    register_kernel(KernelConfig("Exp", "numpy", _exp_kernel([], np.exp, (tp.float32, tp.int32))),
                    override=True)
    call = caller("Exp")
    asked = [0]
    state = call.direct_state

    def counting():
        asked[0] += 1
        return state()

    call.direct_state = counting
    fast = fast_unary(call, (tp.float32, tp.float64, tp.int32), lambda x: call((x,), {}))
    x32, x64 = tp.asarray([0.0], dtype=tp.float32), tp.asarray([0.0], dtype=tp.float64)
    fast(x32), fast(x32)
    before = asked[0]
    for _ in range(3):
        assert fast(x64).dtype == tp.float64  # no direct function for it: nothing to learn
    assert asked[0] == before
