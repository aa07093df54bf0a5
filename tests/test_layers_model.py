"""The layers together, as a user builds a model (issue 33 item 3): a small CNN in
tp.nn.Sequential builds lazily, summary() shows each layer's output shape and parameter count
(counted here by hand), and Adam under tp.jit trains it, on numpy and jax."""

from __future__ import annotations

import numpy as np

import tensorplug as tp


def small_cnn():
    return tp.nn.Sequential([tp.nn.Conv2D(8, 3, padding="same", activation="relu", seed=0),
                             tp.nn.MaxPool2D(2), tp.nn.Flatten(), tp.nn.Dense(10, seed=1)])


def test_a_cnn_builds_lazily_and_summarizes(backend):
    model = small_cnn()
    assert model.variables() == [] and not model.layers[0].built
    x = tp.asarray(np.random.default_rng(0).standard_normal((2, 8, 8, 1)).astype(np.float32))
    assert model(x).shape == (2, 10)
    conv_params = 3 * 3 * 1 * 8 + 8  # kernel (3, 3, 1, 8) and bias (8,)
    dense_params = (4 * 4 * 8) * 10 + 10  # 8x8 pooled to 4x4 with 8 channels, flattened
    assert [(name, v.shape) for name, v in model.named_variables()] == [
        ("layers.0.kernel", (3, 3, 1, 8)), ("layers.0.bias", (8,)), ("layers.3.kernel", (128, 10)),
        ("layers.3.bias", (10,))]
    lines = []
    model.summary(print_fn=lines.append)
    rows = {line.split()[0]: line.split() for line in lines[0].splitlines()[3:8]}
    assert rows["layers.0"][1:] == ["Conv2D", "(None,", "8,", "8,", "8)", str(conv_params)]
    assert rows["layers.1"][1:] == ["MaxPool2D", "(None,", "4,", "4,", "8)", "0"]
    assert rows["layers.2"][1:] == ["Flatten", "(None,", "128)", "0"]
    assert rows["layers.3"][1:] == ["Dense", "(None,", "10)", f"{dense_params:,}"]
    assert f"Total params: {conv_params + dense_params:,}" in lines[0]
    assert model.count_params() == conv_params + dense_params == 1370


def test_a_cnn_trains_with_adam_under_jit(backend):
    rng = np.random.default_rng(1)
    x = tp.asarray(rng.standard_normal((16, 8, 8, 1)).astype(np.float32))
    y = tp.asarray(rng.integers(0, 10, size=16))
    model = small_cnn()
    model(x)  # built outside tp.jit
    opt = tp.optimizers.Adam(1e-2)

    def loss(logits, labels):
        return tp.nn.sparse_softmax_cross_entropy(labels, logits)

    step = tp.jit(lambda x, y: opt.minimize(lambda: loss(model(x), y), model.trainable_variables()))
    first = float(loss(model(x), y))
    losses = [float(step(x, y)) for _ in range(20)]
    assert losses[-1] < 0.5 * first, (first, losses)
    assert float(loss(model(x), y)) < losses[-1]  # (each step returns the loss before its update)


def test_built_layers_of_one_configuration_are_one_tree_structure(backend):
    """Seeds and initializers serve the build only: two models alike but for them map together
    (an average of two models, an EMA of the weights) once built."""
    def make(seed):
        he = tp.nn.initializers.he_normal()  # (a new one for each model)
        return tp.nn.Sequential([tp.nn.Conv2D(4, 3, seed=seed, kernel_initializer=he),
                                 tp.nn.SeparableConv2D(2, 3, seed=seed + 1), tp.nn.Flatten(),
                                 tp.nn.Dense(3, seed=seed + 2, in_features=8)])
    a, b = make(0), make(10)
    x = tp.ones((1, 6, 6, 1))
    a(x), b(x)
    mean = tp.tree_util.tree_map(lambda u, v: (u + v) / 2, a, b)
    np.testing.assert_allclose(np.asarray(mean.layers[3].kernel),
                               (np.asarray(a.layers[3].kernel) + np.asarray(b.layers[3].kernel)) / 2)
    assert mean(x).shape == (1, 3)
