"""The demo's convolutional model (``tensorplug demo --model cnn``): the 8x8 digits as images,
two 3x3 convolutions with ReLU, each followed by 2x2 max pooling (the first with stride 1, the
second with stride 2), then a dense layer to the 10 classes: a ``tp.nn.Sequential`` of layers.

Its first weights come from numpy with a fixed seed (``init_cnn_params``), so the benchmarks can
give torch the same model.
"""

from __future__ import annotations

import numpy as np

import tensorplug as tp

__all__ = ["cnn", "CNN_LAYERS", "init_cnn_params"]

#: (kernel height, kernel width, in channels, out channels) of the two convolutions; the pools
#: after them keep 8x8 (stride 1, 'same') and halve it: 4x4x32 = 512 features reach the dense layer
CNN_LAYERS = ((3, 3, 1, 16), (3, 3, 16, 32))
_POOL_STRIDES = (1, 2)
_FEATURES = 4 * 4 * CNN_LAYERS[-1][-1]
_CLASSES = 10


def init_cnn_params(seed: int) -> dict[str, np.ndarray]:
    """He-initialized HWIO kernels and dense weights, zero biases, float32, from numpy's generator."""
    rng = np.random.default_rng(seed)
    params: dict[str, np.ndarray] = {}
    for i, shape in enumerate(CNN_LAYERS, start=1):
        fan_in = shape[0] * shape[1] * shape[2]
        params[f"conv{i}"] = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        params[f"bias{i}"] = np.zeros(shape[-1], np.float32)
    dense = rng.standard_normal((_FEATURES, _CLASSES)) * np.sqrt(2.0 / _FEATURES)
    params["dense"] = dense.astype(np.float32)
    params["bias3"] = np.zeros(_CLASSES, np.float32)
    return params


def cnn(seed: int) -> tp.nn.Sequential:
    """conv 3x3 (16) - relu - max pool 2x2 / 1 - conv 3x3 (32) - relu - max pool 2x2 / 2 - dense
    (10), on channels-last images; takes the flat 64-pixel rows the digits data holds."""
    layers: list[tp.nn.Module] = [tp.nn.Reshape((8, 8, 1))]
    for (h, w, c_in, c_out), stride in zip(CNN_LAYERS, _POOL_STRIDES):
        layers += [tp.nn.Conv2D(c_out, (h, w), padding="same", activation="relu", in_channels=c_in),
                   tp.nn.MaxPool2D(2, strides=stride, padding="same")]
    model = tp.nn.Sequential([*layers, tp.nn.Flatten(), tp.nn.Dense(_CLASSES, in_features=_FEATURES)])
    p = init_cnn_params(seed)
    model.assign_variables({"layers.1.kernel": p["conv1"], "layers.1.bias": p["bias1"],
                            "layers.3.kernel": p["conv2"], "layers.3.bias": p["bias2"],
                            "layers.6.kernel": p["dense"], "layers.6.bias": p["bias3"]})
    return model
