"""tp.jit on the jax backend: one XLA computation per argument shapes and dtypes, static
arguments, tp.grad and optimizers inside, Variables and optimizer state passed in and out (no
traced value escapes), clear errors where a traced value is used as a host value, and eager
execution where compiling is impossible or would be wrong."""

from __future__ import annotations

import sys

import jax
import numpy as np
import pytest

import tensorplug as tp
from _jit_helpers import concrete, problem, train
from tensorplug.optimizers import SGD, Adam


@pytest.fixture(autouse=True)
def on_jax():
    return tp.set_backend("jax")


# -- compiling and caching --------------------------------------------------------------------
def test_jit_compiles_once_per_shape_and_dtype():
    traces = []

    @tp.jit
    def f(x, y):
        traces.append(x.shape)
        return tp.sum(tp.exp(x) * y), x @ tp.permute_dims(y, (1, 0))

    a, b = tp.ones((2, 3)), tp.full((2, 3), 2.0)
    s, m = f(a, b)
    assert s.backend == "jax" and concrete(s) and s.item() == pytest.approx(12 * np.e, rel=1e-6)
    assert m.shape == (2, 2) and m.dtype is tp.float32
    f(a * 3, b)
    assert traces == [(2, 3)]  # cached: same shapes and dtypes
    f(tp.ones((4, 3)), tp.ones((4, 3)))
    assert traces == [(2, 3), (4, 3)]  # a new shape compiles again
    f(tp.ones((2, 3), dtype=tp.float64), tp.ones((2, 3), dtype=tp.float64))
    assert len(traces) == 3  # so does a new dtype
    f(a, b)
    assert len(traces) == 3


def test_numpy_arrays_and_nested_arguments_are_traced():
    traces = []

    @tp.jit
    def f(batch, scale):
        traces.append(1)
        return {"y": batch["x"] * scale, "n": [batch["n"] + 1]}

    out = f({"x": np.arange(3, dtype=np.float32), "n": tp.asarray(1)}, 2.0)
    assert out["y"].tolist() == [0.0, 2.0, 4.0] and out["y"].dtype is tp.float32
    assert out["n"][0].item() == 2 and out["n"][0].dtype is tp.int64
    f({"x": np.ones(3, np.float32), "n": tp.asarray(5)}, 2.0)
    assert len(traces) == 1


def test_static_arguments_and_python_scalars_are_compile_time_constants():
    traces = []

    @tp.jit(static_argnums=1)
    def power(x, n, scale=1.0):
        traces.append((n, scale))
        out = x
        for _ in range(n - 1):  # Python control flow on a static value
            out = out * x
        return out * scale

    x = tp.asarray([2.0, 3.0])
    assert power(x, 3).tolist() == [8.0, 27.0]
    assert power(x, 2).tolist() == [4.0, 9.0]
    assert power(x, 2, scale=0.5).tolist() == [2.0, 4.5]
    assert power(x * 2, 2).tolist() == [16.0, 36.0]
    assert traces == [(3, 1.0), (2, 1.0), (2, 0.5)]
    with pytest.raises(TypeError, match="static argument .* must be hashable"):
        power(x, [2])


def test_results_keep_their_structure_and_constants():
    @tp.jit
    def f(x):
        return {"sum": tp.sum(x), "parts": (x, None, "label", 3)}

    out = f(tp.asarray([1.0, 2.0]))
    assert out["sum"].item() == 3.0 and out["parts"][1:] == (None, "label", 3)
    assert concrete(out["parts"][0])


# -- autodiff inside ------------------------------------------------------------------------------
def loss(w, x):
    return tp.mean(tp.tanh(x @ w) ** 2)


