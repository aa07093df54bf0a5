"""tp.vmap's rules for the convolutions (Conv2D, Conv3D, their input and filter gradients: the
filter batched too), Dilation2D and its gradients, the image kernels that read by row,
MaxPoolWithArgmax, the counting kernels, AdamUpdate and BroadcastArgs: each kernel vmapped over
examples whose inputs all differ (integer inputs too: box indices, values to count), batched
along axis 0, along the last axis and one input at a time, against a loop of the kernel over the
examples; an empty batch; one jax case per kernel; per-example gradients of a small conv net
against a loop of tp.grad, and a Hessian through convolutions against a loop of jvps."""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import VmapFallbackWarning

B = 3  # examples per batch
Example = Callable[[np.random.Generator], list[np.ndarray]]  # one example's inputs


@dataclass(frozen=True)
class Case:
    """A kernel, how to make one example's inputs, and its attributes."""

    kernel: str
    example: Example
    attrs: dict[str, Any] = field(default_factory=dict)
    label: str = ""


def _forward_shape(kernel: str, inputs: list[np.ndarray], attrs: dict[str, Any]) -> tuple[int, ...]:
    with tp.backend_scope("numpy"):
        return tuple(tp.run_kernel(kernel, [tp.asarray(a) for a in inputs], attrs).shape)


def _conv_grad(x_shape: tuple[int, ...], filter_shape: tuple[int, ...], **geometry: Any) -> Case:
    rank = len(x_shape) - 2
    attrs = {"strides": 1, "padding": ((0, 0),) * rank, "dilations": 1, "groups": 1, **geometry}
    forward = "Conv2D" if rank == 2 else "Conv3D"
    dy_shape = _forward_shape(forward, [np.zeros(x_shape), np.zeros(filter_shape)], attrs)

    def example(rng: np.random.Generator) -> list[np.ndarray]:
        return [rng.standard_normal(x_shape), rng.standard_normal(dy_shape)]
    name = "Conv2DBackpropFilter" if rank == 2 else "Conv3DBackpropFilterV2"
    return Case(name, example, {"filter_shape": filter_shape, **attrs},
                f"{attrs.get('data_format', 'last')}-groups{attrs['groups']}")


def _conv(x_shape: tuple[int, ...], filter_shape: tuple[int, ...], backprop: bool = False,
          **geometry: Any) -> Case:
    """Conv2D / Conv3D (x, filter), or their input gradients (dy, filter)."""
    rank = len(x_shape) - 2
    attrs = {"strides": 1, "padding": ((0, 0),) * rank, "dilations": 1, "groups": 1, **geometry}
    forward = "Conv2D" if rank == 2 else "Conv3D"
    first = x_shape  # (x, or dy of the convolution's output shape)
    if backprop:
        first = _forward_shape(forward, [np.zeros(x_shape), np.zeros(filter_shape)], attrs)

    def example(rng: np.random.Generator) -> list[np.ndarray]:
        return [rng.standard_normal(first), rng.standard_normal(filter_shape)]
    if backprop:
        name = "Conv2DBackpropInput" if rank == 2 else "Conv3DBackpropInputV2"
        return Case(name, example, {"input_shape": x_shape, **attrs}, f"groups{attrs['groups']}")
    return Case(forward, example, attrs, f"groups{attrs['groups']}")


def _dilation(kernel: str, **attrs: Any) -> Case:
    """Dilation2D (x, filter) or one of its gradients (x, filter, dy)."""
    x_shape, f_shape = (2, 5, 6, 2), (2, 3, 2)
    dy_shape = _forward_shape("Dilation2D", [np.zeros(x_shape), np.zeros(f_shape)], attrs)

    def example(rng: np.random.Generator) -> list[np.ndarray]:
        given = [rng.standard_normal(x_shape), rng.standard_normal(f_shape), rng.standard_normal(dy_shape)]
        return given if kernel != "Dilation2D" else given[:2]
    return Case(kernel, example, attrs, f"dilations{attrs['dilations']}")


def _boxes(rng: np.random.Generator) -> list[np.ndarray]:
    """4 boxes, some reaching outside the image, and their image rows in [-1, 3) for 2 images
    (-1 and 2 read nothing)."""
    return [rng.uniform(-0.2, 1.2, (4, 4)).astype(np.float32), rng.integers(-1, 3, 4).astype(np.int32)]


def _transforms(rng: np.random.Generator, rows: int) -> np.ndarray:
    return np.eye(3).ravel()[:8] + rng.uniform(-0.2, 0.2, (rows, 8)) * [1, 1, 2, 1, 1, 2, 0.05, 0.05]


