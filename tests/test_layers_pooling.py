"""The pooling layers (tp.nn.MaxPool/AvgPool 1-3D, GlobalAvgPool/GlobalMaxPool 1-3D,
AdaptiveAvgPool2D/AdaptiveMaxPool2D) against torch on both backends: values and input
gradients in float64, Keras's 'same' emulated (asymmetric pads; padding never counts in an
average nor wins a max); their construction and call errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tensorplug as tp
from _torch_layers import check_against_torch
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.models.layers.pooling import adaptive_bins

torch.set_num_threads(1)

POOL = {  # id: (layer class, config, input shape)
    "max1d": ("MaxPool1D", dict(pool_size=3, strides=2), (2, 9, 3)),
    "max1d-same-cf": ("MaxPool1D", dict(pool_size=3, strides=2, padding="same", data_format="channels_first"),
                      (2, 3, 8)),
    "max2d-default": ("MaxPool2D", {}, (2, 6, 7, 3)),
    "max2d-same": ("MaxPool2D", dict(pool_size=3, strides=2, padding="SAME"), (2, 6, 7, 3)),
    "max3d-cf": ("MaxPool3D", dict(pool_size=2, data_format="channels_first"), (1, 2, 4, 5, 4)),
    "avg1d": ("AvgPool1D", dict(pool_size=2, strides=1), (2, 5, 3)),
    "avg2d-same": ("AvgPool2D", dict(pool_size=3, strides=2, padding="same"), (2, 6, 7, 3)),
    "avg2d-same-stride1": ("AvgPool2D", dict(pool_size=(2, 3), strides=1, padding="same"), (1, 5, 5, 2)),
    "avg2d-cf": ("AvgPool2D", dict(pool_size=(2, 1), data_format="channels_first"), (1, 3, 6, 5)),
    "avg3d-same-cf": ("AvgPool3D", dict(pool_size=2, strides=(1, 2, 2), padding="same",
                                        data_format="channels_first"), (1, 2, 3, 5, 4)),
    "global-avg1d": ("GlobalAvgPool1D", {}, (2, 5, 3)),
    "global-max1d-cf": ("GlobalMaxPool1D", dict(data_format="channels_first"), (2, 3, 5)),
    "global-avg2d-keep": ("GlobalAvgPool2D", dict(keepdims=True), (2, 4, 5, 3)),
    "global-max2d": ("GlobalMaxPool2D", {}, (2, 4, 5, 3)),
    "global-avg3d-cf": ("GlobalAvgPool3D", dict(data_format="channels_first"), (1, 2, 3, 4, 2)),
    "global-max3d-keep": ("GlobalMaxPool3D", dict(keepdims=True), (1, 3, 2, 4, 2)),
    "adaptive-avg-even": ("AdaptiveAvgPool2D", dict(output_size=2), (2, 6, 4, 3)),
    "adaptive-avg-uneven": ("AdaptiveAvgPool2D", dict(output_size=(3, 4)), (2, 7, 5, 3)),
    "adaptive-avg-cf": ("AdaptiveAvgPool2D", dict(output_size=(2, 3), data_format="channels_first"),
                        (1, 2, 5, 7)),
    "adaptive-max-uneven-cf": ("AdaptiveMaxPool2D", dict(output_size=(3, 2), data_format="channels_first"),
                               (1, 2, 5, 7)),
    "adaptive-max-up": ("AdaptiveMaxPool2D", dict(output_size=(4, 5)), (1, 3, 3, 2)),
}
TORCH_POOL = {("Max", 1): F.max_pool1d, ("Max", 2): F.max_pool2d, ("Max", 3): F.max_pool3d,
              ("Avg", 1): F.avg_pool1d, ("Avg", 2): F.avg_pool2d, ("Avg", 3): F.avg_pool3d}


def _per_dim(value, rank):
    return tuple(value) if isinstance(value, tuple) else (value,) * rank


def keras_same_pads(sizes, window, strides):
    """Keras's (TF's) 'same': output ceil(n / s), the odd pad at the end (torch pads evenly)."""
    pads = []
    for n, k, s in zip(sizes, window, strides):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        pads.append((total // 2, total - total // 2))
    return [v for lo_hi in reversed(pads) for v in lo_hi]  # F.pad's order: last axis first


def torch_pool(kind, config, rank):
    """The torch function of a pooling layer of `config` (inputs moved to channels-first)."""
    last = config.get("data_format", "channels_last") == "channels_last"
    to_first, to_last = (0, rank + 1, *range(1, rank + 1)), (0, *range(2, rank + 2), 1)
    spatial = tuple(range(2, rank + 2))
    window = _per_dim(config.get("pool_size", 2), rank)
    strides = _per_dim(config.get("strides") or window, rank)
    same = config.get("padding", "valid").lower() == "same"

    def fn(x, w):
        x = x.permute(to_first) if last else x
        keep_layout = True
        if kind.startswith("Global"):
            keep = config.get("keepdims", False)
            y = x.mean(dim=spatial, keepdim=keep) if "Avg" in kind else x.amax(dim=spatial, keepdim=keep)
            keep_layout = keep
        elif kind.startswith("Adaptive"):
            size = _per_dim(config["output_size"], 2)
            y = (F.adaptive_avg_pool2d if "Avg" in kind else F.adaptive_max_pool2d)(x, size)
        elif kind.startswith("Max"):
            pads = keras_same_pads(x.shape[2:], window, strides) if same else [0] * 2 * rank
            y = TORCH_POOL["Max", rank](F.pad(x, pads, value=-torch.inf), window, strides)
        else:  # Keras's average leaves the padding out: the sum over the real elements / their count
            pads = keras_same_pads(x.shape[2:], window, strides) if same else [0] * 2 * rank
            pool = TORCH_POOL["Avg", rank]
            y = pool(F.pad(x, pads), window, strides) / pool(F.pad(torch.ones_like(x), pads), window, strides)
        return y.permute(to_last) if last and keep_layout else y

    return fn


@pytest.mark.parametrize("name", POOL)
def test_pooling_matches_torch(backend, name):
    kind, config, shape = POOL[name]
    x = np.random.default_rng(4).standard_normal(shape)
    check_against_torch(getattr(tp.nn, kind)(**config), x, torch_pool(kind, config, len(shape) - 2))


def test_average_pooling_same_leaves_the_padding_out(backend):
    ones = tp.ones((1, 5, 4, 2))
    np.testing.assert_array_equal(np.asarray(tp.nn.AvgPool2D(3, strides=2, padding="same")(ones)),
                                  np.ones((1, 3, 2, 2)))
    assert tp.nn.MaxPool2D(3, strides=2, padding="same")(-ones).shape == (1, 3, 2, 2)
    assert np.all(np.asarray(tp.nn.MaxPool2D(3, strides=2, padding="same")(-ones)) == -1)


def test_adaptive_bins_are_torchs():
    assert adaptive_bins(5, 3) == [(0, 2), (1, 4), (3, 5)]
    assert adaptive_bins(3, 4) == [(0, 1), (0, 2), (1, 3), (2, 3)]
    assert adaptive_bins(6, 2) == [(0, 3), (3, 6)]


def test_pooling_layers_hold_nothing_and_default_as_keras():
    pool = tp.nn.MaxPool2D()
    assert (pool.pool_size, pool.strides, pool.padding) == ((2, 2), (2, 2), "valid")
    assert tp.nn.AvgPool1D(3, strides=1).strides == (1,)
    assert pool.variables() == [] and pool(tp.ones((1, 4, 4, 1))).shape == (1, 2, 2, 1)
    assert repr(tp.nn.GlobalMaxPool2D()) == "GlobalMaxPool2D(data_format='channels_last', keepdims=False)"


@pytest.mark.parametrize("kind, kwargs, error, match", [
    ("MaxPool2D", dict(pool_size=0), ShapeError,
     r"^MaxPool2D: pool_size must be >= 1 on every spatial dim, got 0"),
    ("AvgPool3D", dict(pool_size=(2, 2)), ShapeError,
     r"^AvgPool3D: pool_size \(2, 2\) has 2 entries for 3 spatial dim"),
    ("MaxPool1D", dict(strides=(0,)), ShapeError, r"^MaxPool1D: strides must be >= 1 on every spatial dim"),
    ("MaxPool2D", dict(padding="causal"), ShapeError,
     r"^MaxPool2D: padding 'causal' is not one of 'valid', 'same'"),
    ("AvgPool2D", dict(padding="Sme"), ShapeError, r"Did you mean 'same'\?"),
    ("GlobalAvgPool2D", dict(data_format="NCHW"), ShapeError,
     r"^GlobalAvgPool2D: data_format 'NCHW' is not one"),
    ("GlobalMaxPool1D", dict(keepdims="no"), ArgumentError,
     r"^GlobalMaxPool1D: keepdims must be True or False"),
    ("AdaptiveAvgPool2D", dict(output_size=0), ShapeError,
     r"^AdaptiveAvgPool2D: output_size must be >= 1 on every spatial dim, got 0"),
    ("AdaptiveMaxPool2D", dict(output_size=(2, 2, 2)), ShapeError,
     r"^AdaptiveMaxPool2D: output_size \(2, 2, 2\) has 3 entries for 2 spatial dim"),
])
def test_pooling_construction_errors(kind, kwargs, error, match):
    with pytest.raises(error, match=match):
        getattr(tp.nn, kind)(**kwargs)


def test_pooling_call_errors_say_what_was_expected():
    with pytest.raises(ShapeError, match=r"^MaxPool2D: expected 4-d inputs \(batch, height, width, "
                                         r"channels\), got shape \(6, 6, 2\)\. Add a batch axis"):
        tp.nn.MaxPool2D()(tp.ones((6, 6, 2)))
    with pytest.raises(ShapeError, match=r"^GlobalAvgPool1D: expected 3-d inputs \(batch, channels, "
                                         r"length\)"):
        tp.nn.GlobalAvgPool1D(data_format="channels_first")(tp.ones((2, 3)))
    model = tp.nn.Sequential([tp.nn.Dense(4), tp.nn.AdaptiveAvgPool2D(2)])
    with pytest.raises(ShapeError, match=r"^AdaptiveAvgPool2D 'layers\.1': expected 4-d inputs"):
        model(tp.ones((2, 3)))
