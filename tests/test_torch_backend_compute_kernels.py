"""The torch backend's kernels of the compute families (linalg, nn, fused, convolution, pooling,
normalization, optim, fft, sorting, segments, decompositions, image, multinomial, sparse) where
the conformance kit looks little: against the numpy backend's on the geometries torch's own
functions do not take as they are (asymmetric padding, channels first, groups, ties of a max,
NaN orders, broadcast batches, singular matrices); inputs never written and outputs never
requiring grad; Multinomial's seeds. Their values in general are the kit's check
(``--tensorplug-backend torch``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import run_kernel

torch = pytest.importorskip("torch")
pytest.importorskip("tensorplug_torch")

RNG = np.random.default_rng(7)


def _normal(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def _ties(*shape: int) -> np.ndarray:
    return np.round(RNG.standard_normal(shape))  # (few values: many windows hold equal maxima)


_SPECIALS = np.array([np.nan, -0.0, 0.0, 1.5, -np.inf, np.inf, 1.5, np.nan, -2.0])
_COMPLEX = np.empty((9, 9), np.complex128)
_COMPLEX.real, _COMPLEX.imag = _SPECIALS[:, None], _SPECIALS[::-1]  # (every pair of parts)
_CONV = {"strides": (2, 1), "padding": ((1, 2), (0, 1)), "dilations": (1, 2), "groups": 2}
_POOL = {"filter_size": (3, 2), "strides": (2, 1), "pad": ((1, 0), (0, 1))}
_FIRST = {"data_format": "channels_first"}
_BATCH = np.stack([np.eye(3) * 2.0, np.ones((3, 3)), np.diag([1.0, 0.0, 2.0])])

#: id -> (kernel, inputs, attrs): each run on torch and on numpy, the results compared
CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "conv2d_nchw_uneven_padding": ("Conv2D", {"x": _normal(2, 4, 7, 6), "filter": _normal(3, 2, 2, 6)},
                                   {**_CONV, "data_format": "NCHW"}),
    "conv3d_backprop_input_uneven": (
        "Conv3DBackpropInputV2", {"dy": _normal(1, 3, 4, 3, 2), "filter": _normal(2, 2, 2, 3, 2)},
        {"input_shape": (1, 5, 4, 4, 3), "strides": (2, 1, 1), "padding": ((0, 1), (1, 0), (0, 0))}),
    "conv2d_backprop_filter_nchw": (
        "Conv2DBackpropFilter", {"x": _normal(2, 4, 7, 6), "dy": _normal(2, 6, 4, 5)},
        {**_CONV, "data_format": "NCHW", "filter_shape": (3, 2, 2, 6)}),
    "fused_conv2d_nchw_prelu": (
        "FusedConv2D", {"x": _normal(1, 4, 5, 5), "filter": _normal(3, 3, 4, 3), "bias": _normal(3),
                        "prelu_weights": _normal(3, 5, 5)},
        {"padding": ((1, 1), (1, 1)), "data_format": "NCHW", "has_bias": True, "activation": "prelu"}),
    "fused_depthwise_elu": (
        "FusedDepthwiseConv2D", {"x": _normal(1, 6, 5, 3), "filter": _normal(3, 3, 3, 2),
                                 "bias": _normal(6), "prelu_weights": np.zeros(1)},
        {"padding": ((0, 2), (1, 1)), "has_bias": True, "activation": "elu"}),
    "max_pool_grad_ties_channels_first": (
        "MaxPoolGrad", {"dy": _normal(2, 3, 3, 5), "input": _ties(2, 3, 7, 5),
                        "output": np.zeros((2, 3, 3, 5))},
        {**_POOL, **_FIRST}),
    "avg_pool3d_grad_uneven": (
        "AvgPool3DGrad", {"dy": _normal(1, 3, 2, 2, 2), "input": _normal(1, 5, 4, 3, 2)},
        {"filter_size": (2, 3, 2), "strides": (2, 2, 1), "pad": ((0, 1), (1, 0), (0, 0))}),
    "max_pool_with_argmax_batch_index": (
        "MaxPoolWithArgmax", {"x": _ties(2, 7, 5, 3)}, {**_POOL, "include_batch_in_index": True}),
    "dilation2d_backprop_filter_ties": (
        "Dilation2DBackpropFilter",
        {"x": _ties(2, 6, 5, 3), "filter": _ties(2, 2, 3), "dy": _normal(2, 3, 2, 3)},
        {"strides": (2, 2), "pad": ((1, 0), (0, 0)), "dilations": (2, 2)}),
    "solve_b_as_matrices_of_a_broadcast_batch": ("Solve", {"a": _normal(3, 3, 3) + 3 * np.eye(3),
                                                           "b": _normal(3, 3)}, {}),
    "inv_a_singular_matrix_of_a_batch": ("Inv", {"x": _BATCH}, {}),
    "cholesky_a_failing_matrix_of_a_batch": ("Cholesky", {"x": _BATCH}, {}),
    "svdvals_nan_matrix": ("Svdvals", {"x": np.where(_BATCH == 1.0, np.nan, _BATCH)}, {}),
    "cross_entropy_bad_labels": (
        "SparseSoftmaxCrossEntropyWithLogits",
        {"features": _normal(4, 3), "labels": np.array([0, 3, -1, 2])}, {}),
    "sort_descending_nan_last": ("Sort", {"x": _SPECIALS}, {"descending": True}),
    "argsort_descending_int_stable": ("ArgSort", {"x": np.array([2, -128, 2, 127, 0], np.int8)},
                                      {"descending": True}),
    "search_sorted_nan": ("SearchSorted", {"x1": np.sort(_SPECIALS), "x2": _SPECIALS}, {"side": "left"}),
    "unique_nan_zeros": ("Unique", {"x": _SPECIALS}, {}),
    "unique_complex_nan_classes": ("Unique", {"x": _COMPLEX}, {}),
    "segment_max_empty_segments": (
        "UnsortedSegmentMax", {"data": _normal(4, 2), "segment_ids": np.array([0, 3, 3, 7])},
        {"num_segments": 5}),
    "rfft_empty_batch": ("Rfft", {"x": np.zeros((2, 0, 3))}, {"axes": (2,), "s": (4,)}),
    "resize_bilinear_half_pixel": ("ResizeBilinear", {"images": _normal(1, 3, 4, 2)},
                                   {"size": (5, 7), "half_pixel_centers": True}),
}


def _run(backend: str, kernel: str, inputs: dict[str, Any], attrs: dict[str, Any]) -> tuple[tp.Tensor, ...]:
    with tp.backend_scope(backend):
        out = run_kernel(kernel, {k: tp.asarray(v) for k, v in inputs.items()}, attrs)
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("case", CASES)
def test_kernels_give_what_the_numpy_backend_gives(case):
    kernel, inputs, attrs = CASES[case]
    got, expected = _run("torch", kernel, inputs, attrs), _run("numpy", kernel, inputs, attrs)
    for g, e in zip(got, expected, strict=True):
        assert isinstance(g.native, torch.Tensor) and not g.native.requires_grad
        assert (g.dtype, g.shape) == (e.dtype, e.shape)
        if kernel in ("Sort", "ArgSort", "SearchSorted", "Unique"):  # (bit for bit: signed zeros, NaNs)
            assert g.numpy().tobytes() == e.numpy().tobytes()
        else:
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("kernel", "inputs", "attrs"), [
    ("FusedMatMul",
     {"a": _normal(3, 4), "b": _normal(4, 2), "bias": _normal(2), "prelu_weights": np.zeros(1)},
     {"has_bias": True, "activation": "relu"}),
    ("FusedConv2D", {"x": _normal(1, 4, 4, 2), "filter": _normal(2, 2, 2, 3), "bias": _normal(3),
                     "prelu_weights": np.zeros(1)}, {"has_bias": True, "activation": "sigmoid"}),
    ("AdamUpdate", {"param": _normal(5), "grad": _normal(5), "m": _normal(5), "v": np.abs(_normal(5)),
                    "step_size": np.array(0.1), "epsilon_hat": np.array(1e-7)},
     {"beta1": 0.9, "beta2": 0.999}),
    ("FusedBatchNorm", {"x": _normal(2, 3), "scale": _normal(3), "offset": _normal(3), "mean": _normal(3),
                        "variance": np.abs(_normal(3))}, {"epsilon": 1e-3}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_kernels_leave_their_inputs_alone(kernel, inputs, attrs):
    tp.set_backend("torch")
    tensors = {k: tp.asarray(v) for k, v in inputs.items()}
    before = {k: t.native.clone() for k, t in tensors.items()}
    out = run_kernel(kernel, tensors, attrs)
    for k, t in tensors.items():
        assert torch.equal(t.native, before[k]), k
    for o in out if isinstance(out, tuple) else (out,):
        assert not o.native.requires_grad


def _draws(seed: int, logits: np.ndarray, normalized: bool = False) -> np.ndarray:
    with tp.backend_scope("torch"):
        out = run_kernel("Multinomial", {"logits": tp.asarray(logits)},
                         {"num_samples": 64, "seed": seed, "normalized": normalized})
    assert out.dtype is tp.int64 and out.shape == (logits.shape[0], 64)
    return out.numpy()


def test_multinomial_draws_the_same_for_a_seed_and_takes_any_integer_seed():
    logits = np.zeros((3, 5))
    assert np.array_equal(_draws(3, logits), _draws(3, logits))
    assert not np.array_equal(_draws(3, logits), _draws(4, logits))
    for seed in (-1, 2**63 + 5, -(2**70)):
        assert ((_draws(seed, logits) >= 0) & (_draws(seed, logits) < 5)).all()
    certain = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert (_draws(0, certain, normalized=True) == np.array([[1], [2]])).all()


def test_a_small_conv_net_grad_and_jit_on_torch_agree_with_numpy():
    """Loss and gradients through the backprop kernels (convolution, max pool, LRN, the fused
    convolution, cross-entropy), eagerly and under tp.jit."""
    host = {"x": _normal(2, 6, 6, 2), "kernel": _normal(3, 3, 2, 4), "bias": _normal(4),
            "k2": _normal(2, 2, 4, 2), "w": _normal(18, 3)}
    labels = tp.asarray(np.array([2, 0]))

    def loss(params: dict[str, tp.Tensor]) -> tp.Tensor:
        y = tp.nn.fused_conv(params["x"], params["kernel"], params["bias"], "relu", padding="SAME")
        y = tp.nn.local_response_normalization(tp.nn.max_pool(y, (2, 2), 2), depth_radius=1)  # (2, 3, 3, 4)
        y = tp.nn.conv(y, params["k2"], padding=((1, 0), (0, 1)))  # (2, 3, 3, 2)
        return tp.nn.sparse_softmax_cross_entropy(labels, tp.matmul(tp.reshape(y, (2, 18)), params["w"]))

    def run() -> list[np.ndarray]:
        params = {k: tp.asarray(v) for k, v in host.items()}
        grad = tp.grad(loss)
        outs = [loss(params), *grad(params).values(), tp.jit(loss)(params), *tp.jit(grad)(params).values()]
        return [o.numpy() for o in outs]

    tp.set_backend("torch")
    on_torch = run()
    with tp.backend_scope("numpy"):
        on_numpy = run()
    for got, want in zip(on_torch, on_numpy, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_multinomial_rows_that_are_no_distribution_draw_class_0():
    """(torch.multinomial raises for them; the jax backend draws 0.)"""
    probabilities = np.array([[0.0, 0.0, 0.0], [-1.0, 2.0, 0.0], [np.nan, 0.5, 0.5], [0.0, 0.0, 1.0]])
    assert (_draws(5, probabilities, normalized=True) == np.array([[0], [0], [0], [2]])).all()
    assert (_draws(5, np.array([[-np.inf, -np.inf], [np.inf, 0.0]])) == 0).all()
