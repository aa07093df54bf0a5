"""The layers Dense and the convolutions (tp.nn.Dense, Conv1D/2D/3D, Conv2DTranspose,
DepthwiseConv2D, SeparableConv2D) against torch on both backends: values and gradients (of the
input and every weight) in float64; their construction and call errors; lazy building, seeds,
and the shared argument checks (tensorplug.models.layers.arguments)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tensorplug as tp
from _torch_layers import TORCH_ACTIVATIONS, check_against_torch
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.models.layers import arguments

torch.set_num_threads(1)


# -- Dense ------------------------------------------------------------------------------------
DENSE = {  # id: (config, input shape)
    "plain": (dict(units=3), (4, 5)),
    "relu-3d": (dict(units=4, activation="relu"), (2, 3, 5)),
    "tanh-nobias-1d": (dict(units=2, use_bias=False, activation="tanh"), (5,)),
    "sigmoid": (dict(units=3, activation="Sigmoid"), (3, 4)),
    "gelu": (dict(units=3, activation="gelu"), (3, 4)),
    "leaky": (dict(units=3, activation="leaky_relu"), (3, 4)),
    "softmax": (dict(units=4, activation="softmax"), (3, 4)),
    "callable": (dict(units=2, activation=tp.nn.elu), (3, 4)),
    "in_features": (dict(units=2, in_features=4), (3, 4)),
}


def torch_dense(config):
    activation = config.get("activation")
    act = TORCH_ACTIVATIONS[activation.lower() if isinstance(activation, str) else
                            ("elu" if activation is not None else None)]
    return lambda x, w: act(F.linear(x, w["kernel"].T, w.get("bias")))


@pytest.mark.parametrize("name", DENSE)
def test_dense_matches_torch(backend, name):
    config, shape = DENSE[name]
    x = np.random.default_rng(1).standard_normal(shape)
    check_against_torch(tp.nn.Dense(**config, seed=3), x, torch_dense(config))


def test_dense_builds_from_its_first_input_or_at_once():
    layer = tp.nn.Dense(4)
    assert not layer.built and layer.variables() == []
    layer(np.ones((2, 3)))
    assert layer.built and [(n, v.shape, v.dtype) for n, v in layer.named_variables()] == [
        ("kernel", (3, 4), tp.float64), ("bias", (4,), tp.float64)]
    eager = tp.nn.Dense(4, in_features=3)
    assert eager.built and [v.shape for v in eager.variables()] == [(3, 4), (4,)]
    assert eager.variables()[0].dtype == tp.float32
    assert tp.nn.Dense(4)(tp.ones((2, 3), dtype=tp.int32)).dtype == tp.float32
    assert repr(tp.nn.Dense(4, activation="ReLU")) == \
        "Dense(units=4, activation='relu', use_bias=True, in_features=None)"


def test_dense_seeds_are_reproducible_and_distinct():
    a, b = tp.nn.Dense(4, seed=7, in_features=3), tp.nn.Dense(4, seed=7, in_features=3)
    np.testing.assert_array_equal(np.asarray(a.kernel), np.asarray(b.kernel))
    tp.nn.set_seed(5)
    first = [tp.nn.Dense(4, in_features=3) for _ in range(2)]
    tp.nn.set_seed(5)
    again = [tp.nn.Dense(4, in_features=3) for _ in range(2)]
    for x, y in zip(first, again):
        np.testing.assert_array_equal(np.asarray(x.kernel), np.asarray(y.kernel))
    assert not np.array_equal(np.asarray(first[0].kernel), np.asarray(first[1].kernel))
    ones = tp.nn.Dense(3, seed=1, in_features=3, bias_initializer=tp.nn.initializers.normal())
    assert not np.array_equal(np.asarray(ones.kernel)[0], np.asarray(ones.bias))


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(units=0), ShapeError, r"Dense: units must be a positive int, got 0"),
    (dict(units=-3), ShapeError, r"Dense: units must be a positive int, got -3"),
    (dict(units=2.5), ArgumentError, r"Dense: units must be an int, got 2\.5"),
    (dict(units=2, activation="rleu"), ShapeError,
     r"Dense: activation 'rleu' is unknown.*Did you mean 'relu'"),
    (dict(units=2, activation=3), ArgumentError, r"Dense: activation must be a name such as 'relu'"),
    (dict(units=2, in_features=0), ShapeError, r"Dense: in_features must be a positive int"),
    (dict(units=2, use_bias="yes"), ArgumentError, r"Dense: use_bias must be True or False"),
    (dict(units=2, kernel_initializer="glorot"), ArgumentError, r"Dense: kernel_initializer must be an "
                                                                r"initializer"),
    (dict(units=2, seed=1.5), ArgumentError, r"Dense: seed must be an int"),
])
def test_dense_construction_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        tp.nn.Dense(**kwargs)


def test_dense_call_errors_name_the_layer_and_its_path():
    layer = tp.nn.Dense(3, in_features=4)
    with pytest.raises(ShapeError, match=r"^Dense: expected inputs with 4 features on axis -1 \(it was built "
                                         r"for those\), got shape \(2, 5\)"):
        layer(tp.ones((2, 5)))
    with pytest.raises(ShapeError, match=r"^Dense: expected inputs of at least 1 dim"):
        layer(tp.asarray(1.0))
    model = tp.nn.Sequential([tp.nn.Dense(4), tp.nn.Dense(2, in_features=3)])
    with pytest.raises(ShapeError, match=r"^Dense 'layers\.1': expected inputs with 3 features"):
        model(tp.ones((2, 6)))


# -- the shared argument checks -----------------------------------------------------------------
def test_every_activation_of_tp_nn_resolves_by_name():
    unary = [n for n in tp.nn.__all__ if n in tp.nn.__dict__ and callable(getattr(tp.nn, n))
             and n not in ("prelu",) and n in arguments.ACTIVATIONS]
    assert {"relu", "gelu", "sigmoid", "softmax", "elu", "selu", "silu", "swish", "softplus", "mish",
            "leaky_relu", "log_softmax", "log_sigmoid", "relu6", "step"} <= set(unary)
    x = tp.asarray(np.linspace(-2, 2, 6))
    for name in [*unary, "tanh"]:
        fn = arguments.activation(name.upper(), "Dense")
        np.testing.assert_allclose(np.asarray(fn(x)), np.asarray(arguments.ACTIVATIONS[name](x)))
    assert arguments.activation("linear", "Dense") is None and arguments.activation(None, "Dense") is None


def test_argument_checks():
    assert arguments.per_dim(3, 2, "Conv2D", "kernel_size") == (3, 3)
    assert arguments.per_dim([1, 2, 3], 3, "Conv3D", "strides") == (1, 2, 3)
    assert arguments.padding("SAME", "Conv2D") == "same"
    with pytest.raises(ShapeError, match=r"Conv2D: kernel_size \(3, 3\) has 2 entries for 3 spatial dim"):
        arguments.per_dim((3, 3), 3, "Conv2D", "kernel_size")
    with pytest.raises(ShapeError, match=r"Conv2D: kernel_size must be >= 1 on every spatial dim, got 0"):
        arguments.per_dim(0, 2, "Conv2D", "kernel_size")
    with pytest.raises(ShapeError, match=r"Conv2D: padding 'smae' is not one of 'valid', 'same'\. "
                                         r"Did you mean 'same'\?"):
        arguments.padding("smae", "Conv2D")
    with pytest.raises(ArgumentError, match=r"Conv2D: padding must be a str"):
        arguments.padding(1, "Conv2D")
    with pytest.raises(ShapeError, match=r"Conv2D: data_format 'channels_frist' is not one of .*Did you mean "
                                         r"'channels_first'"):
        arguments.data_format("channels_frist", "Conv2D")
    assert arguments.rate(0.5, "Dropout") == 0.5
    for bad in (1.0, -0.1):
        with pytest.raises(ShapeError, match=r"Dropout: rate must be in \[0, 1\)"):
            arguments.rate(bad, "Dropout")
