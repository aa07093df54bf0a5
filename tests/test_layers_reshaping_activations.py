"""The layers without variables: Flatten and Reshape, and the activation layers (ReLU, GELU,
Sigmoid, Tanh, Softmax, LeakyReLU, ELU, SiLU, Activation) against torch on both backends
(values and input gradients in float64), with their construction and call errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tensorplug as tp
from _torch_layers import check_against_torch
from tensorplug.errors import ArgumentError, ShapeError

torch.set_num_threads(1)

LAYERS = {  # id: (layer, torch function of x, input shape)
    "flatten": (lambda: tp.nn.Flatten(), lambda x: torch.flatten(x, 1), (2, 3, 4, 2)),
    "flatten-1d": (lambda: tp.nn.Flatten(), lambda x: x.reshape(-1, 1), (3,)),
    "reshape": (lambda: tp.nn.Reshape((4, 6)), lambda x: x.reshape(2, 4, 6), (2, 3, 8)),
    "reshape-minus-one": (lambda: tp.nn.Reshape([-1, 2]), lambda x: x.reshape(2, 12, 2), (2, 3, 8)),
    "relu": (lambda: tp.nn.ReLU(), F.relu, (3, 5)),
    "gelu-tanh": (lambda: tp.nn.GELU(), lambda x: F.gelu(x, approximate="tanh"), (3, 5)),
    "gelu-exact": (lambda: tp.nn.GELU(approximate=False), F.gelu, (3, 5)),
    "sigmoid": (lambda: tp.nn.Sigmoid(), torch.sigmoid, (3, 5)),
    "tanh": (lambda: tp.nn.Tanh(), torch.tanh, (3, 5)),
    "softmax": (lambda: tp.nn.Softmax(), lambda x: torch.softmax(x, -1), (3, 5)),
    "softmax-axis": (lambda: tp.nn.Softmax(axis=1), lambda x: torch.softmax(x, 1), (2, 3, 4)),
    "leaky": (lambda: tp.nn.LeakyReLU(), lambda x: F.leaky_relu(x, 0.01), (3, 5)),
    "leaky-slope": (lambda: tp.nn.LeakyReLU(0.3), lambda x: F.leaky_relu(x, 0.3), (3, 5)),
    "elu": (lambda: tp.nn.ELU(), F.elu, (3, 5)),
    "elu-alpha": (lambda: tp.nn.ELU(0.5), lambda x: F.elu(x, 0.5), (3, 5)),
    "silu": (lambda: tp.nn.SiLU(), F.silu, (3, 5)),
    "activation-name": (lambda: tp.nn.Activation("SELU"), F.selu, (3, 5)),
    "activation-softplus": (lambda: tp.nn.Activation("softplus"), F.softplus, (3, 5)),
    "activation-fn": (lambda: tp.nn.Activation(tp.nn.relu6), F.relu6, (3, 5)),
    "activation-linear": (lambda: tp.nn.Activation("linear"), lambda x: x * 1, (3, 5)),
}


@pytest.mark.parametrize("name", LAYERS)
def test_layers_match_torch(backend, name):
    make, torch_fn, shape = LAYERS[name]
    x = np.random.default_rng(6).standard_normal(shape)
    layer = make()
    assert layer.variables() == []
    check_against_torch(layer, x, lambda x, w: torch_fn(x))


def test_reprs_read_as_configured():
    assert repr(tp.nn.Reshape((4, -1))) == "Reshape(target_shape=(4, -1))"
    assert repr(tp.nn.Activation("ReLU")) == "Activation(activation='relu')"
    assert repr(tp.nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"
    assert repr(tp.nn.Flatten()) == "Flatten()"


@pytest.mark.parametrize("make, error, match", [
    (lambda: tp.nn.Reshape(6), ArgumentError, r"^Reshape: target_shape must be a tuple of ints"),
    (lambda: tp.nn.Reshape((2, 0)), ShapeError, r"^Reshape: target_shape \(2, 0\) must hold sizes >= 1"),
    (lambda: tp.nn.Reshape((-1, -1)), ShapeError, r"at most one -1"),
    (lambda: tp.nn.Reshape((2.0, 3)), ArgumentError, r"^Reshape: target_shape must be an int, got 2\.0"),
    (lambda: tp.nn.Activation("rlu"), ShapeError,
     r"^Activation: activation 'rlu' is unknown.*Did you mean 'relu'"),
    (lambda: tp.nn.Activation(None), ArgumentError,
     r"^Activation: activation must be a name.*'linear' for none"),
    (lambda: tp.nn.LeakyReLU(-0.1), ShapeError, r"^LeakyReLU: negative_slope must be >= 0, got -0\.1"),
    (lambda: tp.nn.ELU("1"), ArgumentError, r"^ELU: alpha must be"),
    (lambda: tp.nn.Softmax(axis=1.0), ArgumentError, r"^Softmax: axis must be an int"),
    (lambda: tp.nn.GELU(approximate="tanh"), ArgumentError, r"^GELU: approximate must be True or False"),
])
def test_construction_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_call_errors_name_the_layer_and_its_path():
    with pytest.raises(ShapeError, match=r"^Reshape: cannot reshape examples of shape \(3, 8\) "
                                         r"\(24 elements\) to target_shape \(5, -1\)"):
        tp.nn.Reshape((5, -1))(tp.ones((2, 3, 8)))
    with pytest.raises(ShapeError, match=r"^Flatten: expected inputs with a batch axis"):
        tp.nn.Flatten()(tp.asarray(1.0))
    model = tp.nn.Sequential([tp.nn.Flatten(), tp.nn.Reshape((7,))])
    with pytest.raises(ShapeError, match=r"^Reshape 'layers\.1': cannot reshape examples of shape \(6,\)"):
        model(tp.ones((2, 2, 3)))
