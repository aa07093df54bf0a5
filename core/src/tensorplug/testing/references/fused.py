"""Reference values of the fused kernels (FusedMatMul, FusedConv2D, FusedDepthwiseConv2D) from
their definition: the product (numpy's matmul, the kit's own convolution reference), plus the
bias, through the activation's formula, in float64. Few cases (each attribute variant is a
compilation on jax): activations as a grid in float64 (``_MATMUL_ACTIVATIONS``,
``_CONV_ACTIVATIONS``), relu on one small row per other float dtype, prelu on a strided
channels-first row, an empty batch; the optional inputs present and absent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, bfloat16, float16, float32, float64
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families.fused.spec import ACTIVATIONS, depthwise_as_grouped
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, Domain, sample
from tensorplug.testing.references._base import reference
from tensorplug.testing.references.convolution import _conv_ref

_SMALL = Domain(-1, 1)
#: the dtypes beyond float64, each on one small case
_OTHER_FLOATS = (float32, float16, bfloat16)
#: the activations of the float64 grids (each variant costs a compilation on jax; relu comes on
#: the other dtypes' rows, prelu on a row of its own; tests/test_kernels_fused.py has them all)
_MATMUL_ACTIVATIONS = ("linear", "relu6", "elu", "leakyrelu", "prelu", "sigmoid")
_CONV_ACTIVATIONS = ("linear", "leakyrelu", "sigmoid")


def _activate(z: np.ndarray, activation: str, alpha: float, weights: np.ndarray) -> np.ndarray:
    formulas: dict[str, Callable[[], np.ndarray]] = {
        "linear": lambda: z,
        "relu": lambda: np.maximum(z, 0),
        "relu6": lambda: np.clip(z, 0, 6),
        "elu": lambda: np.where(z > 0, z, np.expm1(np.minimum(z, 0))),
        "leakyrelu": lambda: np.where(z >= 0, z, alpha * z),
        "prelu": lambda: np.where(z > 0, z, weights * z),
        "sigmoid": lambda: 1 / (1 + np.exp(-z)),
    }
    return formulas[activation]()


def _grid(
    out_channels: int, dtype: DType, key: Any, activations: tuple[str, ...] = ACTIVATIONS
) -> list[tuple[np.ndarray, np.ndarray, dict[str, Any]]]:
    """(bias, prelu weights, attrs) for each activation: with a bias, but none for 'linear'."""
    rows = []
    for i, activation in enumerate(activations):
        has_bias = activation != "linear"
        bias = (
            sample((out_channels,), dtype, _SMALL, key=(key, i, "bias"))
            if has_bias
            else np.zeros((), dtype.numpy)
        )
        weights = (
            sample((out_channels,), dtype, Domain(0.1, 0.9), key=(key, i, "w"))
            if activation == "prelu"
            else np.zeros((), dtype.numpy)
        )
        rows.append((bias, weights, {"activation": activation, "has_bias": has_bias, "leakyrelu_alpha": 0.3}))
    return rows


def _matmul_cases(spec: KernelSpec) -> list[Case]:
    out = []
    a, b = (sample(s, float64, _SMALL, key=("mm", s)) for s in ((2, 3), (3, 4)))
    out += [Case((a, b, bias, w), attrs) for bias, w, attrs in _grid(4, float64, "mm", _MATMUL_ACTIVATIONS)]
    for dtype in _OTHER_FLOATS:
        a, b = (sample(s, dtype, _SMALL, key=("mm", dtype.name, s)) for s in ((2, 3), (3, 4)))
        bias = sample((2, 4), dtype, _SMALL, key="b")
        out.append(Case((a, b, bias, np.zeros((), dtype.numpy)), {"activation": "relu", "has_bias": True}))
    a, b = sample((2, 3, 2), float64, _SMALL, key="ta"), sample((1, 4, 3), float64, _SMALL, key="tb")
    out.append(
        Case(
            (a, b, np.zeros((), np.float64), np.zeros((), np.float64)),
            {"transpose_a": True, "transpose_b": True, "activation": "elu"},
        )
    )
    a, b, bias = (sample(s, float64, _SMALL, key=("empty", s)) for s in ((0, 3), (3, 2), (1,)))
    out.append(Case((a, b, bias, np.zeros((), np.float64)), {"activation": "relu", "has_bias": True}))
    return out


def _matmul_bad(spec: KernelSpec) -> list[BadCase]:
    a, b, zero = sample((2, 3), float32), sample((3, 4), float32), np.zeros((), np.float32)
    return [
        BadCase(
            (a, b, sample((3,), float32), zero),
            {"has_bias": True},
            error=ShapeError,
            why="a bias that does not broadcast to the product",
        ),
        BadCase(
            (a, b, zero, sample((5,), float32)),
            {"activation": "prelu"},
            error=ShapeError,
            why="prelu weights that do not broadcast to the product",
        ),
        BadCase((a, b, zero, zero), {"activation": "tanh"}, error=ShapeError, why="an unknown activation"),
        BadCase((a, b, zero.astype(np.float64), zero), {}, error=DTypeError, why="a bias of another dtype"),
    ]


@reference("FusedMatMul", _matmul_cases, _matmul_bad)
def _fused_matmul(
    a: np.ndarray,
    b: np.ndarray,
    bias: np.ndarray,
    weights: np.ndarray,
    transpose_a: bool,
    transpose_b: bool,
    activation: str,
    leakyrelu_alpha: float,
    has_bias: bool,
) -> np.ndarray:
    z = np.swapaxes(a, -1, -2) if transpose_a else a
    z = z @ (np.swapaxes(b, -1, -2) if transpose_b else b)
    return _activate(z + bias if has_bias else z, activation, leakyrelu_alpha, weights)


#: (x shape, filter shape, geometry) of FusedConv2D: plain, then strided and padded channels-first
_CONV: tuple[tuple[tuple[int, ...], tuple[int, ...], dict[str, Any]], ...] = (
    ((1, 3, 3, 2), (2, 2, 2, 2), {}),
    ((1, 2, 4, 3), (2, 2, 2, 2), {"strides": (2, 1), "padding": ((1, 0), (0, 1)), "data_format": "NCHW"}),
)
#: the same of FusedDepthwiseConv2D: the filter (h, w, in_channels, multiplier)
_DEPTHWISE: tuple[tuple[tuple[int, ...], tuple[int, ...], dict[str, Any]], ...] = (
    ((1, 3, 3, 2), (2, 2, 2, 2), {}),
    ((1, 2, 3, 4), (2, 1, 2, 1), {"dilations": (1, 2), "padding": ((0, 1), (1, 1)), "data_format": "NCHW"}),
)


def _conv_cases(table: Any) -> Callable[[KernelSpec], list[Case]]:
    def cases(spec: KernelSpec) -> list[Case]:
        (xs, ws, geometry), (xs2, ws2, geometry2) = table
        channels = ws[-1] * (ws[-2] if spec.name == "FusedDepthwiseConv2D" else 1)
        x, w = (sample(s, float64, _SMALL, key=(spec.name, s)) for s in (xs, ws))
        out = [
            Case((x, w, bias, p), {**geometry, **attrs})
            for bias, p, attrs in _grid(channels, float64, spec.name, _CONV_ACTIVATIONS)
        ]
        for dtype in _OTHER_FLOATS:
            x, w = (sample(s, dtype, _SMALL, key=(spec.name, dtype.name, s)) for s in (xs, ws))
            bias = sample((channels,), dtype, _SMALL, key="b")
            out.append(
                Case((x, w, bias, np.zeros((), dtype.numpy)), {"activation": "relu", "has_bias": True})
            )
        channels2 = ws2[-1] * (ws2[-2] if spec.name == "FusedDepthwiseConv2D" else 1)
        x, w = (sample(s, float64, _SMALL, key=(spec.name, 2, s)) for s in (xs2, ws2))
        out.append(
            Case(
                (
                    x,
                    w,
                    sample((channels2,), float64, key="b2"),
                    sample((channels2, 1, 1), float64, Domain(0.1, 0.9), key="p2"),
                ),
                {**geometry2, "activation": "prelu", "has_bias": True},
            )
        )
        # an empty batch, one output channel (a bias of size 1)
        x = np.zeros((0, 3, 3, 1 if spec.name == "FusedDepthwiseConv2D" else 2))
        w = np.ones((2, 2, x.shape[-1], 1))
        out.append(Case((x, w, np.ones((1,)), np.zeros(())), {"activation": "relu", "has_bias": True}))
        return out

    return cases


def _conv_bad(spec: KernelSpec) -> list[BadCase]:
    x, zero = sample((1, 3, 3, 2), float32), np.zeros((), np.float32)
    w = sample((2, 2, 2, 2), float32)
    return [
        BadCase(
            (x, w, sample((3,), float32), zero),
            {"has_bias": True},
            error=ShapeError,
            why="a bias of another length than the output channels",
        ),
        BadCase(
            (x, sample((2, 2, 3, 2), float32), zero, zero),
            {},
            error=ShapeError,
            why="a filter taking 3 channels of an input of 2",
        ),
    ]


def _conv_activated(
    y: np.ndarray, bias: np.ndarray, weights: np.ndarray, attrs: dict[str, Any]
) -> np.ndarray:
    if attrs["has_bias"]:
        y = y + (bias.reshape(-1, 1, 1) if attrs["data_format"][1] == "C" and bias.ndim == 1 else bias)
    return _activate(y, attrs["activation"], attrs["leakyrelu_alpha"], weights)


@reference("FusedConv2D", _conv_cases(_CONV), _conv_bad)
def _fused_conv(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray, weights: np.ndarray, **attrs: Any
) -> np.ndarray:
    y = _conv_ref(
        x, w, attrs["strides"], attrs["padding"], attrs["dilations"], attrs["groups"], attrs["data_format"]
    )
    return _conv_activated(y, bias, weights, attrs)


@reference("FusedDepthwiseConv2D", _conv_cases(_DEPTHWISE), _conv_bad)
def _fused_depthwise(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray, weights: np.ndarray, **attrs: Any
) -> np.ndarray:
    grouped = w.reshape(depthwise_as_grouped(w.shape))
    y = _conv_ref(
        x, grouped, attrs["strides"], attrs["padding"], attrs["dilations"], w.shape[2], attrs["data_format"]
    )
    return _conv_activated(y, bias, weights, attrs)
