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


def test_a_built_layer_is_not_built_again():
    for layer in (tp.nn.Dense(2, in_features=3), tp.nn.Conv2D(2, 3, in_channels=1)):
        name = type(layer).__name__
        with pytest.raises(ArgumentError, match=rf"^{name}\.build: the layer is built already"):
            layer.build((None, 5, 5, 4))


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
    normal = tp.nn.initializers.normal()  # (one seed would give kernel and bias the same first values)
    layer = tp.nn.Dense(3, seed=1, in_features=3, kernel_initializer=normal, bias_initializer=normal)
    assert not np.array_equal(np.asarray(layer.kernel)[0], np.asarray(layer.bias))


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


# -- convolutions -------------------------------------------------------------------------------
CONV = {  # id: (layer class, config, input shape)
    "1d": ("Conv1D", dict(filters=4, kernel_size=3), (2, 7, 3)),
    "1d-same-stride2-cf": ("Conv1D", dict(filters=3, kernel_size=4, strides=2, padding="same",
                                          data_format="channels_first"), (2, 3, 9)),
    "2d-same-relu": ("Conv2D", dict(filters=4, kernel_size=3, padding="same", activation="relu"),
                     (2, 6, 6, 3)),
    "2d-same-stride2": ("Conv2D", dict(filters=4, kernel_size=(3, 2), strides=2, padding="SAME"),
                        (2, 8, 6, 3)),
    "2d-dilated-groups": ("Conv2D", dict(filters=4, kernel_size=3, dilation_rate=2, groups=2,
                                         activation="tanh"), (1, 8, 8, 4)),
    "2d-cf-nobias-gelu": ("Conv2D", dict(filters=2, kernel_size=2, data_format="channels_first",
                                         use_bias=False, activation="gelu"), (2, 3, 5, 5)),
    "3d-same": ("Conv3D", dict(filters=2, kernel_size=2, strides=(1, 2, 1), padding="same"), (1, 4, 5, 4, 2)),
    "3d-cf": ("Conv3D", dict(filters=3, kernel_size=2, data_format="channels_first", activation="sigmoid"),
              (1, 2, 3, 4, 3)),
    "transpose": ("Conv2DTranspose", dict(filters=3, kernel_size=3, strides=2), (2, 4, 4, 2)),
    "transpose-same-relu": ("Conv2DTranspose", dict(filters=3, kernel_size=3, strides=2, padding="same",
                                                    activation="relu"), (2, 4, 5, 2)),
    "transpose-outpad-cf": ("Conv2DTranspose", dict(filters=2, kernel_size=3, strides=2, output_padding=1,
                                                    data_format="channels_first"), (1, 2, 4, 4)),
    "transpose-dilated": ("Conv2DTranspose", dict(filters=2, kernel_size=2, dilation_rate=2), (1, 4, 4, 3)),
    "depthwise": ("DepthwiseConv2D", dict(kernel_size=3, depth_multiplier=2), (2, 6, 6, 3)),
    "depthwise-same-stride2-relu": ("DepthwiseConv2D", dict(kernel_size=3, strides=2, padding="same",
                                                            activation="relu"), (2, 8, 7, 3)),
    "depthwise-cf-softplus": ("DepthwiseConv2D", dict(kernel_size=2, data_format="channels_first",
                                                      activation="softplus"), (1, 2, 5, 5)),
    "separable-elu": ("SeparableConv2D", dict(filters=4, kernel_size=3, depth_multiplier=2, activation="elu"),
                      (2, 6, 6, 3)),
    "separable-same-stride2-cf": ("SeparableConv2D", dict(filters=3, kernel_size=3, strides=2, padding="same",
                                                          data_format="channels_first"), (1, 3, 6, 7)),
}
TORCH_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _per_dim(value, rank):
    return tuple(value) if isinstance(value, tuple) else (value,) * rank


def keras_same_pads(sizes, kernel, strides, dilation):
    """Keras's (TF's) 'same' padding: output ceil(n / s), the odd pad at the end (torch's
    padding='same' takes no stride, and splits evenly otherwise)."""
    pads = []
    for n, k, s, d in zip(sizes, kernel, strides, dilation):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def _pad(x, pads):
    return F.pad(x, [v for lo_hi in reversed(pads) for v in lo_hi])


