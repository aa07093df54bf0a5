"""tp.checkpoint: the same values and gradients as the function it wraps (bit for bit on numpy
eager), to second order, under tp.jit, with pytrees, closures and Variables; the forward pass
keeps none of its intermediates (fewer bytes alive, measured) and the backward pass recomputes
them; errors."""

from __future__ import annotations

import gc
import textwrap

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.profiler import count_kernels
from tensorplug.testing import check_gradients
from tensorplug.tools.memory import nbytes
from tensorplug.transforms.autodiff.tape import Tape


def _same(a, b, backend, rtol=1e-6):
    """Bit for bit on numpy (the same kernels on the same arrays in the same order); to
    rounding on jax (XLA may fuse differently)."""
    a, b = np.asarray(a.numpy()), np.asarray(b.numpy())
    if backend == "numpy":
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-6)


def _mlp(layers=6, width=16, batch=4, seed=0):
    rng = np.random.default_rng(seed)
    params = [(tp.asarray(rng.normal(size=(width, width)) / np.sqrt(width), dtype=tp.float32),
               tp.asarray(rng.normal(size=(width,)) * 0.1, dtype=tp.float32)) for _ in range(layers)]
    x = tp.asarray(rng.normal(size=(batch, width)), dtype=tp.float32)
    return params, x


def _block(h, block_params):
    for w, b in block_params:
        h = tp.tanh(h @ w + b)
    return h


def _loss(params, x, per_block=2, checkpointed=True):
    run = tp.checkpoint(_block) if checkpointed else _block
    h = x
    for i in range(0, len(params), per_block):
        h = run(h, params[i:i + per_block])
    return tp.mean(h * h)


# -- values and gradients --------------------------------------------------------------------
def test_values_and_gradients_equal_the_unchecked_function(backend):
    params, x = _mlp()
    value, grads = tp.value_and_grad(_loss, argnums=(0, 1))(params, x)
    ref_value, ref_grads = tp.value_and_grad(lambda p, x: _loss(p, x, checkpointed=False), argnums=(0, 1))(
        params, x)
    _same(value, ref_value, backend)
    for (gw, gb), (rw, rb) in zip(grads[0], ref_grads[0]):
        _same(gw, rw, backend)
        _same(gb, rb, backend)
    _same(grads[1], ref_grads[1], backend)


def test_gradients_match_finite_differences(backend):
    w = np.random.default_rng(1).normal(size=(3, 3))

    def f(x, v):
        h = tp.checkpoint(lambda x, v: tp.sin(x @ tp.asarray(w)) * tp.exp(v))(x, v)
        return tp.sum(h * h)

    dtype = tp.float64 if backend == "numpy" else tp.float32
    tol = {} if backend == "numpy" else {"eps": 1e-2, "atol": 2e-2, "rtol": 2e-2}
    x, v = np.linspace(-1, 1, 6).reshape(2, 3), np.array([0.3, -0.2, 0.1])
    check_gradients(f, x, v, order=2, dtype=dtype, **tol)


def test_second_order_gradients_equal_the_unchecked_function(backend):
    def inner(x):
        return tp.sin(x) * x * x

    def f(x, checkpointed):
        y = tp.checkpoint(inner)(x) if checkpointed else inner(x)
        return tp.sum(y * y * y)

    x = tp.asarray([0.3, -0.5, 1.2], dtype=tp.float32)

    def grad_norm(x, checkpointed):
        return tp.sum(tp.grad(f)(x, checkpointed) ** 2)

    _same(tp.grad(f)(x, True), tp.grad(f)(x, False), backend)
    # (the order of accumulation differs at second order: equal to rounding)
    np.testing.assert_allclose(tp.grad(grad_norm)(x, True).numpy(), tp.grad(grad_norm)(x, False).numpy(),
                               rtol=1e-5)
    third = tp.grad(lambda x, c: tp.sum(tp.grad(grad_norm)(x, c)))
    np.testing.assert_allclose(third(x, True).numpy(), third(x, False).numpy(), rtol=1e-4)


def test_pytrees_kwargs_several_outputs_and_values_passed_through(backend):
    def f(pair, scale, *, table, label):
        assert label == "a label" and isinstance(scale, float)
        a, b = pair
        return {"sum": (a + b) * scale, "prod": a * table["w"], "count": tp.ones((2,), dtype=tp.int32) * 2,
                "label": label}

    def loss(a, b, w, checkpointed):
        g = tp.checkpoint(f) if checkpointed else f
        out = g((a, b), 3.0, table={"w": w}, label="a label")
        assert out["label"] == "a label" and out["count"].dtype is tp.int32
        return tp.sum(tp.sin(out["sum"])) + tp.sum(out["prod"] ** 2)

    a, b, w = (tp.asarray(v, dtype=tp.float32) for v in ([0.1, 0.2], [0.5, -1.0], [2.0, 3.0]))
    got = tp.grad(loss, argnums=(0, 1, 2))(a, b, w, True)
    expected = tp.grad(loss, argnums=(0, 1, 2))(a, b, w, False)
    for g, e in zip(got, expected):
        _same(g, e, backend)


