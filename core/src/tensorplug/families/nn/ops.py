"""Neural-network ops (JAX / TF.js conventions), public as ``tp.nn``: relu, sigmoid, softmax,
log_softmax, logsumexp, one_hot, softmax_cross_entropy, sparse_softmax_cross_entropy."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from tensorplug.backends.held_dtypes import check_held
from tensorplug.core import validate as valid
from tensorplug.core.context import record_custom, recorders_var, state
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_, float32, int32, int64
from tensorplug.errors import DTypeError, IndexOutOfRangeError, ShapeError, TracedValueError
from tensorplug.families._common.axes import detached
from tensorplug.families._common.convert import asarray, astype, caller, to_float
from tensorplug.families.elementwise.ops import abs as _abs
from tensorplug.families.elementwise.ops import (
    add,
    divide,
    equal,
    exp,
    log,
    multiply,
    negative,
    sigmoid,
    subtract,
    where,
)
from tensorplug.families.indexing.spec import one_hot_shape
from tensorplug.families.manipulation.ops import expand_dims, reshape, squeeze
from tensorplug.families.reductions.ops import max as _max
from tensorplug.families.reductions.ops import mean as _mean
from tensorplug.families.reductions.ops import sum as _sum
from tensorplug.kernels.dispatcher import wrap
from tensorplug.kernels.shape_rules import fill_number, normalize_axes, normalize_axis
from tensorplug.transforms.autodiff.forward import forward_mode_records, hidden_from_forward_mode

__all__ = ["log_softmax", "logsumexp", "one_hot", "relu", "sigmoid", "softmax",
           "softmax_cross_entropy", "sparse_softmax_cross_entropy"]

_RELU = caller("Relu")
_SOFTMAX = caller("Softmax")
_LOG_SOFTMAX = caller("LogSoftmax")
_ONE_HOT = caller("OneHot")
_SPARSE_XENT = caller("SparseSoftmaxCrossEntropyWithLogits")

_REDUCTIONS = ("mean", "sum", "none")
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}  # (integer labels as unsigned)
_MAX = np.maximum.reduce


def relu(x: Any, /) -> Tensor:
    """max(x, 0) elementwise (integer inputs keep their dtype)."""
    if not isinstance(x, Tensor):
        x = asarray(x)
    if x._dtype is bool_:
        raise DTypeError("relu does not accept bool tensors; cast first, e.g. x.astype(tp.float32).")
    return _RELU.unary(x)


def _normalizer(op: str, call: Any, x: Any, axis: int) -> Tensor:
    x = to_float(x)
    ndim = x.ndim
    if not ndim:
        raise ShapeError(f"{op} needs at least one dimension to normalize over, got a 0-d tensor.")
    return call((x,), {"axis": normalize_axis(axis, ndim, op)})


def softmax(x: Any, /, axis: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis`, computed stably; float result."""
    return _normalizer("softmax", _SOFTMAX, x, axis)


def log_softmax(x: Any, /, axis: int = -1) -> Tensor:
    """x - logsumexp(x) along `axis`, computed stably; float result."""
    return _normalizer("log_softmax", _LOG_SOFTMAX, x, axis)


