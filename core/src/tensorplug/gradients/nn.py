"""Default gradients of the neural-network kernels, written with their outputs:
Softmax (y * (dy - sum(dy * y))) and LogSoftmax (dy - exp(y) * sum(dy))."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import ops as tp
from ..tensor import Tensor
from ._util import gradient

Grads = Mapping[str, Callable[[], Tensor]]


@gradient("Softmax", outputs=("out",))
def _softmax(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: y * (dy - tp.sum(dy * y, axis=attrs["axis"], keepdims=True))}


@gradient("LogSoftmax", outputs=("out",))
def _log_softmax(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: dy - tp.exp(y) * tp.sum(dy, axis=attrs["axis"], keepdims=True)}