def test_an_output_off_the_path_and_an_argument_passed_twice(backend):
    def f(x, y):
        return x * y, tp.exp(x)  # the second output is not used below

    def loss(x, checkpointed):
        g = tp.checkpoint(f) if checkpointed else f
        return tp.sum(g(x, x)[0])

    x = tp.asarray([0.5, 2.0], dtype=tp.float32)
    _same(tp.grad(loss)(x, True), tp.grad(loss)(x, False), backend)
    np.testing.assert_allclose(tp.grad(loss)(x, True).numpy(), 2 * x.numpy())  # d(x*x)/dx


def test_closed_over_tensors_and_variables_get_their_gradients(backend):
    params, x = _mlp(layers=2)
    v = tp.Variable(np.full((16,), 0.5, dtype=np.float32), name="ck_scale")

    def loss(checkpointed):
        def body(h):  # reads the weights and the Variable from its closure
            return _block(h, params) * v
        g = tp.checkpoint(body) if checkpointed else body
        return tp.sum(g(x) ** 2)

    value, grads = tp.variable_grads(lambda: loss(True), [v])
    ref_value, ref_grads = tp.variable_grads(lambda: loss(False), [v])
    _same(value, ref_value, backend)
    _same(grads["ck_scale"], ref_grads["ck_scale"], backend)
    w0 = params[0][0]

    def returns_its_closure(w):
        h, same_w = tp.checkpoint(lambda h: (tp.tanh(h), w))(x @ w)  # w returned as it is, unread
        return tp.sum(h) + tp.sum(same_w ** 2)

    _same(tp.grad(returns_its_closure)(w0), tp.grad(lambda w: tp.sum(tp.tanh(x @ w)) + tp.sum(w ** 2))(w0),
          backend)
    _same(tp.grad(lambda w: tp.sum(tp.checkpoint(lambda h: tp.tanh(h @ w))(x)))(w0),
          tp.grad(lambda w: tp.sum(tp.tanh(x @ w)))(w0), backend)


def test_nested_checkpoints(backend):
    def inner(x):
        return tp.tanh(x) * x

    def outer(x):
        return tp.checkpoint(inner)(tp.checkpoint(inner)(x) + 1.0)

    x = tp.asarray([0.1, -0.7, 2.0], dtype=tp.float32)
    _same(tp.grad(lambda x: tp.sum(tp.checkpoint(outer)(x)))(x),
          tp.grad(lambda x: tp.sum(inner(inner(x) + 1.0)))(x), backend)


def test_vjp_through_a_checkpoint(backend):
    x = tp.asarray([[0.5, 1.0], [-1.0, 2.0]], dtype=tp.float32)
    ct = tp.asarray([[1.0, -2.0], [0.5, 3.0]], dtype=tp.float32)
    out, fn = tp.vjp(tp.checkpoint(lambda x: tp.exp(x) @ x), x)
    ref_out, ref_fn = tp.vjp(lambda x: tp.exp(x) @ x, x)
    _same(out, ref_out, backend)
    _same(fn(ct)[0], ref_fn(ct)[0], backend)


# -- what is saved and what is recomputed ----------------------------------------------------
def _tape_of(params, x, checkpointed):
    """The tape of the loss's forward pass, watching the parameters."""
    from tensorplug.core.context import push_recorder, remove_recorder

    tape = Tape([t for layer in params for t in layer])
    push_recorder(tape)
    try:
        _loss(params, x, per_block=4, checkpointed=checkpointed)
    finally:
        remove_recorder(tape)
    return tape


def _bytes_kept(tape):
    """The bytes of the distinct arrays a tape's entries reference, the watched sources' left out."""
    arrays = {id(t._data): t for e in tape.entries for t in e.inputs + e.outputs}
    for t in tape.sources:
        arrays.pop(id(t._data), None)
    return sum(nbytes(t) for t in arrays.values())


def test_the_tape_keeps_one_entry_and_the_backward_pass_recomputes(backend):
    params, x = _mlp(layers=4)
    tape = _tape_of(params, x, checkpointed=True)
    names = [e.name for e in tape.entries]
    assert names[0] == "checkpoint(_block)" and not {"MatMul", "Add", "Tanh"} & set(names)  # (the loss after)
    assert {"MatMul", "Add", "Tanh"} <= {e.name for e in _tape_of(params, x, checkpointed=False).entries}

    with count_kernels() as plain:
        tp.grad(lambda p: _loss(p, x, per_block=4, checkpointed=False))(params)
    with count_kernels() as checkpointed:
        tp.grad(lambda p: _loss(p, x, per_block=4))(params)
    tanh = [k for k in plain.counts if k[0] == "Tanh"]
    assert tanh and checkpointed.counts[tanh[0]] == 2 * plain.counts[tanh[0]] == 8  # run again