def _sorted_search(rng: np.random.Generator) -> list[np.ndarray]:
    """x1 sorted with repeated values, x2 hitting some of them exactly (the sides differ)."""
    return [np.sort(rng.integers(0, 5, 6)).astype(np.float64), rng.integers(-1, 7, (2, 3)) / 1.0]


def _special_search(rng: np.random.Generator) -> list[np.ndarray]:
    """NaN sorts last; infinities and NaN searched."""
    x1 = np.sort(np.concatenate([rng.integers(0, 3, 3) / 1.0, [np.nan, np.inf, -np.inf]]))
    return [x1, np.array([np.nan, np.inf, -np.inf, rng.integers(0, 3) / 1.0, -0.0])]


def _counted(rows: tuple[int, ...], weighted: bool) -> Example:
    def example(rng: np.random.Generator) -> list[np.ndarray]:
        x = rng.integers(-1, 7, rows)  # (-1 and 6 are dropped with size 6: out of range)
        return [x, rng.standard_normal(rows) if weighted else np.zeros(0)]
    return example


def _adam_example(rng: np.random.Generator, step_size: float, epsilon_hat: float) -> list[np.ndarray]:
    """param, grad, m, v of one shape, then the step's two 0-d values (batched, per example)."""
    return ([rng.standard_normal((2, 3)) for _ in range(3)] + [rng.random((2, 3))]
            + [np.array(step_size), np.array(epsilon_hat)])


CASES = [
    _conv((2, 5, 6, 4), (3, 2, 4, 3), strides=(1, 2), padding=((1, 1), (0, 1))),
    _conv((2, 4, 5, 5), (2, 2, 2, 6), dilations=(2, 1), groups=2, data_format="NCHW"),
    _conv((2, 3, 4, 3, 2), (2, 2, 2, 1, 4), groups=2, strides=(1, 2, 1)),
    _conv((2, 5, 6, 4), (3, 2, 4, 3), backprop=True, strides=(1, 2), padding=((1, 1), (0, 1))),
    _conv((2, 4, 5, 5), (2, 2, 2, 6), backprop=True, groups=2, data_format="NCHW"),
    _conv((2, 4, 3, 3, 3), (2, 1, 2, 2, 4), backprop=True, groups=2, data_format="NCDHW"),
    _conv_grad((2, 5, 6, 4), (3, 2, 4, 3), strides=(1, 2), padding=((1, 1), (0, 1))),
    _conv_grad((2, 4, 5, 5), (2, 2, 2, 6), padding=((0, 0), (1, 0)), dilations=(2, 1), groups=2,
               data_format="NCHW"),
    _conv_grad((2, 3, 4, 3, 2), (2, 2, 2, 2, 3), strides=(1, 2, 1)),
    _conv_grad((2, 4, 3, 3, 3), (2, 1, 2, 2, 4), groups=2, data_format="NCDHW"),
    _dilation("Dilation2D", strides=(1, 2), pad=((1, 0), (0, 1)), dilations=(1, 2)),
    _dilation("Dilation2DBackpropInput", strides=(1, 2), pad=((1, 0), (0, 1)), dilations=(1, 1)),
    _dilation("Dilation2DBackpropInput", strides=(1, 1), pad=((0, 0), (0, 0)), dilations=(2, 1)),
    _dilation("Dilation2DBackpropFilter", strides=(1, 2), pad=((1, 0), (0, 1)), dilations=(1, 1)),
    _dilation("Dilation2DBackpropFilter", strides=(2, 1), pad=((0, 1), (1, 1)), dilations=(1, 2)),
    Case("CropAndResize", lambda rng: [rng.standard_normal((2, 5, 6, 2)), *_boxes(rng)],
         {"crop_size": (3, 4), "method": "bilinear", "extrapolation_value": 0.5}, "bilinear"),
    Case("CropAndResize", lambda rng: [rng.standard_normal((2, 5, 6, 2)), *_boxes(rng)],
         {"crop_size": (2, 3), "method": "nearest"}, "nearest"),
    Case("CropAndResizeGradImage", lambda rng: [rng.standard_normal((4, 3, 4, 2)), *_boxes(rng)],
         {"image_shape": (2, 5, 6, 2), "method": "bilinear"}, "bilinear"),
    Case("CropAndResizeGradImage", lambda rng: [rng.standard_normal((4, 2, 3, 2)), *_boxes(rng)],
         {"image_shape": (2, 5, 6, 2), "method": "nearest"}, "nearest"),
    Case("Transform", lambda rng: [rng.standard_normal((2, 4, 5, 2)), _transforms(rng, 1)],
         {"interpolation": "bilinear", "output_shape": (3, 6)}, "one-row"),
    Case("Transform", lambda rng: [rng.standard_normal((2, 4, 5, 2)), _transforms(rng, 2)],
         {"interpolation": "nearest", "fill_mode": "reflect"}, "row-per-image"),
    Case("RotateWithOffset", lambda rng: [rng.standard_normal((2, 4, 5, 3))],
         {"radians": 0.4, "fill_value": (0.1, 0.2, 0.3), "center": (0.4, 0.6)}),
    *(Case("MaxPoolWithArgmax", lambda rng: [rng.standard_normal((2, 5, 6, 3))],
           {"filter_size": (2, 3), "strides": (2, 2), "pad": ((0, 1), (1, 1)), "include_batch_in_index": b},
           f"batch-in-index-{b}") for b in (False, True)),
    Case("Bincount", _counted((7,), True), {"size": 6}, "weighted"),
    Case("Bincount", _counted((7,), False), {"size": 6}, "counted"),
    Case("DenseBincount", _counted((2, 7), True), {"size": 6}, "rows-weighted"),
    Case("DenseBincount", _counted((7,), False), {"size": 6, "binary_output": True}, "binary"),
    Case("DenseBincount", _counted((3, 5), False), {"size": 6}, "rows-counted"),
    *(Case("SearchSorted", _sorted_search, {"side": side}, side) for side in ("left", "right")),
    *(Case("SearchSorted", _special_search, {"side": side}, f"special-{side}") for side in ("left", "right")),
    Case("SearchSorted", lambda rng: [np.sort(rng.integers(-3, 3, 5)), rng.integers(-4, 4, (4,))], {},
         "int"),
    Case("AdamUpdate", lambda rng: _adam_example(rng, 0.01, 1e-7), {"beta1": 0.9, "beta2": 0.99}, "one-step"),
    Case("AdamUpdate", lambda rng: _adam_example(rng, rng.random() * 0.1, rng.random() * 1e-3),
         {"beta1": 0.9, "beta2": 0.99}, "own-steps"),
    Case("BroadcastArgs", lambda rng: [rng.integers(1, 4, 3), rng.integers(1, 4, 2)]),
]

