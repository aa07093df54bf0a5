"""docs/reference/tfjs-kernels.md, the table of TF.js's kernel names against tensorplug's,
holds: every name of tfjs-core's kernel_names.ts once, each kernel it names registered on both
first-party backends, each op it names public; tp.complex (TF.js's Complex) by its definition."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import backends_with_kernel, get_kernel_spec, start_backend
from tensorplug.testing import check_gradients

TABLE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "tfjs-kernels.md"
ROW = re.compile(r"^\| `(\w+)` \| (.+?) \| (.*?) \|$")

# tfjs-core/src/kernel_names.ts (TF.js 4.x): 180 kernel names
TFJS_KERNELS = frozenset([
    "Abs", "Acos", "Acosh", "Add", "AddN", "All", "Any", "ArgMax", "ArgMin", "Asin", "Asinh", "Atan",
    "Atanh", "Atan2", "AvgPool", "AvgPoolGrad", "AvgPool3D", "AvgPool3DGrad", "BatchMatMul",
    "BatchToSpaceND", "Bincount", "BitwiseAnd", "BroadcastTo", "BroadcastArgs", "Cast", "Ceil",
    "ClipByValue", "Complex", "ComplexAbs", "Concat", "Conv2D", "Conv2DBackpropFilter",
    "Conv2DBackpropInput", "Conv3D", "Conv3DBackpropFilterV2", "Conv3DBackpropInputV2", "Cos", "Cosh",
    "Cumprod", "Cumsum", "CropAndResize", "DenseBincount", "DepthToSpace", "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput", "Diag", "Dilation2D",
    "Dilation2DBackpropInput", "Dilation2DBackpropFilter", "Draw", "RealDiv", "Einsum", "Elu", "EluGrad",
    "Erf", "Equal", "Exp", "ExpandDims", "Expm1", "FFT", "Fill", "FlipLeftRight", "Floor", "FloorDiv",
    "FusedBatchNorm", "GatherV2", "GatherNd", "Greater", "GreaterEqual", "Identity", "IFFT", "Imag",
    "IsFinite", "IsInf", "IsNan", "LeakyRelu", "Less", "LessEqual", "LinSpace", "Log", "Log1p",
    "LogicalAnd", "LogicalNot", "LogicalOr", "LogicalXor", "LogSoftmax", "LowerBound", "LRN", "LRNGrad",
    "MatrixBandPart", "Max", "Maximum", "MaxPool", "MaxPoolGrad", "MaxPool3D", "MaxPool3DGrad",
    "MaxPoolWithArgmax", "Mean", "Min", "Minimum", "MirrorPad", "Mod", "Multinomial", "Multiply", "Neg",
    "NotEqual", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5", "OnesLike", "OneHot",
    "Pack", "PadV2", "Pool", "Pow", "Prelu", "Prod", "RaggedGather", "RaggedRange",
    "RaggedTensorToTensor", "Range", "Real", "Reciprocal", "Relu", "Reshape", "ResizeNearestNeighbor",
    "ResizeNearestNeighborGrad", "ResizeBilinear", "ResizeBilinearGrad", "Relu6", "Reverse", "Round",
    "Rsqrt", "ScatterNd", "TensorScatterUpdate", "SearchSorted", "Select", "Selu", "Slice", "Sin", "Sinh",
    "Sign", "Sigmoid", "Softplus", "Sqrt", "Sum", "SpaceToBatchND", "SplitV", "Softmax",
    "SparseFillEmptyRows", "SparseReshape", "SparseSegmentMean", "SparseSegmentSum", "SparseToDense",
    "SquaredDifference", "Square", "StaticRegexReplace", "StridedSlice", "StringNGrams", "StringSplit",
    "StringToHashBucketFast", "Sub", "Tan", "Tanh", "Tile", "TopK", "Transform", "Transpose", "Unique",
    "Unpack", "UnsortedSegmentSum", "UpperBound", "ZerosLike", "Step", "FromPixels", "RotateWithOffset",
    "_FusedMatMul", "FusedConv2D", "FusedDepthwiseConv2D",
])
LEFT_OUT = re.compile(r"Draw|FromPixels|String\w+|StaticRegexReplace|Ragged\w+")


def _rows() -> dict[str, tuple[str, str]]:
    rows: dict[str, tuple[str, str]] = {}
    for line in TABLE.read_text().splitlines():
        match = ROW.match(line)
        if match and match.group(1) != "Name":
            name, cell, note = match.groups()
            assert name not in rows, f"{name} is listed twice"
            rows[name] = (cell, note)
    return rows


ROWS = _rows()


def _named(cell: str) -> str:
    return re.search(r"`([\w.]+)`", cell).group(1)


def test_the_table_lists_every_tfjs_kernel_once():
    assert len(TFJS_KERNELS) == 180
    assert set(ROWS) == TFJS_KERNELS, (sorted(TFJS_KERNELS - set(ROWS)), sorted(set(ROWS) - TFJS_KERNELS))


KERNEL_ROWS = sorted(n for n, (cell, _) in ROWS.items() if "`" in cell and not cell.startswith("op "))


@pytest.mark.parametrize("name", KERNEL_ROWS)
def test_each_kernel_named_is_registered_on_both_backends(name):
    kernel = _named(ROWS[name][0])
    if ROWS[name][0].startswith("`"):
        assert kernel == name, f"{name}: a same-name row must name {name}"
    get_kernel_spec(kernel)  # raises if unknown
    for backend in ("numpy", "jax"):
        start_backend(backend)
    assert {"numpy", "jax"} <= set(backends_with_kernel(kernel)), kernel


@pytest.mark.parametrize("name", sorted(n for n, (cell, _) in ROWS.items() if cell.startswith("op ")))
def test_each_op_named_is_public(name):
    path = _named(ROWS[name][0]).split(".")
    assert path[0] == "tp", path
    obj = tp
    for part in path[1:]:
        obj = getattr(obj, part)
    assert callable(obj)


def test_only_browser_string_and_ragged_kernels_are_left_out():
    left_out = sorted(n for n, (cell, _) in ROWS.items() if cell == "left out")
    assert all(LEFT_OUT.fullmatch(n) for n in left_out), left_out


def test_complex_is_real_plus_i_imag():
    re_, im = np.array([1.5, -2.0, 0.0]), np.array([0.5, 3.0, -1.0])
    z = tp.complex(tp.asarray(re_, dtype=tp.float64), tp.asarray(im, dtype=tp.float64))
    assert z.dtype == tp.complex128
    np.testing.assert_array_equal(z.numpy(), re_ + 1j * im)
    assert tp.complex(tp.asarray([1.0], dtype=tp.float32), 2.0).dtype == tp.complex64
    with pytest.raises(tp.DTypeError, match="complex takes real floating inputs"):
        tp.complex(tp.asarray([1]), tp.asarray([2]))


def test_complex_gradients():
    check_gradients(lambda a, b: tp.abs(tp.complex(a, b)), np.array([3.0, -1.0]), np.array([4.0, 2.0]),
                    order=2)