def test_without_a_tape_the_function_runs_once_as_it_is(backend):
    calls = []

    def f(x):
        calls.append(x)
        return tp.exp(x)

    x = tp.asarray([1.0, 2.0])
    _same(tp.checkpoint(f)(x), tp.exp(x), backend)
    assert len(calls) == 1


def test_the_bytes_kept_and_the_peak_drop(backend):
    """Of a 16-layer MLP with a checkpoint around each block of 4 layers: the tape keeps the
    blocks' boundaries only, and the peak of live tensor bytes during value_and_grad
    (tp.profile's measure) drops by at least half of what the tape no longer keeps (the
    backward pass holds one block's recomputed intermediates at a time)."""
    params, x = _mlp(layers=16, width=64, batch=32)
    kept_plain, kept = (_bytes_kept(_tape_of(params, x, c)) for c in (False, True))
    activation = 32 * 64 * 4  # the bytes of one layer's output
    assert kept_plain >= 16 * activation and kept <= kept_plain / 4

    def peak(checkpointed):
        gc.collect()  # (tensors freed inside the block would hide bytes made there)
        with tp.profile() as prof:
            value, _ = tp.value_and_grad(_loss)(params, x, 4, checkpointed)
        return prof.peak_bytes - prof.start_bytes, value

    plain, plain_value = peak(False)
    saved, value = peak(True)
    _same(value, plain_value, backend)
    assert plain - saved >= (kept_plain - kept) / 2


# -- under tp.jit ----------------------------------------------------------------------------
def test_under_jit_the_same_as_eager(backend):
    params, x = _mlp()

    def step(params, x):
        return tp.value_and_grad(_loss)(params, x)

    value, grads = tp.jit(step)(params, x)
    value_again, grads_again = tp.jit(step)(params, x * 1.0)  # the replayed plan (numpy) / XLA
    ref_value, ref_grads = step(params, x)
    plain_value, plain_grads = tp.value_and_grad(lambda p, x: _loss(p, x, checkpointed=False))(params, x)
    for v in (value, value_again):
        _same(v, ref_value, backend, rtol=1e-5)
        _same(v, plain_value, backend, rtol=1e-5)
    for got in (grads, grads_again):
        for layer, ref_layer, plain_layer in zip(got, ref_grads, plain_grads):
            for g, r, p in zip(layer, ref_layer, plain_layer):
                _same(g, r, backend, rtol=1e-5)
                _same(g, p, backend, rtol=1e-5)


def test_a_jitted_function_inside_a_checkpoint_runs_eagerly_and_its_variable_gets_a_gradient(backend):
    x = tp.asarray([[0.5, 1.0]])
    v = tp.Variable(np.array([[1.0, 2.0], [0.3, -1.0]], dtype=np.float32), name="ck_jitted")
    inner = tp.jit(lambda h: tp.tanh(h @ v))  # reads the Variable: state of the compiled function
    expected = tp.variable_grads(lambda: tp.sum(inner(x)), [v])[1]["ck_jitted"]
    for _ in range(2):  # (a second call would replay a compiled function: not while differentiated)
        got = tp.variable_grads(lambda: tp.sum(tp.checkpoint(inner)(x)), [v])[1]["ck_jitted"]
        _same(got, expected, backend)


# -- errors ----------------------------------------------------------------------------------
def test_errors(backend):
    with pytest.raises(tp.ArgumentError, match=r"checkpoint: f must be a function, got"):
        tp.checkpoint(3)
    runs = []

    def changing(x):  # returns another shape when it runs again
        runs.append(1)
        return tp.sum(x) if len(runs) > 1 else x * 2.0

    with pytest.raises(tp.AutodiffError,
                       match=r"checkpoint\(changing\): run again for the backward pass.*explicit seeds"):
        tp.grad(lambda x: tp.sum(tp.checkpoint(changing)(x)))(tp.asarray([1.0, 2.0]))


def test_the_docstring_example_runs_and_recomputes_each_block(backend):
    code = tp.checkpoint.__doc__.split("```python\n")[1].split("```")[0]
    namespace = {"tp": tp}
    with count_kernels() as calls:
        exec(textwrap.dedent(code), namespace)
    assert sum(n for (kernel, _), n in calls.counts.items() if kernel == "Tanh") == 16  # 8 layers, twice
    expected = tp.grad(lambda p, x: _loss(p, x, per_block=4, checkpointed=False))(
        namespace["params"], tp.ones((2, 8)))
    for got, ref in zip(namespace["grads"], expected):
        _same(got[0], ref[0], backend)
        _same(got[1], ref[1], backend)
