"""The demo's convolutional model (``tensorplug demo --model cnn``): the 8x8 digits as images,
two 3x3 convolutions with ReLU, each followed by 2x2 max pooling (the first with stride 1, the
second with stride 2), then a dense layer to the 10 classes.

Written the way a user writes tensorplug code: Variables and ops from ``tp.nn``. Its initial
weights come from numpy with a fixed seed, so the benchmarks can give torch the same model.
"""

from __future__ import annotations

import numpy as np

import tensorplug as tp

__all__ = ["CNN", "CNN_LAYERS", "init_cnn_params"]

#: (kernel height, kernel width, in channels, out channels) of the two convolutions; the pools
#: after them keep 8x8 (stride 1, 'SAME') and halve it: 4x4x32 = 512 features reach the dense layer
CNN_LAYERS = ((3, 3, 1, 16), (3, 3, 16, 32))
_POOL_STRIDES = ((1, 1), (2, 2))
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


class CNN:
    """conv 3x3 (16) - relu - max pool 2x2 / 1 - conv 3x3 (32) - relu - max pool 2x2 / 2 - dense
    (10), on channels-last images; takes the flat 64-pixel rows the digits data holds."""

    def __init__(self, seed: int) -> None:
        self.params = {name: tp.Variable(value) for name, value in init_cnn_params(seed).items()}

    @property
    def variables(self) -> list[tp.Variable]:
        return list(self.params.values())

    def __call__(self, x: tp.Tensor) -> tp.Tensor:
        p = self.params
        h = tp.reshape(x, (x.shape[0], 8, 8, 1))
        for i, strides in enumerate(_POOL_STRIDES, start=1):
            h = tp.nn.relu(tp.nn.conv(h, p[f"conv{i}"], padding="SAME") + p[f"bias{i}"])
            h = tp.nn.max_pool(h, (2, 2), strides=strides, padding="SAME")
        return tp.reshape(h, (h.shape[0], _FEATURES)) @ p["dense"] + p["bias3"]