def torch_conv(kind, config, rank):
    """The torch function of a convolution layer of `config`, on its weights in our layouts:
    inputs moved to channels-first, 'same' padded first with F.pad as Keras pads."""
    last = config.get("data_format", "channels_last") == "channels_last"
    act = TORCH_ACTIVATIONS[config.get("activation")]
    k, s, d = (_per_dim(config.get(a, 1), rank) for a in ("kernel_size", "strides", "dilation_rate"))
    same = config.get("padding", "valid").lower() == "same"
    to_first = (0, rank + 1, *range(1, rank + 1))
    to_last = (0, *range(2, rank + 2), 1)
    spatial = tuple(range(rank))

    def fn(x, w):
        x = x.permute(to_first) if last else x
        b = w.get("bias")
        if kind == "Conv2DTranspose":
            y = F.conv_transpose2d(x, w["kernel"].permute(3, 2, 0, 1), b, s, 0,
                                   _per_dim(config.get("output_padding", 0), 2), 1, d)
            if same:  # the gradient of a 'same' convolution from an output of n * s: crop its pads
                pads = keras_same_pads([n * st for n, st in zip(x.shape[2:], s)], k, s, d)
                y = y[:, :, pads[0][0]:y.shape[2] - pads[0][1], pads[1][0]:y.shape[3] - pads[1][1]]
        else:
            if same:
                x = _pad(x, keras_same_pads(x.shape[2:], k, s, d))
            if kind == "DepthwiseConv2D" or kind == "SeparableConv2D":
                dw = w["kernel" if kind == "DepthwiseConv2D" else "depthwise_kernel"]
                channels = dw.shape[2]
                grouped = dw.reshape(*k, -1).permute(2, 0, 1).unsqueeze(1)
                y = F.conv2d(x, grouped, b if kind == "DepthwiseConv2D" else None, s, 0, d, channels)
                if kind == "SeparableConv2D":
                    y = F.conv2d(y, w["pointwise_kernel"][0, 0].T[:, :, None, None], b)
            else:
                weight = w["kernel"].permute(rank + 1, rank, *spatial)
                y = TORCH_CONV[rank](x, weight, b, s, 0, d, config.get("groups", 1))
        y = act(y)
        return y.permute(to_last) if last else y

    return fn


@pytest.mark.parametrize("name", CONV)
def test_convolutions_match_torch(backend, name):
    kind, config, shape = CONV[name]
    layer = getattr(tp.nn, kind)(**config, seed=5)
    x = np.random.default_rng(2).standard_normal(shape)
    check_against_torch(layer, x, torch_conv(kind, config, len(shape) - 2))


def test_convolution_seeds_are_reproducible_and_distinct_per_variable():
    init = tp.nn.initializers.normal()  # (one seed would give both kernels the same first values)
    a, b = (tp.nn.SeparableConv2D(3, 3, seed=4, in_channels=3, depthwise_initializer=init,
                                  pointwise_initializer=init) for _ in range(2))
    for name, v in a.named_variables():
        np.testing.assert_array_equal(np.asarray(v), np.asarray(getattr(b, name)))
    depthwise, pointwise = np.asarray(a.depthwise_kernel).ravel(), np.asarray(a.pointwise_kernel).ravel()
    assert not np.array_equal(depthwise[:9], pointwise[:9])


def test_convolutions_build_lazily_or_at_once():
    conv = tp.nn.Conv2D(8, 3)
    assert not conv.built and conv.variables() == []
    assert conv(tp.ones((1, 5, 5, 2))).shape == (1, 3, 3, 8)
    assert [(n, v.shape) for n, v in conv.named_variables()] == [("kernel", (3, 3, 2, 8)), ("bias", (8,))]
    shapes = {kind: [(n, v.shape) for n, v in getattr(tp.nn, kind)(**config, in_channels=4).named_variables()]
              for kind, config in [("Conv1D", dict(filters=6, kernel_size=3, groups=2)),
                                   ("Conv3D", dict(filters=2, kernel_size=(1, 2, 3))),
                                   ("Conv2DTranspose", dict(filters=3, kernel_size=2)),
                                   ("DepthwiseConv2D", dict(kernel_size=3, depth_multiplier=2,
                                                            use_bias=False)),
                                   ("SeparableConv2D", dict(filters=5, kernel_size=3))]}
    assert shapes == {
        "Conv1D": [("kernel", (3, 2, 6)), ("bias", (6,))],
        "Conv3D": [("kernel", (1, 2, 3, 4, 2)), ("bias", (2,))],
        "Conv2DTranspose": [("kernel", (2, 2, 3, 4)), ("bias", (3,))],
        "DepthwiseConv2D": [("kernel", (3, 3, 4, 2))],
        "SeparableConv2D": [("depthwise_kernel", (3, 3, 4, 1)), ("pointwise_kernel", (1, 1, 4, 5)),
                            ("bias", (5,))],
    }


