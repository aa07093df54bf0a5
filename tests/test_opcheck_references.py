"""The conformance kit's own tables hold up: every core kernel spec has a reference; each
reference's cases are accepted by the spec and cover every dtype it accepts and 0-d, empty and
size-1 inputs; each bad case is refused by the spec with the error it declares; the value
comparison and the float32 mode of check_gradients report what they should."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.core.runtime import current
from tensorplug.errors import DTypeError, IndexOutOfRangeError, ShapeError
from tensorplug.extend import get_kernel_spec, list_kernel_specs
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.testing import check_gradients
from tensorplug.testing.compare import compare_values, tolerance
from tensorplug.testing.inputs import Domain, accepted, generic_bad_cases, generic_cases, sample
from tensorplug.testing.references import REFERENCES

CORE = sorted(s.name for s in list_kernel_specs()
              if current().specs.registration(s.name).source == CORE_SOURCE)
#: kernels whose spec refuses some edge shape for every input (with the reason)
NO_0D = {"Concat": "0-d inputs cannot be concatenated", "MatMul": "needs 2-d inputs",
         "Gather": "cannot take from a 0-d x (0-d indices are covered)",
         "Sort": "a 0-d input has no axis to sort along", "ArgSort": "a 0-d input has no axis to sort along",
         **{k: "takes stacks of matrices (2 dimensions at least)"
            for k in ("Cholesky", "Det", "Eig", "Eigh", "Eigvals", "Eigvalsh", "Inv", "Qr", "Slogdet",
                      "Solve", "Svd", "Svdvals")},
         **{k: "a 0-d input has no axis to transform" for k in ("Fft", "Ifft", "Rfft", "Irfft")},
         **{k: "needs a batch axis and a spatial one" for k in ("SpaceToBatchND", "BatchToSpaceND")},
         **{k: "takes 4-d images" for k in ("DepthToSpace", "SpaceToDepth")},
         **{k: "a 0-d input has no axis to split or select along" for k in ("SplitV", "Unpack", "TopK")},
         "MatrixBandPart": "takes stacks of matrices", "BroadcastArgs": "takes shapes: 1-d vectors",
         "SparseReshape": "takes 2-d indices and shapes as 1-d vectors",
         "GatherNd": "0-d params take only depth-0 indices (a 0-d output is covered)",
         **{k: "counts a 1-d (or 2-d) x; weights have x's shape" for k in ("Bincount", "DenseBincount")},
         "Multinomial": "logits are [batch, classes]",
         **{k: "data has rows; indices and segment_ids are 1-d"
            for k in ("SparseSegmentSum", "SparseSegmentMean")},
         **{k: "segment_ids are 1-d at least: one id per row of data" for k in (
             "UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin")}}
NO_0D.update({k: "a convolution takes batch, spatial and channel dims" for k in (
    "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3D", "Conv3DBackpropInputV2",
    "Conv3DBackpropFilterV2")})
NO_0D.update({k: "pools over batch, spatial and channel dims" for k in (
    "AvgPool", "AvgPool3D", "AvgPoolGrad", "AvgPool3DGrad", "MaxPool", "MaxPool3D", "MaxPoolGrad",
    "MaxPool3DGrad", "MaxPoolWithArgmax", "Dilation2D", "Dilation2DBackpropFilter",
    "Dilation2DBackpropInput")})
NO_0D.update({k: "takes 4-d images (and boxes of 4 coordinates)" for k in (
    "FlipLeftRight", "CropAndResize", "CropAndResizeGradImage", "ResizeBilinear", "ResizeBilinearGrad",
    "ResizeNearestNeighbor", "ResizeNearestNeighborGrad", "RotateWithOffset", "Transform")})
NO_0D.update({k: "takes (n, 4) boxes and (n,) scores" for k in (
    "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5")})
NO_0D.update({k: "normalizes along a channel axis" for k in ("LRN", "LRNGrad")})
NO_0D["SparseSoftmaxCrossEntropyWithLogits"] = "takes (batch, classes) features and (batch,) labels"
#: variadic kernels whose input list holds values of different roles (the control-flow kernels: an
#: index or constants first, then any dtype the traced functions take)
MIXED_VARIADIC = {"Cond", "While", "Scan"}
NO_INPUTS = {"Fill", "Range", "Eye", "RandomUniform", "RandomNormal", "LinSpace"}


def test_every_core_kernel_spec_has_a_reference():
    assert len(CORE) >= 65
    assert [n for n in CORE if n not in REFERENCES] == []


@pytest.mark.parametrize("name", CORE)
def test_cases_are_valid_and_cover_dtypes_and_edge_shapes(name):
    spec, ref = get_kernel_spec(name), REFERENCES[name]
    cases = list(ref.cases(spec))
    assert cases
    for case in cases:
        spec.check(case.infos(), spec.normalize_attrs(case.attrs))  # raises if the spec refuses it
    names = [spec.inputs[0]] if spec.variadic else list(spec.inputs)
    for i, input_name in enumerate(names):
        seen = {c.infos()[i].dtype for c in cases if len(c.inputs) > i}
        if name in MIXED_VARIADIC:  # (every position of the one input list counts)
            seen = {info.dtype for c in cases for info in c.infos()}
        wanted = set(accepted(spec, input_name))
        if name == "ScatterAdd" and input_name == "updates":
            wanted -= {tp.bool_}  # adding bools has no rule
        never = sorted(d.name for d in wanted - seen)
        assert not never, f"{name}: input '{input_name}' never gets {never}"
    if name in NO_INPUTS:
        return
    shapes = [a.shape for c in cases for a in c.inputs]
    assert any(0 in s for s in shapes), f"{name}: no empty input"
    assert any(int(np.prod(s)) == 1 and s for s in shapes), f"{name}: no size-1 input"
    if name not in NO_0D:
        assert () in shapes, f"{name}: no 0-d input"


@pytest.mark.parametrize("name", CORE)
def test_bad_cases_are_refused_by_the_spec_with_their_error(name):
    spec, ref = get_kernel_spec(name), REFERENCES[name]
    good = next(c for c in ref.cases(spec) if c.label == "" and all(a.size for a in c.inputs))
    bad = list(ref.bad_cases(spec)) + generic_bad_cases(spec, good)
    assert any(b.why == "an attribute the spec does not have" for b in bad)
    for case in bad:
        if case.error is IndexOutOfRangeError or case.by_value:
            continue  # depends on the values: only the kernel can tell
        with pytest.raises(case.error):
            spec.check(case.infos(), spec.normalize_attrs(case.attrs))


def test_binary_references_broadcast():
    for name in ("Add", "Pow", "Less", "LogicalOr"):
        spec = get_kernel_spec(name)
        pairs = {(c.inputs[0].shape, c.inputs[1].shape) for c in REFERENCES[name].cases(spec)}
        assert ((2, 1, 3), (4, 1)) in pairs and ((), (3,)) in pairs and ((0, 3), (1, 3)) in pairs


def test_generic_cases_from_a_spec_alone():
    spec = get_kernel_spec("Add")
    cases = generic_cases(spec)
    assert {c.infos()[0].dtype for c in cases} == set(accepted(spec, "x"))
    assert all(c.inputs[0].dtype == c.inputs[1].dtype for c in cases)
    floats = [c.inputs[0] for c in cases if c.inputs[0].dtype.kind == "f" and c.inputs[0].size]
    assert any((x < 0).any() for x in floats) and any((x > 0).any() for x in floats)  # both signs
    assert generic_cases(get_kernel_spec("Reshape")) == []  # 'shape' is required: no guess


def test_samples_respect_their_domain():
    x = sample((200,), tp.float64, Domain(-3, 3, margin=0.5), key="t")
    assert (np.abs(x) >= 0.5).all() and (np.abs(x) <= 3).all()
    y = sample((200,), tp.float32, Domain(-3, 3, off_grid=True), key="t")
    frac = y - np.floor(y)
    assert ((frac > 0.05) & (np.abs(frac - 0.5) > 0.05) & (frac < 0.95)).all()
    n = sample((200,), tp.int32, Domain(-3, 3, margin=1), key="t")
    assert n.dtype == np.int32 and (n != 0).all()
    np.testing.assert_array_equal(sample((5,), tp.float32, key=1), sample((5,), tp.float32, key=1))


# -- comparing values ------------------------------------------------------------------------
def test_compare_exact_dtypes():
    assert compare_values(np.array([1, 2, 3]), np.array([1, 2, 3]), tp.int64) is None
    assert compare_values(np.array([1, 5, 7]), np.array([1, 2, 3]), tp.int64) == (
        "first wrong element at index (1,): got np.int64(5), expected np.int64(2); 2 of 3 element(s) differ")


def test_compare_floats_names_the_worst_element():
    got = np.array([[1.0, 2.0], [3.0, 4.5]], np.float32)
    want = np.array([[1.0, 2.0000001], [3.1, 4.0]], np.float32)
    msg = compare_values(got, want, tp.float32)
    assert msg.startswith("worst element at index (1, 1): got 4.5, expected 4 (abs error 0.5, "
                          "allowed 5e-05 = atol 1e-05 + rtol 1e-05 * |expected|); 2 of 4 element(s) out "
                          "of tolerance")


def test_compare_nan_inf_shape_and_tolerance_overrides():
    both = np.array([np.nan, np.inf, -np.inf, 1.0])
    assert compare_values(both, both.copy(), tp.float64) is None
    assert "got nan, expected 1" in compare_values(np.array([np.nan]), np.array([1.0]), tp.float64)
    assert compare_values(np.zeros(3), np.zeros((3, 1)), tp.float64) == "shape (3,), expected (3, 1)"
    assert compare_values(np.array([1.19e-7]), np.array([1e-7]), tp.float32) is None
    assert compare_values(np.array([1.19e-7]), np.array([1e-7]), tp.float32, atol={"float32": 1e-9})
    assert tolerance(tp.int32, 1.0, 1.0) == (0.0, 0.0)
    assert tolerance(tp.float64, atol={"float32": 1.0}) == (1e-10, 1e-12)


# -- check_gradients in float32 --------------------------------------------------------------
def test_check_gradients_in_float32():
    x = np.linspace(-1, 1, 5)
    check_gradients(tp.tanh, x, dtype=tp.float32, eps=1e-3, atol=1e-2, rtol=1e-2)
    with pytest.raises(AssertionError, match=r"(?s)worst element.*arg 0: float32\[5\]"):
        check_gradients(lambda v: tp.tanh(v) + tp.stop_gradient(v) * v, x, dtype=tp.float32, eps=1e-3,
                        atol=1e-2, rtol=1e-2)
    with pytest.raises(ValueError, match="dtype must be a floating dtype, got int32"):
        check_gradients(tp.tanh, x, dtype=tp.int32)


def test_errors_the_kit_expects_are_the_typed_ones():
    assert issubclass(ShapeError, ValueError) and issubclass(DTypeError, TypeError)
    assert issubclass(IndexOutOfRangeError, IndexError)
