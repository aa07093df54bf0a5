"""tp.export.onnx of control flow (tp.cond, tp.switch, tp.while_loop, tp.fori_loop, tp.scan):
the traced functions become ONNX subgraphs (If, Loop), run in onnxruntime against tensorplug.
The exported graph holds the control flow itself, so it is fed inputs that take other branches
and other numbers of steps than the example did."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _onnx_runtime import onnx, ort, run  # noqa: F401  (skips without onnx, onnxruntime)
from tensorplug.extend import (
    KernelConfig,
    KernelSpec,
    OnnxLowering,
    override_onnx_lowering,
    register_kernel,
    register_kernel_spec,
)


def agrees(model, fn, *arrays):
    """onnxruntime's outputs of `model` on `arrays` equal `fn`'s in tensorplug (1e-5)."""
    want = fn(*arrays)
    want = want if isinstance(want, (tuple, list)) else (want,)
    got = run(model, *arrays)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-5)


def ops_of(model) -> set[str]:
    return {n.op_type for n in model.graph.node}


def vec(*values):
    return np.asarray(values, np.float32)


def test_a_cond_exports_as_if_and_takes_either_branch_at_run_time():
    def f(x):
        return tp.cond(tp.sum(x) > 0, lambda v: (v * 2.0, tp.exp(v)), lambda v: (v - 1.0, tp.sin(v)), x)

    model = tp.export.onnx_model(f, vec(1, 2, 3))
    assert "If" in ops_of(model)
    for x in (vec(1, 2, 3), vec(-1, -2, 0.5)):  # (the second takes the branch the example did not)
        agrees(model, f, x)


def test_a_switch_of_three_branches_clamps_its_index_as_tensorplug_does():
    def f(i, x):
        return tp.switch(i, [lambda v: v * 2.0, lambda v: tp.exp(v), lambda v: v - 1.0], x)

    model = tp.export.onnx_model(f, np.int32(1), vec(0.5, -1))
    for i in (-3, 0, 1, 2, 9):
        agrees(model, f, np.int32(i), vec(0.5, -1))


def test_a_while_loop_exports_as_loop_and_runs_as_many_steps_as_its_input_needs():
    def f(x):
        return tp.while_loop(lambda s: tp.sum(s[1]) < 50.0, lambda s: (s[0] + 1, s[1] * 1.5 + 0.25),
                             (tp.asarray(np.int32(0)), x))

    model = tp.export.onnx_model(f, vec(1, 2))
    assert "Loop" in ops_of(model)
    for x in (vec(1, 2), vec(0.01, 0.02), vec(60, 1)):  # (more steps, and none)
        agrees(model, f, x)


def test_a_fori_loop_exports():
    def f(x):
        return tp.fori_loop(1, 6, lambda i, s: s * 0.5 + tp.astype(i, tp.float32), x)

    model = tp.export.onnx_model(f, vec(1, -2, 3))
    agrees(model, f, vec(1, -2, 3))
    agrees(model, f, vec(7, 0, -1))


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_a_scan_exports_with_its_weights_as_initializers(reverse):
    name = f"scan_w_{'reverse' if reverse else 'forward'}"
    w = tp.Variable(vec(0.5, -0.25, 1.0), name=name)

    def f(xs, ts, c):
        def body(carry, x):
            c, total = carry
            new = tp.tanh(c * w + x[0]) + x[1][:, None] * 0.0
            return (new[0], total + tp.sum(x[0])), (new[0] * 2.0, total)
        return tp.scan(body, (c, tp.asarray(np.float32(0))), (xs, ts), reverse=reverse)

    xs = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    ts = np.arange(4, dtype=np.float32).reshape(4, 1)

    def flat(xs, ts, c):
        (last, total), (ys, totals) = f(xs, ts, c)
        return last, total, ys, totals

    model = tp.export.onnx_model(flat, xs, ts, vec(0, 1, 0))
    assert "Loop" in ops_of(model) and ("Slice" in ops_of(model)) == reverse
    assert name in {i.name for i in model.graph.initializer}
    agrees(model, flat, xs, ts, vec(0, 1, 0))
    agrees(model, flat, xs[::-1].copy(), ts, vec(2, -1, 0.5))


def test_a_scan_of_no_steps_gives_the_carry_and_empty_outputs():
    def f(c):
        return tp.scan(lambda c, _: (c + 1.0, c * 2.0), c, None, length=0)

    def flat(c):
        last, ys = f(c)
        return last, ys

    model = tp.export.onnx_model(flat, vec(1, 2))
    last, ys = run(model, vec(1, 2))
    np.testing.assert_array_equal(last, vec(1, 2))
    assert ys.shape == (0, 2) and ys.dtype == np.float32


def test_a_cond_nested_in_a_scan_body_exports():
    def f(xs, c):
        def body(c, x):
            c = tp.cond(tp.sum(x) > 0, lambda a, b: a + b, lambda a, b: a * b - 1.0, c, x)
            return c, tp.cond(c[0] > 0, lambda a: a * 3.0, lambda a: -a, c)
        return tp.scan(body, c, xs)

    xs = np.random.default_rng(1).normal(size=(6, 2)).astype(np.float32)

    def flat(xs, c):
        last, ys = f(xs, c)
        return last, ys

    model = tp.export.onnx_model(flat, xs, vec(0.5, -0.5))
    agrees(model, flat, xs, vec(0.5, -0.5))
    agrees(model, flat, -xs, vec(-2, 3))


def test_a_kernel_without_a_lowering_inside_a_branch_is_named(tmp_path):
    register_kernel_spec(KernelSpec("ToyInBranch", ("x",), lambda infos, attrs: [infos[0]]))
    register_kernel(KernelConfig("ToyInBranch", "numpy", lambda inputs, attrs, backend: inputs[0] + 1))

    def f(x):
        return tp.cond(tp.sum(x) > 0, lambda v: tp.run_kernel("ToyInBranch", {"x": v}), lambda v: v, x)

    path = tmp_path / "branch.onnx"
    with pytest.raises(tp.ExportError, match=r"no ONNX lowering for 1 kernel\(s\).*'ToyInBranch' \(declared "
                       r"by 'user code'\).*register_onnx_lowering"):
        tp.export.onnx(f, vec(1, 2), path=str(path))
    assert list(tmp_path.iterdir()) == []


def test_an_lstm_cell_scanned_over_time_exports():
    rng = np.random.default_rng(2)
    n_in, n_hidden = 3, 4
    kernel = tp.Variable(rng.normal(size=(n_in + n_hidden, 4 * n_hidden)).astype(np.float32) * 0.5,
                         name="lstm_kernel")
    bias = tp.Variable(rng.normal(size=(4 * n_hidden,)).astype(np.float32) * 0.1, name="lstm_bias")

    def lstm(xs):  # (batch, time, features) -> the hidden states (batch, time, hidden)
        batch = xs.shape[0]
        zeros = tp.zeros((batch, n_hidden), dtype=tp.float32)

        def cell(state, x):
            h, c = state
            gates = tp.concat([x, h], axis=1) @ kernel + bias
            i, f, g, o = (gates[:, k * n_hidden:(k + 1) * n_hidden] for k in range(4))
            c = tp.sigmoid(f) * c + tp.sigmoid(i) * tp.tanh(g)
            h = tp.sigmoid(o) * tp.tanh(c)
            return (h, c), h

        _, hs = tp.scan(cell, (zeros, zeros), tp.permute_dims(xs, (1, 0, 2)))
        return tp.permute_dims(hs, (1, 0, 2))

    xs = rng.normal(size=(2, 5, n_in)).astype(np.float32)
    model = tp.export.onnx_model(lstm, xs)
    agrees(model, lstm, xs)


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_a_scan_keeps_its_time_and_batch_axes_dynamic(reverse):
    w = tp.Variable(np.full((3, 4), 0.1, np.float32), name=f"rnn_w_{reverse}")
    u = tp.Variable(np.linspace(-0.5, 0.5, 16, dtype=np.float32).reshape(4, 4), name=f"rnn_u_{reverse}")

    def rnn(xs, h0):  # xs: (time, batch, 3), h0: (batch, 4)
        def cell(h, x):
            h = tp.tanh(x @ w + h @ u)
            return h, tp.cond(tp.sum(h) > 0, lambda a: a * 2.0, lambda a: a, h)
        return tp.scan(cell, h0, xs, reverse=reverse)

    rng = np.random.default_rng(3)
    model = tp.export.onnx_model(
        rnn, rng.normal(size=(5, 2, 3)).astype(np.float32), np.zeros((2, 4), np.float32),
        input_names=["xs", "h0"], output_names=["h", "hs"],
        dynamic_axes={"xs": {0: "time", 1: "batch"}, "h0": {0: "batch"}, "h": {0: "batch"},
                      "hs": {0: "time", 1: "batch"}})
    xs, h0 = rng.normal(size=(7, 6, 3)).astype(np.float32), rng.normal(size=(6, 4)).astype(np.float32)
    agrees(model, lambda xs, h0: tuple(rnn(xs, h0)), xs, h0)


def test_complex_values_pass_through_control_flow_as_real_pairs():
    def f(re, im, xs):
        def body(c, x):
            c = tp.cond(tp.sum(x) > 0, lambda a: a * a, lambda a: a + a, c)
            return c * 0.5 + tp.astype(x, tp.complex64), c
        last, ys = tp.scan(body, tp.complex(re, im), xs, reverse=True)
        return tp.real(last), tp.imag(ys)

    xs = np.random.default_rng(4).normal(size=(4, 2)).astype(np.float32)
    model = tp.export.onnx_model(f, vec(0.5, -1), vec(0.25, 1), xs)
    agrees(model, f, vec(0.5, -1), vec(0.25, 1), xs)
    agrees(model, f, vec(-2, 1), vec(0, 0.5), -xs)


def test_a_lowering_overridden_in_this_thread_serves_inside_a_loop_body_too():
    def twice(ctx):  # (Multiply written as x + x: right only for the call below, visibly ours)
        ctx.node("Add", [ctx.inputs[0], ctx.inputs[0]], ctx.out)

    def f(x):
        return tp.fori_loop(0, 3, lambda i, s: s * s, x)

    with override_onnx_lowering(OnnxLowering("Multiply", twice)):
        model = tp.export.onnx_model(f, vec(1, 3))
    np.testing.assert_allclose(run(model, vec(1, 3))[0], vec(8, 24))  # (three doublings)
