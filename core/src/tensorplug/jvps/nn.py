"""JVP rules of Softmax (y (t - sum(t y))) and LogSoftmax (t - sum(exp(y) t)), written with
their outputs y, the sums over the normalized axis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import ops as tp
from ..tensor import Tensor
from ._util import jvp_rule

Tangents = tuple[Tensor | None, ...]


@jvp_rule("Softmax")
def _softmax(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Tensor:
    (t,), (y,) = tangents, outputs
    return y * (t - tp.sum(t * y, axis=attrs["axis"], keepdims=True))


@jvp_rule("LogSoftmax")
def _log_softmax(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                 attrs: Mapping[str, Any]) -> Tensor:
    (t,), (y,) = tangents, outputs
    return t - tp.sum(tp.exp(y) * t, axis=attrs["axis"], keepdims=True)
