"""Bad input the fuzz of the public API found (issue 37): each case gives a tensorplug error that
is also the built-in a user would catch, naming the op (or kernel) and the argument, on each
first-party backend: arrays where a str or a flag belongs, Python ints past any float, malformed
run_kernel inputs and attrs, direct constructors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug import nn
from test_bad_input import BACKENDS, Errors
from test_bad_input import test_bad_argument_is_a_clear_error as clear_error

HUGE = 10**400  # past the largest float


def _x() -> tp.Tensor:
    return tp.asarray([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]])


HUGE_ERROR = r"is an int of 1329 bits, past the largest float"
# (label, call, error types, message pattern)
CASES: list[tuple[str, Callable[[], Any], Errors, str]] = [
    # direct constructors
    ("DType(bogus kind)", lambda: tp.DType("bogus", "bogus", None), (tp.ArgumentError, TypeError),
     r"DType: name must be a str, kind one of 'bool', .*got name='bogus', kind='bogus'"),
    ("DType(bad numpy dtype)", lambda: tp.DType("x", "float", "bogus"), (tp.DTypeError, TypeError),
     r"DType 'x': numpy_dtype must be a numpy dtype"),
    ("Tensor()", lambda: tp.Tensor([1.0]), (tp.ArgumentError, TypeError),
     r"tp.Tensor\(\) is not a constructor. Tensors are made by ops: use tp.asarray"),
    # an array where a str or a flag belongs (compared in a Python `if`)
    ("pad(mode=array)", lambda: tp.pad(_x(), 1, mode=np.array([1, 2])), (tp.ArgumentError, TypeError),
     r"pad: mode must be 'constant', 'reflect' or 'symmetric', got a ndarray of shape \(2,\)"),
    ("cumulative_sum(include_initial=array)",
     lambda: tp.cumulative_sum(_x(), axis=1, include_initial=np.array([1, 0])), (tp.ArgumentError,),
     r"cumulative_sum: include_initial must be True or False, got a ndarray"),
    ("cumulative_prod(include_initial=array)",
     lambda: tp.cumulative_prod(_x(), axis=1, include_initial=np.array([1, 0])), (tp.ArgumentError,),
     r"cumulative_prod: include_initial must be True or False, got a ndarray"),
    ("fused_matmul(activation=array)",
     lambda: nn.fused_matmul(_x(), tp.ones((3, 2)), activation=np.array([1, 0])), (tp.ArgumentError,),
     r"fused_matmul: activation must be a str, one of 'linear', .*got a ndarray"),
    # Python ints past any float
    ("clip(min=huge)", lambda: tp.clip(_x(), HUGE), (tp.ShapeError, ValueError), "clip: min " + HUGE_ERROR),
    ("clip(max=-huge)", lambda: tp.clip(_x(), None, -HUGE), (tp.ShapeError,), "clip: max " + HUGE_ERROR),
    ("arange(huge)", lambda: tp.arange(HUGE), (tp.ShapeError,), "arange: stop " + HUGE_ERROR),
    ("arange(step=huge)", lambda: tp.arange(0.5, 3, HUGE), (tp.ShapeError,), "arange: step " + HUGE_ERROR),
    ("elu(alpha=huge)", lambda: nn.elu(_x(), HUGE), (tp.ShapeError,), "elu: alpha " + HUGE_ERROR),
    ("leaky_relu(huge)", lambda: nn.leaky_relu(_x(), HUGE), (tp.ShapeError,),
     "leaky_relu: negative_slope " + HUGE_ERROR),
    ("dropout(rate=huge)", lambda: nn.dropout(_x(), HUGE, seed=1), (tp.ShapeError,),
     "dropout: rate " + HUGE_ERROR),
    ("one_hot(on_value=huge)", lambda: nn.one_hot(tp.asarray([0, 1]), 3, on_value=HUGE), (tp.ShapeError,),
     "one_hot: on_value " + HUGE_ERROR),
    ("random.normal(mean=huge)", lambda: tp.random.normal((2,), seed=1, mean=HUGE), (tp.ShapeError,),
     "normal: mean " + HUGE_ERROR),
    ("random.uniform(low=huge)", lambda: tp.random.uniform((2,), seed=1, low=HUGE), (tp.ShapeError,),
     "uniform: low " + HUGE_ERROR),
    ("layer_norm(epsilon=huge)", lambda: nn.layer_norm(_x(), epsilon=HUGE), (tp.ShapeError,),
     "layer_norm: epsilon " + HUGE_ERROR),
    ("local_response_normalization(bias=huge)",
     lambda: nn.local_response_normalization(tp.ones((1, 2, 2, 3)), bias=HUGE), (tp.ShapeError,),
     "local_response_normalization: bias " + HUGE_ERROR),
    ("batch_norm_train(momentum=huge)",
     lambda: nn.batch_norm_train(_x(), tp.zeros(3), tp.ones(3), momentum=HUGE), (tp.ShapeError,),
     "batch_norm_train: momentum " + HUGE_ERROR),
    ("pad(constant_values=huge)", lambda: tp.pad(_x(), 1, constant_values=HUGE), (tp.ShapeError,),
     "pad: constant_values " + HUGE_ERROR),
    # edges: a filter of no elements (it gave zeros larger than the input), negative sizes
    ("conv(zero-sized filter)", lambda: nn.conv(tp.ones((1, 6, 3, 3)), tp.ones((0, 3, 3, 4))),
     (tp.ShapeError,), r"conv: the filter \(shape \(0, 3, 3, 4\)\) has size 0 along spatial dim 0; a filter"),
    ("run_kernel(Conv2D, zero-sized filter)",
     lambda: tp.run_kernel("Conv2D", [tp.ones((1, 6, 3, 3)), tp.ones((2, 0, 3, 4))],
                           {"strides": (1, 1), "padding": ((0, 0), (0, 0)), "dilations": (1, 1)}),
     (tp.ShapeError,),
     r"Kernel 'Conv2D' .*the filter \(shape \(2, 0, 3, 4\)\) has size 0 along spatial dim 1"),
    ("max_pool(strides=-1)", lambda: nn.max_pool(tp.ones((1, 4, 4, 1)), 2, strides=-1), (tp.ShapeError,),
     r"max_pool: strides must be >= 1 on every axis, got -1\."),
    ("max_pool(strides=0)", lambda: nn.max_pool(tp.ones((1, 4, 4, 1)), 2, strides=0), (tp.ShapeError,),
     r"max_pool: strides must be >= 1 on every axis, got 0\."),
    ("avg_pool(window_shape=(2, -1))", lambda: nn.avg_pool(tp.ones((1, 4, 4, 1)), (2, -1)), (tp.ShapeError,),
     r"avg_pool: window_shape must be >= 1 on every axis, got \(2, -1\)\."),
    # found by the long fuzz
    ("clip(min=ragged list)", lambda: tp.clip(_x(), min=[[1], [2, 3]]), (tp.DTypeError,),
     r"asarray: cannot convert list: .*inhomogeneous"),
    ("pad(ragged pad_width)", lambda: tp.pad(2.0, [[1], [2, 3]]), (tp.DTypeError,),
     r"pad: pad_width must hold ints, got \[\[1\], \[2, 3\]\]"),
    ("fft.fftfreq(huge)", lambda: tp.fft.fftfreq(HUGE), (tp.ShapeError,), r"fftfreq: shape .* past backend"),
    ("fft.rfftfreq(2**62)", lambda: tp.fft.rfftfreq(2**62), (tp.ShapeError,),
     r"rfftfreq: shape .* past backend"),
    ("linalg.matrix_norm(ord=array)", lambda: tp.linalg.matrix_norm(tp.ones((2, 2)), ord=np.zeros((2, 3))),
     (tp.ArgumentError,), r"matrix_norm: ord must be one of 'fro', 'nuc', .*got a ndarray of shape \(2, 3\)"),
    ("linalg.vector_norm(ord=huge)", lambda: tp.linalg.vector_norm(_x(), ord=HUGE), (tp.ShapeError,),
     "vector_norm: ord " + HUGE_ERROR),
    # an int too long for Python to print (4,300 digits) is shown by its size in a message
    ("zeros(10**5000)", lambda: tp.zeros(10**5000), (tp.ShapeError,), r"zeros: shape \(about 10\*\*5000,\)"),
    ("ones((2, 10**5000))", lambda: tp.ones((2, 10**5000)), (tp.ShapeError,),
     r"has about 10\*\*5000 elements"),
    ("reshape(10**5000)", lambda: tp.reshape(_x(), (10**5000,)), (tp.ShapeError,),
     r"reshape: cannot reshape .* into \(about 10\*\*5000,\)"),
    ("reshape(-1, 10**5000)", lambda: tp.reshape(_x(), (-1, 10**5000)), (tp.ShapeError,),
     r"into \(-1, about 10\*\*5000\); the -1 cannot be inferred"),
    ("full(fill_value=10**5000)", lambda: tp.full((3,), 10**5000), (tp.DTypeError,),
     r"full: fill_value about 10\*\*5000 does not fit in int64"),
    ("linearize(f, function)", lambda: tp.linearize(lambda a: tp.sum(a * a), print), (tp.ArgumentError,),
     r"linearize: primals\[0\] is a builtin_function_or_method, which is neither a tensor"),
    # run_kernel's inputs and attrs
    ("run_kernel(inputs=None)", lambda: tp.run_kernel("Exp", None, {}), (tp.ArgumentError, TypeError),
     r"run_kernel\('Exp'\): inputs must be a dict of its input names \['x'\] to tensors, or a list .*"
     "got NoneType"),
    ("run_kernel(variadic input not a list)", lambda: tp.run_kernel("AddN", {"xs": 3}), (tp.ArgumentError,),
     r"run_kernel\('AddN'\): input 'xs' takes a list of tensors, got int"),
    ("run_kernel(attrs=list)", lambda: tp.run_kernel("Sum", {"x": _x()}, [("axis", 0)]),
     (tp.ArgumentError, TypeError),
     r"kernel 'Sum': attrs must be a dict of attribute names to values \(or None\), got list; its attributes "
     r"are \['axis', 'keepdims'\]"),
    ("run_kernel(Elu, alpha=huge)", lambda: tp.run_kernel("Elu", [_x()], {"alpha": HUGE}), (tp.ShapeError,),
     r"kernel 'Elu': attribute 'alpha'=about 10\*\*400 is invalid: int too large to convert to float"),
    ("run_kernel(attrs with mixed keys)", lambda: tp.run_kernel("Sum", {"x": _x()}, {1: 0, "b": 1}),
     (tp.ShapeError,), r"kernel 'Sum' has no attribute\(s\) \['b', 1\]"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("label", "call", "errors", "match"), CASES, ids=[c[0] for c in CASES])
def test_bad_argument_is_a_clear_error(label: str, call: Callable[[], Any], errors: Errors, match: str,
                                       backend: str) -> None:
    clear_error(label, call, errors, match, backend)  # (test_bad_input.py's check, on these cases)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("counts", [np.array([2, 0], np.uint64), np.uint64(3)], ids=["array", "scalar"])
def test_repeat_takes_unsigned_counts(backend: str, counts: Any) -> None:
    """uint64 repeats (numpy will not cast them to its int64 counts itself), as a tensor too."""
    if backend == "jax":
        pytest.importorskip("jax")
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    want = np.repeat(x, np.asarray(counts).astype(np.int64), axis=0)
    with tp.backend_scope(backend):
        for given in (counts, tp.asarray(counts)):
            np.testing.assert_array_equal(tp.repeat(tp.asarray(x), given, axis=0).numpy(), want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_crop_and_resize_names_an_image_of_the_wrong_rank(backend: str) -> None:
    """(an IndexError from reading the batch size of a 0-d image, before the fuzz found it)"""
    if backend == "jax":
        pytest.importorskip("jax")
    with tp.backend_scope(backend), pytest.raises(tp.ShapeError, match=r"crop_and_resize: image .*4"):
        tp.image.crop_and_resize(2.0, tp.zeros((1, 4)), tp.asarray(np.array([0], np.int64)), (2, 2))

