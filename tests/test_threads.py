"""Threads: the active backend and the tapes are per thread. Two threads with different
backends (numpy and the toy backend, whose boxed arrays make any mix-up fail loudly) run
gradients at the same time and get correct, independent results."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import tensorplug as tp
from _toy_backend import install_toy_backend
from tensorplug.profiler import count_kernels

ROUNDS = 300


@pytest.fixture
def fast_switching():
    """Switch threads as often as possible, so that the two workers interleave finely."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _expected(x: np.ndarray, w: float) -> tuple[float, np.ndarray]:
    t = np.tanh(x * w)
    return float(np.sum(t ** 2)), 2 * t * (1 - t ** 2) * w


def _worker(backend: str, scale: float, barrier: threading.Barrier, results: dict, errors: list) -> None:
    try:
        tp.set_backend(backend)
        barrier.wait(10)
        w = 0.5 * scale
        calls_by_backend: set[str] = set()
        for i in range(ROUNDS):
            x_host = np.array([0.1 * i % 1.0, -0.3, scale], dtype=np.float32)
            with count_kernels() as calls:
                value, g = tp.value_and_grad(lambda x: tp.sum(tp.tanh(x * w) ** 2))(tp.asarray(x_host))
            calls_by_backend.update(b for _, b in calls.counts)
            expected_value, expected_grad = _expected(x_host.astype(np.float64), w)
            assert tp.get_backend() == backend
            assert value.backend == backend and g.backend == backend, (value.backend, g.backend)
            np.testing.assert_allclose(value.item(), expected_value, rtol=1e-5)
            np.testing.assert_allclose(g.numpy(), expected_grad, rtol=1e-4, atol=1e-6)
            if i == ROUNDS // 2:
                barrier.wait(10)  # both are mid-way: still overlapping
        results[backend] = calls_by_backend
    except BaseException as exc:  # noqa: BLE001 - reported by the main thread
        errors.append((backend, exc))
        barrier.abort()


def test_two_threads_with_different_backends_and_tapes(fast_switching):
    install_toy_backend("toy")
    tp.set_backend("numpy")
    barrier = threading.Barrier(2)
    results: dict = {}
    errors: list = []
    threads = [
        threading.Thread(target=_worker, args=("numpy", 1.0, barrier, results, errors)),
        threading.Thread(target=_worker, args=("toy", 2.0, barrier, results, errors)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors[0][1]
    # each thread's kernels ran on its own backend only, and were counted by its own recorder
    assert results == {"numpy": {"numpy"}, "toy": {"toy"}}
    toy_backend = tp.extend.start_backend("toy")
    assert toy_backend.calls["Tanh"] >= ROUNDS
    assert tp.get_backend() == "numpy"  # the main thread is unaffected


def test_a_tape_in_one_thread_does_not_record_another_threads_ops():
    install_toy_backend("toy")
    started, finish = threading.Event(), threading.Event()
    other_results = []

    def other():
        tp.set_backend("toy")
        started.set()
        finish.wait(10)
        y = tp.asarray(3.0)
        for _ in range(50):
            y = y * 1.0
        other_results.append(y.item())

    worker = threading.Thread(target=other)
    worker.start()
    started.wait(10)

    def f(x):
        finish.set()  # the other thread computes while this tape records
        out = x
        for _ in range(200):
            out = out * 1.0
        return out * x

    g = tp.grad(f)(2.0)
    worker.join(10)
    assert g.item() == 4.0 and other_results == [3.0]


def test_backend_scope_in_a_thread_leaves_other_threads_alone():
    install_toy_backend("toy")
    tp.set_backend("numpy")
    inside, done = threading.Event(), threading.Event()
    seen = []

    def other():
        with tp.backend_scope("toy"):
            inside.set()
            done.wait(10)
            seen.append(tp.asarray(1.0).backend)

    worker = threading.Thread(target=other)
    worker.start()
    inside.wait(10)
    assert tp.get_backend() == "numpy" and tp.asarray(1.0).backend == "numpy"
    done.set()
    worker.join(10)
    assert seen == ["toy"]
