"""``tp.jit`` on the numpy backend (``tensorplug.transforms.jit.planner``): the function is traced
once into a plan of kernel calls and replayed, with the results eager calls give, bit for bit; values that
depend on the inputs cannot be read while tracing; a plan fails as the kernel would."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import KernelConfig, PlannedFunction, register_kernel

pytestmark = pytest.mark.usefixtures("numpy_backend")

RNG = np.random.default_rng(0)
X = RNG.normal(size=(8, 4)).astype(np.float32)
Y = RNG.normal(size=(8, 2)).astype(np.float32)


@pytest.fixture
def numpy_backend():
    with tp.backend_scope("numpy"):
        yield


def _sgd_model(traces: list[int] | None = None):
    """A linear-tanh model, and a step doing value_and_grad and plain SGD by assignment."""
    w = tp.Variable(np.linspace(-0.5, 0.5, 8, dtype=np.float32).reshape(4, 2))
    b = tp.Variable(np.zeros(2, np.float32))

    def step(x, y):
        if traces is not None:
            traces.append(1)
        loss, (gw, gb) = tp.value_and_grad(
            lambda w, b: tp.mean((tp.tanh(x @ w + b) - y) ** 2), argnums=(0, 1))(w, b)
        w.assign(w - 0.1 * gw)
        b.assign(b - 0.1 * gb)
        return loss

    return w, b, step


def test_a_training_step_is_traced_once_and_replayed_bit_for_bit():
    w_eager, b_eager, eager = _sgd_model()
    traces: list[int] = []
    w_jit, b_jit, step = _sgd_model(traces)
    jitted = tp.jit(step)
    for _ in range(5):
        want = eager(tp.asarray(X), tp.asarray(Y))
        got = jitted(X, Y)
        assert got.tolist() == want.tolist() and got.dtype is want.dtype
        np.testing.assert_array_equal(w_jit.numpy(), w_eager.numpy())
        np.testing.assert_array_equal(b_jit.numpy(), b_eager.numpy())
    assert len(traces) == 2  # a discovery trace (it finds the Variables), then the planned one


def test_the_demo_trains_bit_for_bit_as_eager_with_adam():
    """The demo's MLP, Adam, cross-entropy: an epoch planned and one eager end alike, to the bit."""
    from tensorplug.cli.digits_mlp import Training, load_digits_split

    data = load_digits_split()
    eager, planned = Training(data, seed=1, jit=False), Training(data, seed=1, jit=True)
    assert planned.epoch() == eager.epoch()  # 45 steps: traced, then replayed
    for a, b in zip(eager.model.variables(), planned.model.variables()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(eager.model.variables(), planned.model.variables()):
        slots_a, slots_b = eager.optimizer.get_slots(a), planned.optimizer.get_slots(b)
        for name in ("m", "v"):
            np.testing.assert_array_equal(slots_a[name].numpy(), slots_b[name].numpy())
    assert planned.optimizer.iterations == eager.optimizer.iterations


def _plans() -> set[PlannedFunction]:
    """The planned functions alive (tp.jit keeps those it compiled with its function)."""
    import gc

    return {o for o in gc.get_objects() if issubclass(type(o), PlannedFunction) and o.plan is not None}


def test_the_plan_is_a_readable_sequence_of_kernel_calls_with_constants_folded():
    scale = tp.asarray(3.0)

    @tp.jit
    def f(x):
        folded = tp.exp(scale) * 2.0  # no input: computed once, while tracing
        return tp.sum(x * folded)

    x = np.arange(4, dtype=np.float32)
    before = _plans()
    assert f(x).item() == pytest.approx(float(np.sum(x * np.exp(3.0) * 2.0)), rel=1e-6)
    (planned,) = _plans() - before
    plan = planned.plan
    kernels = [step.kernel for step in plan.steps]
    assert kernels == ["Multiply", "Sum"]  # Exp and the constant's Multiply were folded
    assert "# Multiply" in plan.source and "def plan(args, state):" in plan.source
    assert f(x + 1).item() == pytest.approx(float(np.sum((x + 1) * np.exp(3.0) * 2.0)), rel=1e-6)


def test_python_control_flow_on_a_traced_value_is_an_error_at_trace_time():
    @tp.jit
    def f(x):
        if tp.sum(x) > 0:  # bool() of a value that depends on x
            return x
        return -x

    with pytest.raises(tp.TracedValueError, match=r"tp.jit on backend 'numpy'.*depends on the "
                       r"function's inputs.*static_argnums.*tp.where"):
        f(np.ones(3, np.float32))
    for read in (lambda t: float(t), lambda t: t.numpy(), lambda t: t.tolist(), lambda t: int(t)):
        with pytest.raises(tp.TracedValueError):
            tp.jit(lambda x, read=read: read(tp.sum(x)))(np.ones(2, np.float32))


def test_a_kernel_whose_output_length_is_the_values_is_an_error_at_trace_time():
    """Its length would be the trace's in whatever reads it (a shape, a -1 in a reshape): a
    later call with other values would get a wrong answer silently. Of constants: folded."""
    def count_distinct(x):
        return tp.sum(tp.unique_values(x)) + tp.unique_values(x).shape[0]

    for f in (count_distinct, lambda x: x[x > 0], lambda x: tp.nonzero(x)[0]):
        with pytest.raises(tp.TracedValueError, match=r"tp.jit on backend 'numpy': kernel '(UniqueCounts|"
                                                      r"NonZero)' gives an output whose length depends"):
            tp.jit(f)(np.array([1.0, 1.0, 2.0]))
    mask = tp.asarray([True, False, True])
    assert tp.jit(lambda x: x * tp.sum(tp.nonzero(mask)[0]))(np.ones(2)).tolist() == [2.0, 2.0]


def test_values_not_computed_from_the_inputs_can_be_read():
    table = tp.asarray([1.0, 2.0])

    @tp.jit
    def f(x):
        n = int(tp.sum(table).item())  # a constant: fine, as under jax.jit
        return x * n

    assert f(np.ones(2, np.float32)).tolist() == [3.0, 3.0]


def test_a_kernel_failing_in_a_replay_is_explained():
    @tp.jit
    def pick(x, i):
        return tp.take(x, i)

    x = np.arange(4, dtype=np.float32)
    assert pick(x, np.asarray([1, 2])).tolist() == [1.0, 2.0]
    assert pick(x, np.asarray([3, 0])).tolist() == [3.0, 0.0]  # replayed
    # (under tp.jit the op cannot read the indices: it marks one out of range, and Gather refuses it)
    with pytest.raises(tp.IndexOutOfRangeError, match="Kernel 'Gather' on backend 'numpy'"):
        pick(x, np.asarray([7, 0]))


def test_a_kernel_registered_after_tracing_applies_on_the_next_call():
    @tp.jit
    def f(x):
        return tp.exp(x)

    x = np.zeros(2, np.float32)
    assert f(x).tolist() == [1.0, 1.0]
    register_kernel(KernelConfig("Exp", "numpy", lambda inputs, attrs, backend: inputs[0] + 5),
                    override=True)
    assert f(x).tolist() == [5.0, 5.0]


def test_tracing_runs_each_kernel_call_once_and_plans_the_function_the_dispatcher_ran():
    """The dispatcher tells the planner which direct function it ran (or that the kernel
    function ran, after a direct function refused): the planner runs nothing again to find out."""
    from tensorplug.extend import DirectCall, get_kernel

    tp.extend.load_plugins()
    calls: list[str] = []
    original = get_kernel("Exp", "numpy")

    def kernel(inputs, attrs, backend):
        calls.append("kernel")
        return np.exp(inputs[0])

    def direct(x):
        calls.append("direct")
        if x.shape[0] > 2:
            raise ValueError("too long for the direct function")  # (the kernel function takes over)
        return np.exp(x)

    register_kernel(KernelConfig("Exp", "numpy", kernel, direct=DirectCall(original.direct.dtypes, direct)),
                    override=True)
    f = tp.jit(lambda x: tp.exp(x))
    x, long = np.zeros(2, np.float32), np.zeros(3, np.float32)
    assert f(x).tolist() == [1.0, 1.0] and calls == ["direct"]  # traced
    assert f(x).tolist() == [1.0, 1.0] and calls == ["direct"] * 2  # replayed: the direct function
    calls.clear()
    assert f(long).tolist() == [1.0] * 3 and calls == ["direct", "kernel"]  # traced: refused, taken over
    assert f(long).tolist() == [1.0] * 3 and calls == ["direct", "kernel", "kernel"]  # replayed


def test_a_raw_exception_in_a_replay_is_explained_from_the_kernels_spec():
    """A kernel that raises a plain exception on some values (here: negative ones) fails the
    replay; the plan finds the step and explains it as the dispatcher would: no raw ValueError."""
    from tensorplug.extend import KernelSpec, register_kernel_spec

    register_kernel_spec(KernelSpec("Picky", ("x",), lambda infos, attrs: [infos[0]]))

    def picky(inputs, attrs, backend):
        (x,) = inputs
        if (x < 0).any():
            raise ValueError("no negative values, please")
        return x * 2

    register_kernel(KernelConfig("Picky", "numpy", picky))

    @tp.jit
    def f(x):
        return tp.run_kernel("Picky", {"x": tp.exp(x) - 2.0})

    assert f(np.ones(2, np.float32)).tolist() == pytest.approx([2 * (np.e - 2)] * 2)
    with pytest.raises(tp.KernelError, match=r"Kernel 'Picky' on backend 'numpy' \(inputs x: "
                       r"float32\[2\]\) raised ValueError: no negative values, please"):
        f(np.zeros(2, np.float32))


@pytest.mark.parametrize("bad", [3, -1])
def test_a_label_out_of_range_gives_a_nan_loss_in_a_plan_and_the_others_are_as_eager(bad):
    loss = tp.jit(lambda y, z: tp.nn.sparse_softmax_cross_entropy(y, z, reduction="none"))
    logits = RNG.normal(size=(3, 3)).astype(np.float32)
    got = loss(np.array([0, bad, 2]), logits).numpy()
    eager = tp.nn.sparse_softmax_cross_entropy(tp.asarray([0, 1, 2]), tp.asarray(logits), reduction="none")
    assert np.isnan(got[1])
    assert got[[0, 2]].tolist() == eager.numpy()[[0, 2]].tolist()


def test_a_plan_drops_each_intermediate_after_its_last_use_and_keeps_its_outputs():
    @tp.jit
    def f(x):
        h = tp.exp(x) * 2.0  # h's arrays are dead once the sum has read them
        return tp.sum(h), tp.tanh(x)

    x = np.arange(3, dtype=np.float32)
    before = _plans()
    total, t = f(x)
    (planned,) = _plans() - before
    lines = planned.plan.source.splitlines()
    exp_line = next(i for i, line in enumerate(lines) if "# Exp" in line)
    exp_out = lines[exp_line].split("=")[0].strip()
    deletions = [line.strip() for line in lines if line.strip().startswith("del ")]
    assert any(exp_out in d.removeprefix("del ").split(", ") for d in deletions)
    returned = lines[-1]
    assert not any(name in d for d in deletions for name in returned.split("[")[1].split("]")[0].split(", "))
    assert total.item() == pytest.approx(float(np.sum(np.exp(x) * 2.0)), rel=1e-6)
    assert t.numpy().tolist() == tp.tanh(tp.asarray(x)).numpy().tolist()
