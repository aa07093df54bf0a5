"""Default gradients of the structure kernels: Reverse, Tile, SplitV, Unpack, Diag,
MatrixBandPart, TopK, Einsum (BroadcastArgs is not differentiable).

Einsum's gradient with respect to each operand is an einsum of dy with the other operands,
giving that operand's letters, generalized from TF.js's two-operand one: letters only that
operand has are broadcast back, letters it has at size 1 (broadcast against the others)
summed, and a letter it repeats (a diagonal, 'ii->i') put back on the diagonal with an
identity matrix.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .. import ops as tp
from ..ops.matrix_functions import diagonal
from ..specs.einsum import parse_einsum
from ..tensor import Tensor
from ._util import gradient, kernel

Grads = Mapping[str, Callable[[], Any]]


@gradient("Reverse")
def _reverse(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: kernel("Reverse", dy, axes=attrs["axes"])}


@gradient("Tile", inputs=("x",))
def _tile(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved

    def dx() -> Tensor:
        reps = attrs["reps"]
        if not reps:
            return dy
        interleaved = tuple(v for r, d in zip(reps, x.shape) for v in (r, d))
        return tp.sum(tp.reshape(dy, interleaved), axis=tuple(range(0, 2 * len(reps), 2)))

    return {"x": dx}


@gradient("SplitV")
def _split_v(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    parts = dy if isinstance(dy, tuple) else (dy,)
    return {"x": lambda: tp.concat(list(parts), axis=attrs["axis"])}


@gradient("Unpack")
def _unpack(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    parts = dy if isinstance(dy, tuple) else (dy,)
    return {"x": lambda: tp.stack(list(parts), axis=attrs["axis"])}


@gradient("Diag", inputs=("x",))
def _diag(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved

    def dx() -> Tensor:
        n = math.prod(x.shape)
        return tp.reshape(diagonal(tp.reshape(dy, (n, n))), x.shape)

    return {"x": dx}


@gradient("MatrixBandPart")
def _band_part(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: kernel("MatrixBandPart", dy, **attrs)}


@gradient("TopK", inputs=("x",), outputs=("indices",))
def _top_k(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, indices = saved
    dvalues = dy[0]

    def dx() -> Tensor:
        n, k = x.shape[-1], indices.shape[-1]
        rows = math.prod(x.shape[:-1])
        offsets = tp.asarray(np.arange(rows, dtype=np.int64).reshape(rows, 1) * n)
        flat = tp.reshape(tp.add(tp.reshape(indices, (rows, k)), offsets), (rows * k,))
        summed = kernel("ScatterAdd", flat, tp.reshape(dvalues, (rows * k,)), shape=(rows * n,), axis=0)
        return tp.reshape(summed, x.shape)

    return {"x": dx}


def _einsum_part(dy: Tensor, operands: tuple[Tensor, ...], equation: str, i: int) -> Tensor:
    """The gradient of Einsum(equation) with respect to operand i, given dy."""
    parsed = parse_einsum(equation, [o.shape for o in operands])
    term, x = parsed.inputs[i], operands[i]
    others = [(t, o) for j, (t, o) in enumerate(zip(parsed.inputs, operands)) if j != i]
    distinct = "".join(dict.fromkeys(term))
    size = {c: d for c, d in zip(term, x.shape)}
    reach = set(parsed.output).union(*(t for t, _ in others))
    keep = "".join(c for c in distinct if c in reach)
    if keep == parsed.output and not others:
        g = dy
    else:
        terms = ",".join([parsed.output, *(t for t, _ in others)])
        g = tp.einsum(f"{terms}->{keep}", dy, *(o for _, o in others))
    squeezed = tuple(a for a, c in enumerate(keep) if size[c] == 1 and g.shape[a] != 1)
    if squeezed:  # letters x has at size 1, broadcast against the others
        g = tp.sum(g, axis=squeezed, keepdims=True)
    if keep != distinct:  # letters only x has: broadcast back
        g = tp.reshape(g, tuple(g.shape[keep.index(c)] if c in keep else 1 for c in distinct))
    g = tp.broadcast_to(g, tuple(size[c] for c in distinct))
    if distinct == term:
        return g
    spare = iter(c for c in string.ascii_letters if c not in equation)
    fresh, eyes, seen = [], [], set()
    for c in term:  # a repeated letter: a fresh one, tied to the first by an identity matrix
        if c in seen:
            f = next(spare)
            fresh.append(f)
            eyes.append(c + f)
        else:
            fresh.append(c)
            seen.add(c)
    identity = [tp.eye(size[e[0]], dtype=x.dtype) for e in eyes]
    return tp.einsum(f"{distinct},{','.join(eyes)}->{''.join(fresh)}", g, *identity)


@gradient("Einsum", inputs=("operands",))
def _einsum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    operands = saved
    return {"operands": lambda: [_einsum_part(dy, operands, attrs["equation"], i)
                                 for i in range(len(operands))]}