FIRST_PER_KERNEL = [c for i, c in enumerate(CASES) if all(d.kernel != c.kernel for d in CASES[:i])]


def _layouts(ranks: list[int]) -> list[tuple[int | None, ...]]:
    """All inputs batched along axis 0; all along their last axis; each input alone."""
    n = len(ranks)
    alone = [tuple(0 if j == i else None for j in range(n)) for i in range(n)] if n > 1 else []
    return [(0,) * n, tuple(ranks), *alone]


def _batch(case: Case) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(zlib.crc32(f"{case.kernel}-{case.label}".encode()))
    return [case.example(rng) for _ in range(B)]


def _outputs(out: Any) -> list[np.ndarray]:
    return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]


def _check(case: Case, layout: tuple[int | None, ...], examples: list[list[np.ndarray]]) -> None:
    def kernel(*xs: Any) -> Any:
        return tp.run_kernel(case.kernel, list(xs), case.attrs)

    shared = examples[0]
    loop = [_outputs(kernel(*[tp.asarray(shared[i] if a is None else ex[i]) for i, a in enumerate(layout)]))
            for ex in examples]
    batched = [tp.asarray(shared[i] if a is None else np.stack([ex[i] for ex in examples], axis=a))
               for i, a in enumerate(layout)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)  # the rule, not the loop
        got = _outputs(tp.vmap(kernel, in_axes=layout)(*batched))
    for k, g in enumerate(got):
        want = np.stack([parts[k] for parts in loop])
        assert g.dtype == want.dtype, (layout, k)
        if np.issubdtype(want.dtype, np.inexact):
            np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-9, err_msg=f"batched along {layout}")
        else:
            np.testing.assert_array_equal(g, want, err_msg=f"batched along {layout}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.kernel}-{c.label}" if c.label else c.kernel)
def test_rule_agrees_with_a_loop(case: Case) -> None:
    examples = _batch(case)
    with tp.backend_scope("numpy"):
        for layout in _layouts([a.ndim for a in examples[0]]):
            _check(case, layout, examples)


