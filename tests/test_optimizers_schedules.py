"""tp.optimizers.schedules against their formulas (numpy, written from Keras's and PyTorch's
documentation), gradient clipping against numpy, and both inside training steps, eagerly and
under tp.jit on the numpy and jax backends."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp
from tensorplug import optimizers
from tensorplug.optimizers import schedules
from test_optimizers_family import B0, W0, X, Y, reference, sgd, train

STEPS = range(1, 13)  # the optimizer's step numbers; t = step - 1 updates done before


def keras_cosine(t: int, initial: float, decay_steps: int, alpha: float) -> float:
    t = min(t, decay_steps)
    return initial * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * t / decay_steps)) + alpha)


CASES = [
    ("step_decay", schedules.step_decay(0.5, 3, 0.1), lambda t: 0.5 * 0.1 ** (t // 3)),
    ("piecewise_constant", schedules.piecewise_constant([2, 5], [1.0, 0.3, 0.01]),
     lambda t: 1.0 if t <= 2 else 0.3 if t <= 5 else 0.01),
    ("exponential_decay", schedules.exponential_decay(0.2, 4, 0.5), lambda t: 0.2 * 0.5 ** (t / 4)),
    ("exponential_staircase", schedules.exponential_decay(0.2, 4, 0.5, staircase=True),
     lambda t: 0.2 * 0.5 ** (t // 4)),
    ("cosine_decay", schedules.cosine_decay(0.1, 8), lambda t: keras_cosine(t, 0.1, 8, 0.0)),
    ("cosine_decay_alpha", schedules.cosine_decay(0.1, 8, alpha=0.2), lambda t: keras_cosine(t, 0.1, 8, 0.2)),
    ("warmup_constant", schedules.linear_warmup(0.3, 4), lambda t: 0.3 * t / 4 if t < 4 else 0.3),
    ("warmup_cosine", schedules.linear_warmup(schedules.cosine_decay(0.1, 5), 3, start=0.01),
     lambda t: 0.01 + (0.1 - 0.01) * t / 3 if t < 3 else keras_cosine(t - 3, 0.1, 5, 0.0)),
]


@pytest.mark.parametrize(("schedule", "formula"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_schedule_matches_its_formula(schedule, formula) -> None:
    got = [float(schedule(step)) for step in STEPS]
    want = [formula(step - 1) for step in STEPS]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize(("schedule", "formula"), [c[1:] for c in CASES[::2]], ids=[c[0] for c in CASES[::2]])
def test_a_schedule_drives_the_learning_rate_of_each_step(schedule, formula, backend: str, jit: bool) -> None:
    """The step number is traced under tp.jit: one compiled step serves every rate."""
    rates = [formula(t) for t in range(6)]
    sgd_at = lambda p, g, s, t: p - rates[t - 1] * g  # noqa: E731
    got = train(optimizers.SGD(schedule), backend, jit, steps=6)
    for g, w in zip(got, reference(sgd_at, steps=6)):
        np.testing.assert_allclose(g, w, rtol=1e-10)


def test_current_learning_rate_reads_the_schedule() -> None:
    opt = optimizers.SGD(schedules.step_decay(1.0, 2, 0.5))
    assert [opt.current_learning_rate(s) for s in (1, 2, 3, 5)] == [1.0, 1.0, 0.5, 0.25]


@pytest.mark.parametrize(("make", "match"), [
    (lambda: schedules.step_decay(0.0, 3), r"step_decay: initial must be a finite number > 0, got 0.0"),
    (lambda: schedules.step_decay(0.1, 0), r"step_decay: step_size must be"),
    (lambda: schedules.piecewise_constant([3, 2], [1.0, 0.5, 0.1]), "increasing boundaries"),
    (lambda: schedules.piecewise_constant([3], [1.0]), "one value more than boundaries"),
    (lambda: schedules.exponential_decay(0.1, 10, -0.5), "decay_rate must be a finite number > 0"),
    (lambda: schedules.cosine_decay(0.1, 10, alpha=2.0), r"alpha .* must be in \[0, 1\]"),
    (lambda: schedules.linear_warmup("fast", 10), "schedule .a constant rate. must be"),
    (lambda: schedules.linear_warmup(0.1, float("nan")), "warmup_steps must be"),
])
def test_bad_schedule_arguments(make, match: str) -> None:
    with pytest.raises(tp.ArgumentError, match=match):
        make()


# -- clipping ---------------------------------------------------------------------------------
TREE = {"a": np.array([[3.0, -4.0], [1.0, 0.5]]), "b": [np.array([12.0, -0.25]), None], "c": (np.array(2.0),)}


def leaves(tree) -> list[np.ndarray]:
    return [tree["a"], tree["b"][0], tree["c"][0]]


def as_tensors(tree, dtype=None):
    return {"a": tp.asarray(tree["a"], dtype=dtype), "b": [tp.asarray(tree["b"][0], dtype=dtype), None],
            "c": (tp.asarray(tree["c"][0], dtype=dtype),)}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize("max_norm", [1.0, 5.0, 100.0, 0.0])
def test_clip_by_global_norm(max_norm: float, backend: str, jit: bool) -> None:
    tp.set_backend(backend)
    norm = math.sqrt(sum((x ** 2).sum() for x in leaves(TREE)))
    fn = lambda tree: optimizers.clip_by_global_norm(tree, max_norm)  # noqa: E731
    clipped, got_norm = (tp.jit(fn) if jit else fn)(as_tensors(TREE))
    assert clipped["b"][1] is None and isinstance(clipped["c"], tuple) and isinstance(clipped["b"], list)
    np.testing.assert_allclose(float(got_norm), norm, rtol=1e-12)
    scale = min(1.0, max_norm / norm)
    for got, x in zip(leaves(clipped), leaves(TREE)):
        np.testing.assert_allclose(got.numpy(), x * scale, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_clip_keeps_each_leafs_dtype(dtype: str) -> None:
    clipped, _ = optimizers.clip_by_global_norm(as_tensors(TREE, dtype), 1.0)
    by_leaf = optimizers.clip_by_norm(as_tensors(TREE, dtype), 1.0)
    by_value = optimizers.clip_by_value(as_tensors(TREE, dtype), 1.0)
    for tree in (clipped, by_leaf, by_value):
        assert {t.dtype for t in leaves(tree)} == {getattr(tp, dtype)}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_clip_by_norm_and_by_value(backend: str, jit: bool) -> None:
    tp.set_backend(backend)
    both = lambda tree: (optimizers.clip_by_norm(tree, 2.0), optimizers.clip_by_value(tree, 1.5))  # noqa: E731
    by_norm, by_value = (tp.jit(both) if jit else both)(as_tensors(TREE))
    for got, x in zip(leaves(by_norm), leaves(TREE)):
        np.testing.assert_allclose(got.numpy(), x * min(1.0, 2.0 / np.sqrt((x ** 2).sum())), rtol=1e-12)
    for got, x in zip(leaves(by_value), leaves(TREE)):
        np.testing.assert_array_equal(got.numpy(), np.clip(x, -1.5, 1.5))
    assert by_norm["b"][1] is None and by_value["b"][1] is None
    assert float(optimizers.global_norm(by_norm["a"])) <= 2.0 + 1e-12


@pytest.mark.parametrize(("call", "match"), [
    (lambda: optimizers.clip_by_global_norm([], -1.0),
     "clip_by_global_norm: max_norm must be a finite number >= 0"),
    (lambda: optimizers.clip_by_norm([], float("inf")), "clip_by_norm: max_norm must be"),
    (lambda: optimizers.clip_by_value([], None),
     r"clip_by_value: clip_value must be .*pass e.g. clip_value=1.0"),
])
def test_bad_clipping_arguments(call, match: str) -> None:
    with pytest.raises(tp.ArgumentError, match=match):
        call()


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize(("clip", "rule"), [
    ({"clip_norm": 0.3}, sgd(0.1, 0.9)),
    ({"clip_value": 0.05}, sgd(0.1, 0.9)),
    ({"clip_value": 0.2, "clip_norm": 0.25}, sgd(0.1, 0.9)),
], ids=["norm", "value", "both"])
def test_an_optimizer_clips_its_gradients(clip: dict, rule, backend: str, jit: bool) -> None:
    got = train(optimizers.SGD(0.1, momentum=0.9, **clip), backend, jit)
    want = reference(rule, **clip)
    unclipped = reference(rule)
    for g, w, u in zip(got, want, unclipped):
        np.testing.assert_allclose(g, w, rtol=1e-10)
        assert not np.allclose(w, u)  # (the clipping bites in this problem)
    assert optimizers.SGD(0.1, **clip).get_config() == {"learning_rate": 0.1, "momentum": 0.0,
                                                        "nesterov": False, **clip}


def test_clipping_is_usable_in_a_functional_step() -> None:
    """The documented way to clip otherwise: clip the gradients, then update."""
    x, y = tp.asarray(X), tp.asarray(Y)
    opt = optimizers.SGD(0.1)
    loss = lambda p: tp.mean((x @ p[0] + p[1] - y) ** 2)  # noqa: E731
    params = [tp.asarray(W0), tp.asarray(B0)]
    clipped, _ = optimizers.clip_by_global_norm(tp.grad(loss)(params), 0.3)
    params = opt.update(params, clipped)
    want = reference(sgd(0.1), steps=1, clip_norm=0.3)
    np.testing.assert_allclose(params[0].numpy(), want[0], rtol=1e-12)


def test_the_global_norm_of_complex_leaves_is_their_modulus() -> None:
    tree = [tp.asarray(np.array([3 + 4j, 1j])), tp.asarray(np.array([[2.0]], np.float32))]
    assert float(optimizers.global_norm(tree)) == pytest.approx(np.sqrt(25 + 1 + 4), rel=1e-12)
    clipped, _ = optimizers.clip_by_global_norm(tree, 1.0)
    np.testing.assert_allclose(clipped[0].numpy(), np.array([3 + 4j, 1j]) / np.sqrt(30), rtol=1e-12)
