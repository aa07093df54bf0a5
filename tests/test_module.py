"""tp.nn.Module: children by path, the pytree node (grad, tree_map, jit, vmap), modes, freezing,
lazy build, error paths, summary, save and load."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import ArgumentError, CheckpointError, ShapeError, TracedValueError


class Affine(tp.nn.Module):
    """x @ w + b with w sized from the first input (a lazily built layer); a frozen-able unit."""

    def __init__(self, units: int, act=None) -> None:
        self.units = units
        self.act = act
        self.built = False

    def build(self, input_shape, dtype=None) -> None:
        n = input_shape[-1]
        self.w = tp.Variable(np.arange(n * self.units, dtype=np.float32).reshape(n, self.units) / 10)
        self.b = tp.Variable(np.zeros(self.units, np.float32))

    def forward(self, x):
        if x.shape[-1] != self.w.shape[0]:
            raise ShapeError(f"expected inputs with {self.w.shape[0]} features, got shape {tuple(x.shape)}")
        y = x @ self.w + self.b
        return y if self.act is None else self.act(y)


class Counter(tp.nn.Module):
    """A non-trainable state Variable advanced in training mode only."""

    def __init__(self) -> None:
        self.count = tp.Variable(np.float32(0), trainable=False)

    def forward(self, x):
        if self.training:
            self.count.assign_add(1.0)
        return x


class Net(tp.nn.Module):
    def __init__(self) -> None:
        self.body = tp.nn.Sequential([Affine(4, tp.nn.relu), Counter(), Affine(2)])
        self.scale = 2.0

    def forward(self, x):
        return self.body(x) * self.scale


X = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)


def built_net() -> Net:
    net = Net()
    net(X)
    return net


def test_children_are_tracked_by_path_in_assignment_order():
    net = built_net()
    assert [p for p, _ in net.named_variables()] == [
        "body.layers.0.w", "body.layers.0.b", "body.layers.1.count", "body.layers.2.w", "body.layers.2.b"]
    assert [p for p, _ in net.named_modules()] == [
        "", "body", "body.layers.0", "body.layers.1", "body.layers.2"]
    assert list(net.children()) == ["body"]
    assert net.count_params() == 3 * 4 + 4 + 1 + 4 * 2 + 2


def test_trainable_and_state_variables_and_freezing():
    net = built_net()
    counter = net.body[1].count
    assert all(v is not counter for v in net.trainable_variables())
    assert [v is counter for v in net.non_trainable_variables()] == [True]
    assert len(net.trainable_variables()) == 4
    net.body[0].freeze()
    assert [v.shape for v in net.trainable_variables()] == [(4, 2), (2,)]
    net.unfreeze()
    assert len(net.trainable_variables()) == 4


def test_modes_reach_every_module(backend):
    net = built_net()
    before = float(net.body[1].count)
    net.eval()
    assert not any(m.training for m in net.modules())
    net(X)
    assert float(net.body[1].count) == before
    net.train()
    net(X)
    assert float(net.body[1].count) == before + 1


def test_a_module_is_a_pytree_node_for_grad_and_tree_map(backend):
    net = built_net().eval()  # (tp.grad passes a model's tensors as values: Counter cannot assign then)
    grads = tp.grad(lambda m: tp.sum(m(X)))(net)
    assert type(grads) is Net and grads.scale == 2.0
    assert tp.tree_util.tree_structure(grads) == tp.tree_util.tree_structure(net)
    # the gradient of the last layer's bias is scale * (number of rows)
    np.testing.assert_allclose(grads.body[2].b.numpy(), [10.0, 10.0])
    # the same gradients as variable_grads over the model's Variables
    _, by_name = tp.variable_grads(lambda: tp.sum(net(X)), net.trainable_variables())
    np.testing.assert_allclose(by_name[net.body[0].w.name].numpy(), grads.body[0].w.numpy(), rtol=1e-6)
    halved = tp.tree_util.tree_map(lambda v: v * 0.5, net)
    np.testing.assert_allclose(halved.body[0].w.numpy(), net.body[0].w.numpy() * 0.5)


def test_a_module_goes_through_jit_and_vmap(backend):
    net = built_net()
    net.eval()
    f = tp.jit(lambda m, x: m(x))
    np.testing.assert_allclose(f(net, X).numpy(), net(X).numpy(), rtol=1e-6)
    per_row = tp.vmap(lambda x: net(x[None])[0])(tp.asarray(X))
    np.testing.assert_allclose(per_row.numpy(), net(X).numpy(), rtol=1e-6)


def test_errors_name_the_module_by_its_path():
    net = built_net()
    with pytest.raises(ShapeError,
                       match=r"Affine 'body\.layers\.0': expected inputs with 3 features.*\(5, 7\)"):
        net(np.ones((5, 7), np.float32))
    with pytest.raises(ArgumentError, match="define forward"):
        tp.nn.Module()(X)
    with pytest.raises(ArgumentError, match="Wrap a function in tp.nn.Lambda"):
        tp.nn.Sequential([tp.nn.relu])


def test_an_unbuilt_model_is_not_built_under_jit():
    net = Net()
    with pytest.raises(TracedValueError, match=r"not built yet.*model\.build\(input_shape\)"):
        tp.jit(lambda x: net(x))(X)
    net.build((None, 3))
    assert tp.jit(lambda x: net(x))(X).shape == (5, 2)


def test_summary_shows_output_shapes_and_parameter_counts():
    net = built_net()
    lines = []
    net.summary(print_fn=lines.append)
    text = lines[0]
    assert "(None, 4)" in text and "(None, 2)" in text
    assert "Total params: 27" in text and "Trainable params: 26" in text and "Non-trainable params: 1" in text
    with pytest.raises(ArgumentError, match=r"has not been called yet.*input_shape="):
        Net().summary()


def test_assign_variables_by_path_names_every_problem_at_once():
    net = built_net()
    values = {path: np.full(v.shape, 0.5, np.float32) for path, v in net.named_variables()}
    net.assign_variables(values)
    np.testing.assert_array_equal(net.body[2].w.numpy(), np.full((4, 2), 0.5))
    values["body.layers.0.w"] = np.zeros((2, 2))
    del values["body.layers.0.b"]
    values["body.head"] = np.zeros(1)
    with pytest.raises(ShapeError, match=r"3 problems.*missing: 'body\.layers\.0\.b'.*extra: 'body\.head'.*"
                                         r"'body\.layers\.0\.w': shape \(2, 2\), the variable's \(3, 4\)"):
        net.assign_variables(values)
    np.testing.assert_array_equal(net.body[0].w.numpy(), np.full((3, 4), 0.5))  # (nothing changed)


def test_save_and_load_by_path(tmp_path):
    pytest.importorskip("safetensors")
    net = built_net()
    path = tmp_path / "net.safetensors"
    net.save(path)
    assert set(tp.load(path)["body"]["layers"][0]) == {"w", "b"}  # a plain tree of the model's state
    other = built_net()
    other.body[0].w.assign(np.zeros((3, 4), np.float32))
    other.load(path)
    np.testing.assert_array_equal(other.body[0].w.numpy(), net.body[0].w.numpy())
    tp.save(path, net)  # tp.save and tp.load(like=) take a model as well
    assert tp.load(path, like=other) is not None

    wider = Net()
    wider.body.layers[0] = Affine(5)
    wider(X)
    with pytest.raises(CheckpointError,
                       match=r"(?s)3 differences.*\['body'\]\['layers'\]\[0\]\['w'\]: the file has "
                             r"float32\[3, 4\], the tree given float32\[3, 5\].*\[0\]\['b'\].*\[2\]\['w'\]"):
        wider.load(path)


def test_the_functional_optimizer_api_takes_a_model_and_leaves_its_state_alone(backend):
    model = tp.nn.Sequential([tp.nn.Dense(3, in_features=2), tp.nn.BatchNorm(in_features=3)])
    model.eval()
    x = np.ones((4, 2), np.float32)
    grads = tp.grad(lambda m: tp.sum(m(x) ** 2))(model)
    opt = tp.optimizers.AdamW(0.1, weight_decay=0.5)
    new = opt.update(model, grads)
    assert type(new) is tp.nn.Sequential
    assert not np.allclose(new[0].kernel.numpy(), model[0].kernel.numpy())
    np.testing.assert_array_equal(new[1].moving_variance.numpy(), np.ones(3))  # (no weight decay on state)
    state = opt.init(model)
    new, state = opt.apply(state, model, grads)
    np.testing.assert_array_equal(new[1].moving_mean.numpy(), np.zeros(3))
