"""The recurrent layers (tp.nn.SimpleRNN, LSTM, GRU over their cells, Bidirectional) against
torch.nn.RNN/LSTM/GRU(batch_first=True) given the same weights, on both backends, in float64:
the output sequence, the final states and the gradients of the input, the initial states and
every weight; masking against a loop over the cell by hand; their construction and call
errors; training with fit under tp.jit."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
from torch.func import functional_call

import tensorplug as tp
from tensorplug.errors import ArgumentError, DTypeError, ShapeError

torch.set_num_threads(1)

B, T, F, U = 2, 5, 3, 4
LAYERS = {  # name: (tensorplug layer class, torch module class, number of states)
    "SimpleRNN": (tp.nn.SimpleRNN, torch.nn.RNN, 1),
    "LSTM": (tp.nn.LSTM, torch.nn.LSTM, 2),
    "GRU": (tp.nn.GRU, torch.nn.GRU, 1),
}


def _gates_to_torch(name: str, w: torch.Tensor) -> torch.Tensor:
    """A weight of tensorplug's layout (..., gates * U) in torch's gate order (LSTM: i, f, o, c
    -> i, f, g, o; GRU: z, r, h -> r, z, n)."""
    if name == "GRU":
        z, r, h = torch.split(w, U, dim=-1)
        return torch.cat([r, z, h], dim=-1)
    if name == "LSTM":
        i, f, o, c = torch.split(w, U, dim=-1)
        return torch.cat([i, f, c, o], dim=-1)
    return w


def _torch_params(name: str, w: dict[str, torch.Tensor], suffix: str = "") -> dict[str, torch.Tensor]:
    """torch's parameters (weight_ih_l0, ...) computed from the layer's weights (so torch's
    autograd gives the gradients of the layer's)."""
    out = {f"weight_ih_l0{suffix}": _gates_to_torch(name, w["cell.kernel"]).T,
           f"weight_hh_l0{suffix}": _gates_to_torch(name, w["cell.recurrent_kernel"]).T,
           f"bias_ih_l0{suffix}": _gates_to_torch(name, w["cell.bias"])}
    out[f"bias_hh_l0{suffix}"] = (_gates_to_torch(name, w["cell.recurrent_bias"]) if name == "GRU"
                                  else torch.zeros_like(w["cell.bias"]))
    return out


def _at(tree, path):
    """The leaf at a dotted `path` of a module (of gradients)."""
    return np.asarray(functools.reduce(getattr, path.split("."), tree))


def _leaves(tree):
    return [np.asarray(t) for t in (tree if isinstance(tree, tuple) else (tree,))]


def _compare(outs, grads, torch_outs, torch_grads):
    for i, (a, b) in enumerate(zip(outs, torch_outs, strict=True)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8, err_msg=f"output {i}")
    for key, b in torch_grads.items():
        np.testing.assert_allclose(grads[key], b, rtol=1e-6, atol=1e-8, err_msg=f"gradient of {key}")


@pytest.mark.parametrize("name", LAYERS)
def test_a_layer_matches_torch_values_states_and_gradients(backend, name):
    cls, torch_cls, n_states = LAYERS[name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((B, T, F))
    init = tuple(rng.standard_normal((B, U)) for _ in range(n_states))
    layer = cls(U, return_sequences=True, return_state=True, bias_initializer=tp.nn.initializers.normal(0.5),
                seed=2)
    layer(x)
    weights = dict(layer.named_variables())
    rs = [rng.standard_normal((B, T, U))] + [rng.standard_normal((B, U)) for _ in range(n_states)]

    def loss(lay, x, init):
        outs = lay(x, initial_state=init)
        return sum(tp.sum(o * r) for o, r in zip(outs, rs))

    outs = _leaves(layer(tp.asarray(x), initial_state=tuple(tp.asarray(s) for s in init)))
    g_layer, g_x, g_init = tp.grad(loss, argnums=(0, 1, 2))(layer, tp.asarray(x),
                                                           tuple(tp.asarray(s) for s in init))
    grads = {"x": np.asarray(g_x), **{f"state{i}": np.asarray(g) for i, g in enumerate(g_init)},
             **{path: _at(g_layer, path) for path in weights}}

    w = {k: torch.tensor(np.asarray(v), requires_grad=True) for k, v in weights.items()}
    xt = torch.tensor(x, requires_grad=True)
    it = [torch.tensor(s[None], requires_grad=True) for s in init]
    module = torch_cls(F, U, batch_first=True).double()
    seq, final = functional_call(module, _torch_params(name, w), (xt, tuple(it) if n_states == 2 else it[0]))
    finals = list(final) if n_states == 2 else [final]
    torch_outs = [seq] + [f[0] for f in finals]
    sum((o * torch.tensor(r)).sum() for o, r in zip(torch_outs, rs)).backward()
    torch_grads = {"x": xt.grad.numpy(), **{f"state{i}": t.grad[0].numpy() for i, t in enumerate(it)},
                   **{k: t.grad.numpy() for k, t in w.items()}}
    assert set(torch_grads) == set(grads)
    _compare(outs, grads, [o.detach().numpy() for o in torch_outs], torch_grads)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_bidirectional_matches_torch(backend, name):
    cls, torch_cls, n_states = LAYERS[name]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((B, T, F))
    layer = tp.nn.Bidirectional(cls(U, return_sequences=True, return_state=True,
                                    bias_initializer=tp.nn.initializers.normal(0.5), seed=3), seed=4)
    layer(x)
    rs = [rng.standard_normal((B, T, 2 * U))] + [rng.standard_normal((B, U)) for _ in range(2 * n_states)]

    def loss(lay, x):
        return sum(tp.sum(o * r) for o, r in zip(lay(x), rs))

    outs = _leaves(layer(tp.asarray(x)))
    g_layer, g_x = tp.grad(loss, argnums=(0, 1))(layer, tp.asarray(x))
    grads = {"x": np.asarray(g_x), **{path: _at(g_layer, path) for path, _ in layer.named_variables()}}

    w = {k: torch.tensor(np.asarray(v), requires_grad=True) for k, v in layer.named_variables()}
    params = {**_torch_params(name, {k.removeprefix("forward_layer."): v for k, v in w.items()
                                     if k.startswith("forward_layer.")}),
              **_torch_params(name, {k.removeprefix("backward_layer."): v for k, v in w.items()
                                     if k.startswith("backward_layer.")}, "_reverse")}
    xt = torch.tensor(x, requires_grad=True)
    module = torch_cls(F, U, batch_first=True, bidirectional=True).double()
    seq, final = functional_call(module, params, (xt,))
    finals = list(final) if n_states == 2 else [final]
    torch_outs = [seq] + [f[0] for f in finals] + [f[1] for f in finals]  # (forward's states, backward's)
    sum((o * torch.tensor(r)).sum() for o, r in zip(torch_outs, rs)).backward()
    torch_grads = {"x": xt.grad.numpy(), **{k: t.grad.numpy() for k, t in w.items()}}
    assert set(torch_grads) == set(grads)
    _compare(outs, grads, [o.detach().numpy() for o in torch_outs], torch_grads)


def _hand_loop(cell, x, mask, backwards=False):
    """The masked layer's (sequence, final states) by a loop over the cell, step by step."""
    states = tuple(tp.zeros((B, U), dtype=tp.float64) for _ in cell.state_size)
    outs = []
    steps = range(T - 1, -1, -1) if backwards else range(T)
    for t in steps:
        m = tp.asarray(mask[:, t:t + 1])
        out, new = cell(x[:, t], states)
        states = tuple(tp.where(m, n, s) for n, s in zip(new, states))
        outs.append(tp.where(m, out, tp.zeros_like(out)))
    return tp.stack(outs, axis=1), states


@pytest.mark.parametrize("name,backwards", [("LSTM", False), ("GRU", True)])
def test_masked_steps_keep_the_state_and_output_zeros(backend, name, backwards):
    rng = np.random.default_rng(2)
    x = tp.asarray(rng.standard_normal((B, T, F)))
    mask = np.array([[True, True, False, True, False], [False, True, True, True, True]])
    layer = LAYERS[name][0](U, return_sequences=True, return_state=True, go_backwards=backwards, seed=5)
    layer(x)
    r = tp.asarray(rng.standard_normal((B, T, U)))
    got = layer(x, mask=mask)
    seq, states = _hand_loop(layer.cell, x, mask, backwards)
    np.testing.assert_allclose(np.asarray(got[0]), np.asarray(seq), rtol=1e-12, atol=1e-12)
    for a, b in zip(got[1:], states, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)
    assert not np.asarray(got[0])[~mask[:, ::-1] if backwards else ~mask].any()
    last = LAYERS[name][0](U, seed=5)  # (return_sequences=False: the last unmasked step's output)
    last(x)
    np.testing.assert_allclose(np.asarray(last(x, mask=mask)),
                               np.asarray(_hand_loop(last.cell, x, mask)[1][0]), rtol=1e-12, atol=1e-12)
    g = tp.grad(lambda lay: tp.sum(lay(x, mask=mask)[0] * r))(layer)
    g_hand = tp.grad(lambda c: tp.sum(_hand_loop(c, x, mask, backwards)[0] * r))(
        layer.cell)
    for path, _ in layer.cell.named_variables():
        np.testing.assert_allclose(_at(g.cell, path), _at(g_hand, path), rtol=1e-10, atol=1e-12, err_msg=path)


def test_construction_defaults_and_shapes():
    lstm = tp.nn.LSTM(4, seed=0)
    y = lstm(np.ones((2, 5, 3), np.float32))
    assert y.shape == (2, 4) and y.dtype == tp.float32
    assert [(n, v.shape) for n, v in lstm.named_variables()] == [
        ("cell.kernel", (3, 16)), ("cell.recurrent_kernel", (4, 16)), ("cell.bias", (16,))]
    np.testing.assert_array_equal(np.asarray(lstm.cell.bias), [0] * 4 + [1] * 4 + [0] * 8)  # unit_forget_bias
    rk = np.asarray(tp.nn.SimpleRNN(4, seed=0).cell.__class__(4, in_features=3, seed=0).recurrent_kernel)
    np.testing.assert_allclose(rk.T @ rk, np.eye(4), atol=1e-5)  # orthogonal
    cell = tp.nn.GRUCell(4, in_features=3, seed=0)
    h, (h2,) = cell(np.ones((2, 3), np.float32), (tp.zeros((2, 4)),))
    assert h.shape == (2, 4) and h2 is h
    assert tp.nn.Bidirectional(tp.nn.GRU(4), merge_mode="sum")(np.ones((2, 5, 3))).shape == (2, 4)
    assert tp.nn.Bidirectional(tp.nn.GRU(4, return_sequences=True))(np.ones((2, 5, 3))).shape == (2, 5, 8)


def test_errors_name_the_layer_and_the_fix():
    x = np.ones((2, 5, 3))
    with pytest.raises(ShapeError, match=r"^LSTM: expected 3-d inputs \(batch, time, features\), got shape "
                                         r"\(5, 3\)"):
        tp.nn.LSTM(4)(np.ones((5, 3)))
    lstm = tp.nn.LSTM(4)
    with pytest.raises(ArgumentError, match=r"^LSTM: initial_state must hold 2 tensor\(s\) .* got 1"):
        lstm(x, initial_state=[np.zeros((2, 4))])
    with pytest.raises(ShapeError, match=r"^LSTM: initial_state: each state must have shape "
                                         r"\(batch, units\) = \(2, 4\), got \(2, 3\)"):
        lstm(x, initial_state=[np.zeros((2, 3))] * 2)
    with pytest.raises(DTypeError, match=r"^LSTM: mask must be bool .* got int64"):
        lstm(x, mask=np.ones((2, 5), np.int64))
    with pytest.raises(ShapeError, match=r"^LSTM: mask must have shape \(batch, time\) = \(2, 5\), "
                                         r"got \(5, 2\)"):
        lstm(x, mask=np.ones((5, 2), bool))
    with pytest.raises(ShapeError, match=r"^LSTM: expected inputs with 3 features"):
        lstm(np.ones((2, 5, 6)))
    with pytest.raises(ShapeError, match=r"merge_mode must be one of 'concat', 'sum', 'mul', 'ave', "
                                         r"got 'avg'"):
        tp.nn.Bidirectional(tp.nn.GRU(4), merge_mode="avg")
    with pytest.raises(ArgumentError, match=r"^Bidirectional: layer must not be built yet"):
        tp.nn.Bidirectional(lstm)
    with pytest.raises(ArgumentError, match=r"^Bidirectional: layer must be a recurrent layer"):
        tp.nn.Bidirectional(tp.nn.Dense(3))
    with pytest.raises(ArgumentError, match=r"^RNN: cell must be a recurrent cell"):
        tp.nn.RNN(tp.nn.Dense(3))
    with pytest.raises(ArgumentError, match=r"^LSTMCell: states must be a tuple of 2 tensor\(s\)"):
        tp.nn.LSTMCell(4, in_features=3)(np.ones((2, 3)), tp.zeros((2, 4)))


def test_an_lstm_model_trains_with_fit_under_jit(backend):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 6, 2)).astype(np.float32)
    y = (x[:, :, 0].sum(axis=1) > 0).astype(np.int64)

    def make():
        tp.nn.set_seed(0)
        return tp.nn.Sequential([tp.nn.LSTM(8), tp.nn.Dense(2)])

    runs = {}
    for jit in (True, False):
        model = make()
        history = model.fit(x, y, loss="sparse_softmax_cross_entropy", optimizer=tp.optimizers.Adam(5e-2),
                            epochs=3, batch_size=32, jit_compile=jit, progress=False)
        runs[jit] = history.history["loss"]
    assert runs[True][-1] < runs[True][0] * 0.9, runs[True]
    np.testing.assert_allclose(runs[True], runs[False], rtol=1e-4)