def test_grad_and_value_and_grad_inside_jit_match_eager():
    w = tp.asarray(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2))
    x = tp.asarray(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    g_eager = tp.grad(loss)(w, x)
    g_jit = tp.jit(tp.grad(loss))(w, x)
    np.testing.assert_allclose(g_jit.numpy(), g_eager.numpy(), rtol=1e-5, atol=1e-7)
    (v, aux), g = tp.jit(tp.value_and_grad(lambda w, x: (loss(w, x), tp.sum(w)), has_aux=True))(w, x)
    assert v.item() == pytest.approx(loss(w, x).item(), rel=1e-6)
    assert aux.item() == pytest.approx(0.0, abs=1e-6)
    np.testing.assert_allclose(g.numpy(), g_eager.numpy(), rtol=1e-5, atol=1e-7)


def test_second_derivatives_inside_jit():
    df = tp.grad(lambda x: tp.sum(tp.sin(x) * x))
    f = tp.jit(tp.grad(lambda x: tp.sum(df(x))))  # elementwise: the diagonal of the Hessian
    x = tp.asarray([0.3, 1.2], dtype=tp.float64)
    want = 2 * np.cos(x.numpy()) - x.numpy() * np.sin(x.numpy())
    np.testing.assert_allclose(f(x).numpy(), want, rtol=1e-12)


def test_grad_of_a_jitted_function_runs_it_eagerly_so_gradients_flow():
    f = tp.jit(lambda x: tp.sum(x ** 3))
    g = tp.grad(f)(tp.asarray([1.0, 2.0]))
    assert g.tolist() == [3.0, 12.0]  # not zeros: the jitted call is recorded op by op


def test_nested_jit_is_inlined():
    inner = tp.jit(lambda x: x * 2)
    outer = tp.jit(lambda x: inner(x) + inner(x + 1))
    assert outer(tp.asarray([1.0])).tolist() == [6.0]


# -- state: Variables and optimizers --------------------------------------------------------------
@pytest.mark.parametrize("make_opt", [
    lambda: Adam(0.05),
    lambda: SGD(0.1, momentum=0.9, nesterov=True),
    lambda: SGD(lambda step: 0.2 / step),  # a schedule: host Python, called at every step
], ids=["adam", "sgd-nesterov", "sgd-schedule"])
def test_optimizer_steps_inside_jit_match_eager_steps(make_opt):
    losses_eager, w_eager, _, opt_eager = train(make_opt, jit=False)
    losses_jit, w_jit, b_jit, opt_jit = train(make_opt, jit=True)
    np.testing.assert_allclose(losses_jit, losses_eager, rtol=2e-5)
    np.testing.assert_allclose(w_jit.numpy(), w_eager.numpy(), rtol=2e-5, atol=1e-7)
    assert opt_jit.iterations == opt_eager.iterations == 6
    assert losses_jit[-1] < losses_jit[0]
    # nothing traced escaped into the state
    assert concrete(w_jit) and concrete(b_jit)
    for slots in (opt_jit.get_slots(w_jit), opt_jit.get_slots(b_jit)):
        assert all(concrete(s) for s in slots.values())


def test_the_functional_update_inside_jit():
    x, y = problem()
    params = {"w": tp.full((3, 2), 0.1), "b": tp.zeros((2,))}
    opt = Adam(0.05)

    @tp.jit
    def step(params, x, y):
        value, grads = tp.value_and_grad(lambda p: tp.mean((x @ p["w"] + p["b"] - y) ** 2))(params)
        return value, opt.update(params, grads)

    eager_params, eager_opt = dict(params), Adam(0.05)
    for _ in range(4):
        value, params = step(params, x, y)
        v, g = tp.value_and_grad(lambda p: tp.mean((x @ p["w"] + p["b"] - y) ** 2))(eager_params)
        eager_params = eager_opt.update(eager_params, g)
        assert value.item() == pytest.approx(v.item(), rel=2e-5)
    np.testing.assert_allclose(params["w"].numpy(), eager_params["w"].numpy(), rtol=2e-5, atol=1e-6)
    assert opt.iterations == 4


def test_variables_read_inside_see_assignments_made_outside():
    v = tp.Variable([1.0, 2.0])
    f = tp.jit(lambda x: x * v)
    assert f(tp.asarray(2.0)).tolist() == [2.0, 4.0]
    v.assign([10.0, 20.0])
    assert f(tp.asarray(2.0)).tolist() == [20.0, 40.0]


def test_variables_passed_as_arguments_are_the_variables():
    @tp.jit
    def bump(v, by):
        v.assign_add(by)
        return v * 1.0

    v = tp.Variable([1.0, 2.0])
    assert bump(v, tp.asarray(1.0)).tolist() == [2.0, 3.0]
    assert bump(v, tp.asarray(1.0)).tolist() == [3.0, 4.0]
    assert v.tolist() == [3.0, 4.0] and concrete(v)


def test_a_jitted_function_still_works_after_jax_clears_its_caches():
    """jax may trace the function again on its own (jax.clear_caches()): the trace then runs
    with this key's arguments, static values and Variables as tp.jit first saw them."""
    v = tp.Variable([1.0, 2.0])

    @tp.jit(static_argnums=1)
    def f(x, scale, v):
        v.assign(v + x)
        return v * scale

    assert f(np.ones(2, np.float32), 2.0, v).tolist() == [4.0, 6.0]
    jax.clear_caches()
    assert f(np.ones(2, np.float32), 2.0, v).tolist() == [6.0, 8.0]
    assert v.tolist() == [3.0, 4.0]


def test_a_numpy_variable_updated_by_a_jax_step_stays_on_numpy():
    v = tp.Variable([1.0, 2.0])
    counter = tp.asarray(1.0, backend="numpy")
    tp.set_backend("numpy")
    on_numpy = tp.Variable([0.0, 0.0])
    tp.set_backend("jax")

    @tp.jit
    def step(x):
        on_numpy.assign(on_numpy + x * counter)
        return tp.sum(v * x)

    assert step(tp.asarray([1.0, 1.0])).item() == 3.0
    step(tp.asarray([1.0, 1.0]))
    assert on_numpy.backend == "numpy" and isinstance(on_numpy.native, np.ndarray)
    assert on_numpy.tolist() == [2.0, 2.0]


def test_creating_a_variable_inside_jit_is_an_error():
    with pytest.raises(tp.TracedValueError, match="cannot create a Variable inside a function compiled"):
        tp.jit(lambda x: tp.Variable(x) * 2)(tp.asarray([1.0]))


# -- host values under tracing ----------------------------------------------------------------------
def test_host_values_of_traced_tensors_are_clear_errors():
    with pytest.raises(tp.TracedValueError, match=r"Reading the values of a traced tensor.*static argument"):
        tp.jit(lambda x: x * float(tp.sum(x)))(tp.asarray([1.0]))
    with pytest.raises(tp.TracedValueError, match="traced tensor"):
        tp.jit(lambda x: x if x > 0 else -x)(tp.asarray(1.0))
    with pytest.raises(tp.TracedValueError, match=r"Kernel 'NonZero' on backend 'jax'.*on the values"):
        tp.jit(lambda x: tp.nonzero(x)[0])(tp.asarray([0.0, 1.0]))


def test_printing_a_traced_tensor_shows_shape_and_dtype():
    seen = []

    @tp.jit
    def f(x):
        seen.append(repr(x))
        return x

    f(tp.ones((2, 3)))
    assert seen == ["Tensor(<traced>, shape=(2, 3), dtype=float32, backend='jax')"]


def test_a_traced_tensor_that_escapes_is_a_clear_error_later():
    leaked = []

    @tp.jit
    def f(x):
        leaked.append(x * 2)
        return x

    f(tp.ones((2,)))
    with pytest.raises(tp.TracedValueError):
        leaked[0].numpy()
    with pytest.raises(tp.TracedValueError, match="escaped the function tp.jit traced it in"):
        leaked[0] + 1


def test_out_of_range_indices_inside_jit_give_nan_never_another_element():
    x = tp.asarray([1.0, 2.0, 3.0])
    take = tp.jit(lambda x, i: tp.take(x, i))
    assert take(x, tp.asarray([-1, 0])).tolist() == [3.0, 1.0]
    out = take(x, tp.asarray([3, -4, 1])).numpy()
    assert np.isnan(out[0]) and np.isnan(out[1]) and out[2] == 2.0
    along = tp.jit(lambda x, i: tp.take_along_axis(x, i, axis=1))
    got = along(tp.asarray([[1.0, 2.0], [3.0, 4.0]]), tp.asarray([[0], [2]])).numpy()
    assert got[0, 0] == 1.0 and np.isnan(got[1, 0])  # not the next row's element


def test_labels_out_of_range_inside_jit_give_a_nan_loss():
    loss = tp.jit(lambda y, logits: tp.nn.sparse_softmax_cross_entropy(y, logits))
    logits = tp.zeros((2, 3))
    assert loss(tp.asarray([0, 2]), logits).item() == pytest.approx(np.log(3))
    assert np.isnan(loss(tp.asarray([0, 3]), logits).item())
    with pytest.raises(tp.IndexOutOfRangeError, match="label 3 is out of range"):
        tp.nn.sparse_softmax_cross_entropy(tp.asarray([0, 3]), logits)  # eagerly: checked


# -- backends that do not compile -----------------------------------------------------------------
def test_on_numpy_jit_runs_eagerly_with_the_same_semantics():
    tp.set_backend("numpy")
    traces = []
    v = tp.Variable([1.0])

    @tp.jit
    def f(x):
        traces.append(1)
        v.assign(v + 1)
        return x * v

    out = f(np.array([2.0], np.float32))  # numpy arrays become tensors, as when compiled
    assert out.backend == "numpy" and out.tolist() == [4.0]
    f(np.array([2.0], np.float32))
    assert traces == [1, 1] and v.tolist() == [3.0]


def test_jit_as_a_method_decorator_and_negative_static_argnums():
    class Scaler:
        def __init__(self, factor):
            self.factor = factor

        @tp.jit
        def __call__(self, x):
            return x * self.factor

    assert Scaler(3.0)(tp.asarray([1.0, 2.0])).tolist() == [3.0, 6.0]
    assert Scaler(0.5)(tp.asarray([1.0, 2.0])).tolist() == [0.5, 1.0]
    rep = tp.jit(lambda x, n: tp.concat([x] * n), static_argnums=-1)
    assert rep(tp.asarray([1.0]), 3).tolist() == [1.0, 1.0, 1.0]


def test_an_optimizer_stepped_eagerly_and_compiled_in_turns_matches_eager_steps():
    x, y = problem()

    def run(jit_every_other: bool):
        w = tp.Variable(np.full((3, 2), 0.1, np.float32))
        opt = Adam(0.05)
        step = lambda: opt.minimize(lambda: tp.mean((x @ w - y) ** 2), [w])  # noqa: E731
        compiled = tp.jit(step)
        losses = [(compiled() if jit_every_other and i % 2 else step()).item() for i in range(6)]
        return losses, w, opt

    eager, w_eager, _ = run(False)
    mixed, w_mixed, opt = run(True)
    np.testing.assert_allclose(mixed, eager, rtol=2e-5)
    np.testing.assert_allclose(w_mixed.numpy(), w_eager.numpy(), rtol=2e-5, atol=1e-7)
    assert opt.iterations == 6 and all(concrete(s) for s in opt.get_slots(w_mixed).values())


def test_traced_tensors_know_their_shape_dtype_and_backend():
    seen = {}

    @tp.jit
    def f(x, i):
        seen.update(shape=x.shape, dtype=x.dtype, backend=x.backend, device=x.device, ndim=x.ndim,
                    idtype=i.dtype, size=x.size)
        return x.T @ x + i.astype(tp.float32)

    out = f(tp.ones((3, 2)), tp.asarray(2))
    assert seen == {"shape": (3, 2), "dtype": tp.float32, "backend": "jax", "device": "traced",
                    "ndim": 2, "idtype": tp.int64, "size": 6}
    assert out.tolist() == [[5.0, 5.0], [5.0, 5.0]] and out.device == "cpu:0"


def test_eager_work_in_another_thread_does_not_leak_into_a_trace():
    import threading

    mine, theirs = tp.Variable([1.0]), tp.Variable([0.0])
    stop = threading.Event()

    def eager_elsewhere():
        tp.set_backend("jax")
        while not stop.is_set():
            theirs.assign(theirs + 1.0)

    thread = threading.Thread(target=eager_elsewhere)
    thread.start()
    try:
        for n in range(3):  # new shapes: traced while the other thread runs
            f = tp.jit(lambda x: x * mine)
            assert f(tp.ones((n + 1,))).tolist() == [1.0] * (n + 1)
    finally:
        stop.set()
        thread.join()
    assert concrete(theirs) and theirs.item() > 0


def test_threads_tracing_one_function_each_see_their_own_arguments():
    import threading

    @tp.jit(static_argnums=1)
    def f(x, scale):
        return x * scale

    results: dict[int, list[float]] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def call(n):
        try:
            tp.set_backend("jax")
            start.wait()
            for size in range(1, 9):  # a new shape and static value each time: traced
                out = f(np.ones(size + 10 * n, np.float32), float(n + 1))
                results.setdefault(n, []).append(out.tolist() == [float(n + 1)] * (size + 10 * n))
        except BaseException as exc:  # (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(2)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors and results == {0: [True] * 8, 1: [True] * 8}