def logsumexp(x: Any, /, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """log(sum(exp(x))) over `axis` (all axes if None), stable for large |x|; float result."""
    x = to_float(x)
    axes = normalize_axes(axis, x.ndim, "logsumexp")
    if not axes:
        return x
    if any(x.shape[a] == 0 for a in axes):  # an empty sum is 0, its log -inf (and no max to shift by)
        out = log(_sum(exp(x), axis=axes, keepdims=True))
        return out if valid.flag(keepdims, "logsumexp", "keepdims") else squeeze(out, axes)
    # the shift is a constant for autodiff; infinite maxima shift by 0 (JAX's rule)
    m = detached(_max(x, axis=axes, keepdims=True))
    m = where(equal(_abs(m), float("inf")), 0.0, m)
    out = add(log(_sum(exp(subtract(x, m)), axis=axes, keepdims=True)), m)
    return out if valid.flag(keepdims, "logsumexp", "keepdims") else squeeze(out, axes)


def one_hot(indices: Any, depth: int, *, dtype: Any = float32, on_value: float = 1.0,
            off_value: float = 0.0) -> Tensor:
    """Rows of `depth` values, on_value at each index and off_value elsewhere (indices outside
    [0, depth) give rows of off_value); shape indices.shape + (depth,)."""
    idx = asarray(indices)
    if not idx._dtype.is_integer:
        raise DTypeError(f"one_hot: indices must be integers, got {idx._dtype.name}; cast them with "
                         ".astype(tp.int64).")
    depth = valid.integer(depth, "one_hot", "depth")
    shape = one_hot_shape(idx.shape, depth, "one_hot")  # the spec's rule: refuses a negative depth
    valid.checked_size(shape, idx._backend, "one_hot")
    dt = valid.dtype(dtype, "one_hot")
    check_held(idx._backend, dt, "one_hot")
    return _ONE_HOT((idx,), {"depth": depth, "on_value": fill_number(on_value, dt, "on_value", "one_hot"),
                             "off_value": fill_number(off_value, dt, "off_value", "one_hot"), "dtype": dt})


def _check_reduction(op: str, reduction: str) -> None:
    if not isinstance(reduction, str) or reduction not in _REDUCTIONS:
        raise ShapeError(f"{op}: reduction={reduction!r} is not one of "
                         f"{', '.join(repr(r) for r in _REDUCTIONS)}.")


@functools.cache
def _cross_entropy_fn(axis: int, reduction: str, normalized: bool) -> Any:
    """The cross-entropy of (labels, logits) with fused derivatives, built once per variant: the
    loss is -sum(labels * ls) reduced, ls = log_softmax(logits); d/dlogits is (softmax *
    sum(labels) - labels) times the upstream gradient (sum(labels) == 1 when `normalized`:
    one-hot labels made from integer classes, which never need a derivative), and the tangent
    the same weights summed against the logits' tangent (minus ls against the labels'). Written
    with ops, so that it can be differentiated again; ls is computed where every recorder sees
    it, so the gradient, which uses it, has its own tangent in forward mode (hvp)."""
    def cross_entropy(lab: Tensor, lg: Tensor) -> Tensor:
        shape = lg.shape
        ax = axis % len(shape)
        count = float(math.prod(shape[:ax] + shape[ax + 1:]))
        ls = log_softmax(lg, axis=ax)

        def reduced(per_class: Tensor, sign: float = -1.0) -> Tensor:  # sign * sum, by `reduction`
            if reduction == "mean" and count:  # sum / count and the sign in one scaling
                return multiply(_sum(per_class), sign / count)
            total = _sum(per_class) if reduction == "sum" else _sum(per_class, axis=ax)
            total = negative(total) if sign < 0 else total
            return total if reduction != "mean" else _mean(total)

        if forward_mode_records():
            with hidden_from_forward_mode():  # (forward mode runs the tangent below instead)
                loss = reduced(multiply(lab, ls))
        else:
            loss = reduced(multiply(lab, ls))
        if not state.tapes:
            return loss
        out = wrap(loss._data, loss._backend, loss._dtype)

        def weights() -> Tensor:  # d loss / d logits, before the reduction's scaling
            probs = exp(ls)
            if normalized:
                return subtract(probs, lab)
            return subtract(multiply(probs, _sum(lab, axis=ax, keepdims=True)), lab)

        def grad_fn(dy: Tensor) -> tuple[Tensor, ...]:
            if reduction == "none":
                scale = expand_dims(dy, axis=ax)
            else:
                scale = multiply(dy, 1.0 / count) if reduction == "mean" and count else dy
            dlogits = multiply(weights(), scale)
            return (dlogits,) if normalized else (multiply(negative(ls), scale), dlogits)

        def tangent(tangents: tuple[Tensor, ...]) -> Tensor:  # (zeros where none)
            per_class = multiply(weights(), tangents[-1])
            if not normalized:
                per_class = subtract(per_class, multiply(tangents[0], ls))
            return reduced(per_class, sign=1.0)

        # (normalized labels are constants: only the logits are the entry's inputs)
        record_custom("cross_entropy", (lg,) if normalized else (lab, lg), (out,), grad_fn, tangent)
        return out

    return cross_entropy


@functools.cache
def _sparse_cross_entropy_fn(reduction: str) -> Any:
    """The cross-entropy of (labels (rows,), logits (rows, classes)) by the fused kernel: its
    loss output reduced; d/dlogits is its backprop output times the upstream gradient (scaled
    by the reduction), recorded as a custom gradient so that first-order backward skips the
    kernel's own gradient (which also serves a cotangent of backprop: second order). Not used
    while forward mode records (sparse_softmax_cross_entropy takes the one-hot path then)."""
    def cross_entropy(lab: Tensor, lg: Tensor) -> Tensor:
        rows = lg.shape[0]
        per_example, backprop = _SPARSE_XENT((lg, lab))
        if reduction == "mean" and rows:
            loss = multiply(_sum(per_example), 1.0 / rows)
        elif reduction == "sum":
            loss = _sum(per_example)
        else:
            loss = per_example if reduction == "none" else _mean(per_example)
        if not state.tapes:
            return loss
        out = wrap(loss._data, loss._backend, loss._dtype)

        def grad_fn(dy: Tensor) -> tuple[None, Tensor]:
            if reduction == "none":
                scale = expand_dims(dy, axis=1)
            else:
                scale = multiply(dy, 1.0 / rows) if reduction == "mean" and rows else dy
            return None, multiply(backprop, scale)

        record_custom("sparse_cross_entropy", (lab, lg), (out,), grad_fn)
        return out

    return cross_entropy


@functools.cache
def _forward_mode_test() -> Any:
    """autodiff's ``forward_mode_records``, imported on first use (autodiff sits above the ops;
    an import statement per call costs about a microsecond)."""
    return forward_mode_records


def _forward_mode_records() -> bool:
    return bool(_forward_mode_test()())


def _cross_entropy(labels: Tensor, logits: Tensor, axis: int, reduction: str,
                   normalized: bool) -> Tensor:
    return _cross_entropy_fn(axis, reduction, normalized)(labels, logits)


def softmax_cross_entropy(labels: Any, logits: Any, *, axis: int = -1,
                          reduction: str = "mean") -> Tensor:
    """-sum(labels * log_softmax(logits), axis), labels being one-hot rows or probabilities of
    the logits' shape; reduced by 'mean' (over the remaining axes), 'sum' or 'none'."""
    _check_reduction("softmax_cross_entropy", reduction)
    logits = to_float(logits)
    labels = astype(labels, logits._dtype)
    if labels.shape != logits.shape:
        raise ShapeError(f"softmax_cross_entropy: labels have shape {labels.shape} but logits have "
                         f"{logits.shape}; they must be equal (use sparse_softmax_cross_entropy for "
                         "integer class labels).")
    normalize_axis(axis, logits.ndim, "softmax_cross_entropy")
    return _cross_entropy(labels, logits, axis, reduction, normalized=False)


def sparse_softmax_cross_entropy(labels: Any, logits: Any, *, reduction: str = "mean") -> Tensor:
    """-log_softmax(logits)[..., labels] for integer class labels of shape logits.shape[:-1]
    (classes on the last axis); reduced by 'mean', 'sum' or 'none'. A label out of range raises
    IndexOutOfRangeError (inside tp.jit, where labels have no values, its loss is NaN).
    It runs one kernel, SparseSoftmaxCrossEntropyWithLogits (TF's), on the logits as rows of
    classes."""
    _check_reduction("sparse_softmax_cross_entropy", reduction)
    logits = to_float(logits)
    labels = asarray(labels)
    if not labels._dtype.is_integer:
        raise DTypeError(f"sparse_softmax_cross_entropy: labels must be integer class indices, got "
                         f"{labels._dtype.name}; for one-hot or probability labels use "
                         "softmax_cross_entropy.")
    shape = logits.shape
    if not shape or labels.shape != shape[:-1]:
        raise ShapeError(f"sparse_softmax_cross_entropy: labels have shape {labels.shape} and logits "
                         f"{shape}; labels must have the logits' shape without the last "
                         "(class) axis.")
    classes = shape[-1]
    # The fused kernel (logits of any rank as rows of classes), but under forward mode (tp.hvp)
    # the one-hot path: its recorded derivatives have a tangent of a few ops, where the fused
    # kernel's gradient would be differentiated whole (with its second-order term on a zero
    # cotangent).
    fused = not (recorders_var.get() and _forward_mode_records())
    # (the attributes are known valid here: the kernel directly, without one_hot's checks)
    targets = None if fused else _ONE_HOT((labels,), {"depth": classes, "on_value": 1.0,
                                                      "off_value": 0.0, "dtype": logits._dtype})
    try:
        host = labels.numpy()
    except TracedValueError:  # inside tp.jit: no values to check; a label out of range gives NaN:
        # the fused kernel's row is NaN; a one-hot row is all zeros, and 0 / 0 is NaN (a valid
        # row sums to 1: divided exactly)
        if targets is not None:
            targets = divide(targets, _sum(targets, axis=-1, keepdims=True))
    else:
        # one reduction finds both kinds of bad label: as unsigned, a negative one is huge
        if host.size and _MAX(host.view(_UNSIGNED[host.dtype.itemsize]), axis=None) >= classes:
            bad = host.min() if host.min() < 0 else host.max()
            raise IndexOutOfRangeError(f"sparse_softmax_cross_entropy: label {bad} is out of range "
                                       f"for {classes} classes (valid: 0..{classes - 1}).")
    if targets is None:
        if labels._dtype is not int32 and labels._dtype is not int64:  # (the kernel's dtypes)
            labels = astype(labels, int64)
        if len(shape) == 2:
            return _sparse_cross_entropy_fn(reduction)(labels, logits)
        rows = math.prod(shape[:-1])
        out = _sparse_cross_entropy_fn(reduction)(reshape(labels, (rows,)), reshape(logits, (rows, classes)))
        return reshape(out, shape[:-1]) if reduction == "none" else out
    return _cross_entropy(targets, logits, -1, reduction, normalized=True)

