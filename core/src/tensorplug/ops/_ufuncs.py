"""numpy ufuncs given tensors (``Tensor.__array_ufunc__``): the ones tensorplug has as ops run
as those ops (``np.exp(t)``, ``np_array + t``: a Tensor on the active backend, recorded for
gradients, promoted by tensorplug's rules); any other ufunc, method (``np.add.reduce``) or
option (``dtype=``, ``where=``) runs in numpy on the tensors' values and gives numpy's result.
Tensors are immutable: one as an output (``out=``, ``np.add.at``) is a TypeError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.families.elementwise import bitwise
from tensorplug.families.elementwise import ops as ew
from tensorplug.families.linalg.ops import matmul

__all__ = ["array_ufunc"]

_AS_OPS: dict[Any, Callable[..., Tensor]] = {
    np.add: ew.add, np.subtract: ew.subtract, np.multiply: ew.multiply, np.true_divide: ew.divide,
    np.floor_divide: ew.floor_divide, np.power: ew.pow, np.maximum: ew.maximum,
    np.minimum: ew.minimum, np.matmul: matmul,
    np.equal: ew.equal, np.not_equal: ew.not_equal, np.less: ew.less, np.less_equal: ew.less_equal,
    np.greater: ew.greater, np.greater_equal: ew.greater_equal,
    np.logical_and: ew.logical_and, np.logical_or: ew.logical_or, np.logical_not: ew.logical_not,
    np.negative: ew.negative, np.positive: ew.positive, np.absolute: ew.abs, np.sign: ew.sign,
    np.square: ew.square, np.floor: ew.floor, np.ceil: ew.ceil, np.exp: ew.exp, np.log: ew.log,
    np.log1p: ew.log1p, np.expm1: ew.expm1, np.sqrt: ew.sqrt, np.sin: ew.sin, np.cos: ew.cos,
    np.tan: ew.tan, np.tanh: ew.tanh, np.log2: ew.log2, np.log10: ew.log10,
    np.logaddexp: ew.logaddexp, np.reciprocal: ew.reciprocal, np.trunc: ew.trunc,
    np.arccos: ew.acos, np.arccosh: ew.acosh, np.arcsin: ew.asin, np.arcsinh: ew.asinh,
    np.arctan: ew.atan, np.arctanh: ew.atanh, np.cosh: ew.cosh, np.sinh: ew.sinh,
    np.isnan: ew.isnan, np.isinf: ew.isinf, np.isfinite: ew.isfinite, np.signbit: ew.signbit,
    np.remainder: ew.remainder, np.arctan2: ew.atan2, np.copysign: ew.copysign, np.hypot: ew.hypot,
    np.nextafter: ew.nextafter, np.logical_xor: ew.logical_xor,
    np.bitwise_and: bitwise.bitwise_and, np.bitwise_or: bitwise.bitwise_or,
    np.bitwise_xor: bitwise.bitwise_xor, np.invert: bitwise.bitwise_invert,
    np.left_shift: bitwise.bitwise_left_shift, np.right_shift: bitwise.bitwise_right_shift,
}


def array_ufunc(ufunc: Any, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    op = _AS_OPS.get(ufunc) if method == "__call__" and not kwargs else None
    if op is not None:
        return op(*inputs)
    outs = kwargs.get("out", ())
    if method == "at" and isinstance(inputs[0], Tensor) or any(isinstance(o, Tensor) for o in outs):
        raise TypeError(
            f"np.{ufunc.__name__}{'' if method == '__call__' else '.' + method} cannot write into a "
            "tensorplug Tensor: tensors are immutable. Use the result instead (y = np.add(x, t)), "
            "or write into a numpy array (out=np.asarray(t).copy())."
        )
    values = [np.asarray(x) if isinstance(x, Tensor) else x for x in inputs]
    return getattr(ufunc, method)(*values, **kwargs)