@pytest.mark.parametrize("kind, kwargs, error, match", [
    ("Conv2D", dict(filters=0, kernel_size=3), ShapeError, r"^Conv2D: filters must be a positive int, got 0"),
    ("Conv2D", dict(filters=4, kernel_size=0), ShapeError,
     r"^Conv2D: kernel_size must be >= 1 on every spatial dim, got 0"),
    ("Conv1D", dict(filters=4, kernel_size=(3, 3)), ShapeError,
     r"^Conv1D: kernel_size \(3, 3\) has 2 entries for 1 spatial dim"),
    ("Conv3D", dict(filters=4, kernel_size=2, strides=(1, 0, 1)), ShapeError,
     r"^Conv3D: strides must be >= 1 on every spatial dim, got \(1, 0, 1\)"),
    ("Conv2D", dict(filters=4, kernel_size=3, padding="full"), ShapeError,
     r"^Conv2D: padding 'full' is not one of 'valid', 'same'"),
    ("Conv2D", dict(filters=4, kernel_size=3, padding="vaild"), ShapeError, r"Did you mean 'valid'\?"),
    ("Conv2D", dict(filters=4, kernel_size=3, activation="swsh"), ShapeError,
     r"^Conv2D: activation 'swsh' is unknown.*Did you mean 'swish'\?"),
    ("Conv2D", dict(filters=4, kernel_size=3, data_format="NHWC"), ShapeError,
     r"^Conv2D: data_format 'NHWC' is not one of 'channels_last', 'channels_first'"),
    ("Conv2D", dict(filters=5, kernel_size=3, groups=2), ShapeError,
     r"^Conv2D: filters \(5\) must be a multiple of groups \(2\)"),
    ("Conv2D", dict(filters=4, kernel_size=3, groups=2, in_channels=3), ShapeError,
     r"input's 3 channels are not a multiple of groups \(2\)"),
    ("Conv2DTranspose", dict(filters=4, kernel_size=3, strides=2, output_padding=2), ShapeError,
     r"^Conv2DTranspose: output_padding \(2, 2\) must be smaller than the strides \(2, 2\)"),
    ("DepthwiseConv2D", dict(kernel_size=3, depth_multiplier=0), ShapeError,
     r"^DepthwiseConv2D: depth_multiplier must be a positive int, got 0"),
    ("SeparableConv2D", dict(filters=4, kernel_size=3, in_channels=-1), ShapeError,
     r"^SeparableConv2D: in_channels must be a positive int, got -1"),
    ("DepthwiseConv2D", dict(kernel_size=3, depthwise_initializer="he"), ArgumentError,
     r"^DepthwiseConv2D: depthwise_initializer must be an initializer"),
    ("SeparableConv2D", dict(filters=4, kernel_size=3, pointwise_initializer=1.0), ArgumentError,
     r"^SeparableConv2D: pointwise_initializer must be an initializer"),
    ("Conv3D", dict(filters=4, kernel_size=3, bias_initializer=None), ArgumentError,
     r"^Conv3D: bias_initializer must be an initializer"),
    ("Conv1D", dict(filters=4, kernel_size=3, seed="0"), ArgumentError, r"^Conv1D: seed must be an int"),
])
def test_convolution_construction_errors(kind, kwargs, error, match):
    with pytest.raises(error, match=match):
        getattr(tp.nn, kind)(**kwargs)


def test_convolution_call_errors_say_what_was_expected():
    conv = tp.nn.Conv2D(4, 3, in_channels=3)
    with pytest.raises(ShapeError, match=r"^Conv2D: expected 4-d inputs \(batch, height, width, channels\), "
                                         r"got shape \(8, 8, 3\)\. Add a batch axis"):
        conv(tp.ones((8, 8, 3)))
    with pytest.raises(ShapeError, match=r"^Conv2D: expected inputs with 3 channels on axis -1 \(it was "
                                         r"built for those\), got shape \(1, 8, 8, 5\)"):
        conv(tp.ones((1, 8, 8, 5)))
    first = tp.nn.Conv1D(2, 3, data_format="channels_first")
    with pytest.raises(ShapeError, match=r"^Conv1D: expected 3-d inputs \(batch, channels, length\)"):
        first(tp.ones((2, 3, 4, 5)))
    model = tp.nn.Sequential([tp.nn.Conv2D(4, 3), tp.nn.Conv2D(2, 3, in_channels=5)])
    with pytest.raises(ShapeError, match=r"^Conv2D 'layers\.1': expected inputs with 5 channels on axis -1"):
        model(tp.ones((1, 8, 8, 1)))
    lazy = tp.nn.Sequential([tp.nn.Dense(3), tp.nn.DepthwiseConv2D(3)])
    with pytest.raises(ShapeError, match=r"^DepthwiseConv2D 'layers\.1': expected 4-d inputs"):
        lazy(tp.ones((2, 5)))


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