@pytest.mark.parametrize("case", FIRST_PER_KERNEL, ids=lambda c: c.kernel)
def test_an_empty_batch(case: Case) -> None:
    """Empty outputs of one example's output shapes and dtypes (rules that divide by the batch
    size are not run)."""
    example = _batch(case)[0]
    with tp.backend_scope("numpy"):
        one = _outputs(tp.run_kernel(case.kernel, [tp.asarray(a) for a in example], case.attrs))
        empty = [tp.asarray(np.zeros((0,) + a.shape, a.dtype)) for a in example]
        got = _outputs(tp.vmap(lambda *xs: tp.run_kernel(case.kernel, list(xs), case.attrs))(*empty))
    assert [(g.shape, g.dtype) for g in got] == [((0,) + o.shape, o.dtype) for o in one]


@pytest.mark.jax
@pytest.mark.parametrize("case", FIRST_PER_KERNEL, ids=lambda c: c.kernel)
def test_rule_agrees_with_a_loop_on_jax(case: Case) -> None:
    examples = _batch(case)
    n = len(examples[0])
    with tp.backend_scope("jax"):
        _check(case, (0,) + (None,) * (n - 1) if n > 1 else (0,), examples)


# -- per-example gradients of a small conv net ----------------------------------------------------
def _conv_net_loss(p: dict[str, Any], x: Any, y: Any) -> Any:
    """A grouped conv, a morphological dilation, a strided conv and a dense layer on one image
    (5, 5, 2); y one-hot over 2 classes."""
    h = tp.nn.relu(tp.nn.conv(tp.reshape(x, (1, 5, 5, 2)), p["w1"], padding="SAME", groups=2) + p["b1"])
    h = tp.nn.dilation2d(h, p["d"], padding="SAME")
    h = tp.tanh(tp.nn.conv(h, p["w2"], strides=2, padding="VALID"))
    logits = tp.reshape(h, (1, -1)) @ p["w3"]
    return -tp.sum(tp.nn.log_softmax(logits) * y)


def _conv_net_data() -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    params = {"w1": rng.standard_normal((3, 3, 1, 4)), "b1": rng.standard_normal(4),
              "d": rng.standard_normal((2, 2, 4)) * 0.1, "w2": rng.standard_normal((3, 3, 4, 3)) * 0.3,
              "w3": rng.standard_normal((12, 2))}
    return params, rng.standard_normal((3, 5, 5, 2)), np.eye(2)[[0, 1, 1]]


def test_per_example_gradients_of_a_conv_net() -> None:
    """Eager and under tp.jit, on numpy (jax would compile every kernel twice: ~6 s; its rules
    are checked above)."""
    params, x, y = _conv_net_data()
    with tp.backend_scope("numpy"):
        p = {k: tp.asarray(v) for k, v in params.items()}
        per_example = tp.vmap(tp.grad(_conv_net_loss), in_axes=(None, 0, 0))
        with warnings.catch_warnings():
            warnings.simplefilter("error", VmapFallbackWarning)
            got = [per_example(p, tp.asarray(x), tp.asarray(y))]
            compiled = tp.jit(per_example)
            got += [compiled(p, tp.asarray(x), tp.asarray(y)) for _ in range(2)]  # traced, then planned
        loop = [tp.grad(_conv_net_loss)(p, tp.asarray(x[i]), tp.asarray(y[i])) for i in range(len(x))]
    for k in params:
        want = np.stack([g[k].numpy() for g in loop])
        for run in got:
            np.testing.assert_allclose(run[k].numpy(), want, rtol=1e-6, atol=1e-9, err_msg=k)


# -- batched filters: Jacobians and Hessians through convolutions ---------------------------------
def test_hessian_through_convolutions_against_a_loop_of_jvps() -> None:
    """jacfwd of the gradient in a conv net's filters (tangents of the filters batched: grouped
    convolutions, dilations folded into channels) against one jvp per basis vector."""
    rng = np.random.default_rng(3)
    x = tp.asarray(rng.standard_normal((2, 5, 5, 2)))
    d = tp.asarray(rng.standard_normal((2, 2, 4)) * 0.1)

    def f(w: Any) -> Any:
        h = tp.tanh(tp.nn.conv(x, w, padding="SAME", groups=2))
        return tp.sum(tp.nn.dilation2d(h, d * tp.sum(w), padding="SAME") ** 2)

    with tp.backend_scope("numpy"):
        w = tp.asarray(rng.standard_normal((3, 3, 1, 4)) * 0.5)
        gradient = tp.grad(f)
        with warnings.catch_warnings():
            warnings.simplefilter("error", VmapFallbackWarning)
            got = tp.jacfwd(gradient)(w).numpy()
        basis = np.eye(w.size).reshape((w.size,) + w.shape)
        loop = [tp.jvp(gradient, (w,), (tp.asarray(e),))[1].numpy() for e in basis]
    want = np.moveaxis(np.stack(loop), 0, -1).reshape(w.shape + w.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
