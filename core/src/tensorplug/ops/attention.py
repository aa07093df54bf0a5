"""Attention and embedding ops of ``tp.nn``, compositions of other ops (no kernels of their
own): dot_product_attention with jax.nn.dot_product_attention's layout and semantics, and
embedding, a row lookup (``take`` along axis 0; its gradient scatter-adds into the table)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.dtype_functions import finfo
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_, float32
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, astype
from tensorplug.families.activations.ops import real_float
from tensorplug.families.elementwise.ops import add, logical_and, multiply, where
from tensorplug.families.fused.spec import broadcasts_into
from tensorplug.families.indexing.ops import take
from tensorplug.families.linalg.ops import matmul
from tensorplug.families.manipulation.ops import broadcast_to, expand_dims, permute_dims, reshape, squeeze
from tensorplug.families.nn.ops import softmax

__all__ = ["dot_product_attention", "embedding"]

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def embedding(ids: Any, table: Any, /) -> Tensor:
    """The rows of `table` (vocabulary, features) at the integer `ids` (any shape): the result
    has shape ids.shape + (features,). ``tp.take(table, ids, axis=0)``."""
    table = asarray(table)
    ids = asarray(ids)
    if not ids.dtype.is_integer:
        raise DTypeError(f"embedding: ids must be integers, got {ids.dtype.name}; cast them with "
                         "ids.astype(tp.int64) (they index the table's rows).")
    if table.ndim != 2:
        raise ShapeError(f"embedding: the table must be 2-d (vocabulary, features), got shape {table.shape}; "
                         "for other layouts use tp.take(table, ids, axis=0).")
    return take(table, ids, axis=0)


def _checked(op: str, query: Tensor, key: Tensor, value: Tensor) -> None:
    if not (query.ndim == key.ndim == value.ndim) or query.ndim not in (3, 4):
        raise ShapeError(f"{op}: query, key and value must all be 4-d (batch, length, heads, head_dim) or "
                         f"all 3-d (no batch), got shapes {query.shape}, {key.shape} and {value.shape}.")
    b, _, n, h = query.shape
    _, s, k, _ = key.shape
    if key.shape != value.shape:
        raise ShapeError(f"{op}: key (shape {key.shape}) and value (shape {value.shape}) must have one "
                         "shape.")
    if key.shape[0] != b or key.shape[3] != h:
        raise ShapeError(f"{op}: query (shape {query.shape}) and key (shape {key.shape}) must agree on the "
                         "batch (dim 0) and the head size (dim 3).")
    if k == 0 or n % k:
        raise ShapeError(f"{op}: query's {n} heads do not split into key's {k} heads (shape {key.shape}); "
                         "the "
                         "number of query heads must be a multiple of the key/value heads.")


def dot_product_attention(query: Any, key: Any, value: Any, /, bias: Any = None, mask: Any = None, *,
                          scale: float | None = None, is_causal: bool = False) -> Tensor:
    """softmax(query . key * scale + bias, masked) . value, as jax.nn.dot_product_attention:
    query (B, T, N, H), key and value (B, S, K, H) with N a multiple of K (grouped heads), or
    all without B; bias and the boolean mask (False masks out) broadcast to (B, N, T, S);
    scale defaults to 1 / sqrt(H); is_causal keeps key positions s <= t. Masked logits become
    a large negative number, so a fully masked row averages the values, as jax's does.
    Half floats take the logits and softmax in float32 (as jax); float64 stays float64 (jax
    takes its softmax in float32). Gives (B, T, N, H)."""
    op = "dot_product_attention"
    q, k, v = (real_float(t, op) for t in (query, key, value))
    if len({q.dtype, k.dtype, v.dtype}) > 1:
        raise DTypeError(f"{op}: query, key and value must share one dtype, got {q.dtype.name}, "
                         f"{k.dtype.name} and {v.dtype.name}; cast them with .astype() first.")
    batched = q.ndim == 4
    if not batched:
        q, k, v = (expand_dims(t, 0) if t.ndim == 3 else t for t in (q, k, v))
    _checked(op, q, k, v)
    causal = valid.flag(is_causal, op, "is_causal")
    b, t, n, h = q.shape
    s, heads = k.shape[1], k.shape[2]
    groups = n // heads
    factor = 1 / math.sqrt(h) if scale is None else float(valid.number(scale, op, "scale"))
    dtype = q.dtype
    wide = dtype.itemsize < 4  # the half floats: logits and softmax in float32, as jax
    if wide:
        q, k = astype(q, float32), astype(k, float32)
    # logits (B, K, G, T, S): query (B, K, G, T, H) times key (B, K, 1, H, S)
    qg = permute_dims(reshape(q, (b, t, heads, groups, h)), (0, 2, 3, 1, 4))
    kg = expand_dims(permute_dims(k, (0, 2, 3, 1)), 2)
    logits = reshape(matmul(qg, kg), (b, n, t, s))
    logits = multiply(logits, factor)
    if bias is not None:
        extra = real_float(bias, op)
        _broadcasts(op, "bias", extra.shape, (b, n, t, s))
        logits = add(logits, astype(extra, logits.dtype))
    keep = _mask(op, mask, causal, (b, n, t, s), t, s)
    if keep is not None:  # jax's large negative number: finite in float32
        logits = where(keep, logits, -0.7 * min(float(finfo(logits.dtype).max), _FLOAT32_MAX))
    probs = softmax(logits, axis=-1)
    probs = astype(probs, dtype) if wide else probs
    pg = reshape(probs, (b, heads, groups, t, s))
    vg = expand_dims(permute_dims(v, (0, 2, 1, 3)), 2)  # (B, K, 1, S, H)
    out = permute_dims(reshape(matmul(pg, vg), (b, n, t, h)), (0, 2, 1, 3))
    return out if batched else squeeze(out, 0)


def _broadcasts(op: str, what: str, shape: tuple[int, ...], target: tuple[int, ...]) -> None:
    if not broadcasts_into(shape, target):
        raise ShapeError(f"{op}: the {what} has shape {shape}, which does not broadcast to the logits' shape "
                         f"(batch, heads, query length, key length) = {target}.")


def _mask(op: str, mask: Any, causal: bool, target: tuple[int, ...], t: int, s: int) -> Tensor | None:
    """The boolean keep-mask (True keeps a logit), or None for no masking."""
    keep = None
    if mask is not None:
        keep = asarray(mask)
        if keep.dtype is not bool_:
            raise DTypeError(f"{op}: the mask must be boolean (False masks a logit out), got "
                             f"{keep.dtype.name}; for additive masking pass bias=.")
        _broadcasts(op, "mask", keep.shape, target)
    if causal:
        tri = asarray(np.tril(np.ones((t, s), dtype=bool)))
        keep = tri if keep is None else logical_and(broadcast_to(keep, target), tri)
    return keep
