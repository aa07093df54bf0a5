"""``tp.nn.MultiHeadAttention``: Keras's MultiHeadAttention layer, per-head projections of the
query, key and value around ``tp.nn.dot_product_attention``, and an output projection."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.context import jit_trace_var
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.dtypes import bool_
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, to_float
from tensorplug.families.elementwise.ops import add, logical_and, multiply, where
from tensorplug.families.linalg.ops import matmul
from tensorplug.families.manipulation.ops import broadcast_to, expand_dims, permute_dims, reshape
from tensorplug.families.nn.ops import softmax
from tensorplug.models.initializers import glorot_uniform, zeros
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers import inputs
from tensorplug.models.layers.dropout import Dropout
from tensorplug.models.module import Module
from tensorplug.ops.attention import dot_product_attention

__all__ = ["MultiHeadAttention"]

_MASKED = -1e9  # a masked logit (Keras's large negative number): its softmax weight is 0


class MultiHeadAttention(Module):
    """Multi-head attention as ``keras.layers.MultiHeadAttention``, called as
    ``mha(query, value, key=None, attention_mask=None, use_causal_mask=False)`` with query
    (batch, T, query features) and value and key (batch, S, features) (key defaults to value,
    value to query: ``mha(x)`` is self-attention, so the layer fits in a Sequential):
    each of `num_heads` heads projects the query and key to `key_dim` and the value to
    `value_dim` (default `key_dim`), attends (softmax of the scaled dot products, dropout at
    rate `dropout` in training), and the heads' results are projected to `output_shape`
    features (default: the query's). Gives (batch, T, output features).

    `attention_mask` (batch, T, S), boolean, True where a query position may attend to a key
    position (Keras's convention; PyTorch's attn_mask is the opposite); `use_causal_mask`
    also keeps only key positions <= the query position; `return_attention_scores=True` gives
    (output, attention weights (batch, heads, T, S)). Kernels start glorot-uniform, biases
    zero; they are sized by the first call's inputs, or at construction from `in_features`
    (the query's features, and the key's and value's)."""

    query_kernel: Variable  # (query features, heads, key_dim); the key's and value's alike
    key_kernel: Variable
    value_kernel: Variable
    output_kernel: Variable  # (heads, value_dim, output features)

    def __init__(self, num_heads: int, key_dim: int, value_dim: int | None = None, dropout: float = 0.0,
                 use_bias: bool = True, output_shape: int | None = None, *, in_features: int | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        name = "MultiHeadAttention"
        self.num_heads = args.positive_int(num_heads, name, "num_heads")
        self.key_dim = args.positive_int(key_dim, name, "key_dim")
        self.value_dim = (self.key_dim if value_dim is None else
                          args.positive_int(value_dim, name, "value_dim"))
        self.dropout = args.rate(dropout, name, "dropout")
        self.use_bias = valid.flag(use_bias, name, "use_bias")
        if isinstance(output_shape, tuple) and len(output_shape) == 1:
            output_shape = output_shape[0]
        self.output_shape = (None if output_shape is None
                             else args.positive_int(output_shape, name, "output_shape"))
        source = args.seed_or_key(seed, key, name)
        self.seed = None if isinstance(source, Tensor) else source
        initial = inputs.Initial(source)  # (the i-th kernel's seed + i or fold_in(key, i); dropout's 4th)
        drop = initial.derived(4)
        self.attention_dropout = (Dropout(self.dropout, key=drop) if isinstance(drop, Tensor)
                                  else Dropout(self.dropout, seed=drop))
        self._initial = initial
        self.built = False
        if in_features is not None:
            size = args.positive_int(in_features, name, "in_features")
            self._make(size, size, size, None)

    # -- sizes -----------------------------------------------------------------------------
    def __call__(self, query: Any, value: Any = None, key: Any = None, attention_mask: Any = None,
                 use_causal_mask: bool = False, training: bool | None = None,
                 return_attention_scores: bool = False) -> Any:
        """Build from the query's, value's and key's features at the first call (Module.__call__
        builds from the first input alone), then attend."""
        if not self.built and jit_trace_var.get() is None:
            value = query if value is None else value
            q, v, k = (_shape(t) for t in (query, value, value if key is None else key))
            if q is not None and v is not None and k is not None and len(q) == len(v) == len(k) == 3:
                self._make(q[-1], k[-1], v[-1], _dtype(query))
        return super().__call__(query, value, key, attention_mask, use_causal_mask, training,
                                return_attention_scores)

    def build(self, input_shape: tuple[int | None, ...], dtype: Any = None) -> None:
        """Make the variables for queries of `input_shape` (batch, T, features), and keys and
        values of as many features (self-attention)."""
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ShapeError(f"expected a query of shape (batch, length, features), got shape {input_shape}.")
        self._make(input_shape[-1], input_shape[-1], input_shape[-1], dtype)

    def _make(self, query_features: int, key_features: int, value_features: int, dtype: Any) -> None:
        dt = inputs.variable_dtype(dtype)
        heads, out = self.num_heads, self.output_shape or query_features
        initial = inputs.Initial.of(self)
        projection = glorot_uniform(in_axis=0, out_axis=(1, 2))
        sizes = {"query": (query_features, self.key_dim), "key": (key_features, self.key_dim),
                 "value": (value_features, self.value_dim)}
        for i, (name, (features, dim)) in enumerate(sizes.items()):
            kernel = inputs.drawn(projection, (features, heads, dim), dt, initial.derived(i))
            setattr(self, f"{name}_kernel", Variable(kernel))
            if self.use_bias:
                setattr(self, f"{name}_bias", Variable(zeros((heads, dim), dt)))
        self.output_kernel = Variable(inputs.drawn(glorot_uniform(in_axis=(0, 1), out_axis=2),
                                                   (heads, self.value_dim, out), dt, initial.derived(3)))
        if self.use_bias:
            self.output_bias = Variable(zeros((out,), dt))
        del self._initial
        self.built = True

    # -- the computation -------------------------------------------------------------------
    def forward(self, query: Any, value: Any = None, key: Any = None, attention_mask: Any = None,
                use_causal_mask: bool = False, training: bool | None = None,
                return_attention_scores: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        """Attend from `query` to `key`/`value` (see the class); `training` overrides the mode
        (it only matters with dropout). With `return_attention_scores`, gives (output, scores):
        the attention weights (batch, heads, T, S), before dropout, as Keras's."""
        q = to_float(query)
        v = q if value is None else to_float(value)
        k = v if key is None else to_float(key)
        self._check(q, k, v)
        causal = inputs.call_flag(use_causal_mask, "use_causal_mask")
        keep = _keep_mask(attention_mask, causal, q.shape[0], q.shape[1], k.shape[1])
        qh, kh, vh = (self._project(t, name) for t, name in ((q, "query"), (k, "key"), (v, "value")))
        dropping = self.dropout > 0 and inputs.training_mode(training, self.training)
        scores = inputs.call_flag(return_attention_scores, "return_attention_scores")
        if dropping or scores or self.value_dim != self.key_dim:
            heads, weights = self._attend(qh, kh, vh, keep, training)
        else:
            heads = dot_product_attention(qh, kh, vh, mask=None if keep is None else expand_dims(keep, 1))
        b, t = q.shape[0], q.shape[1]
        flat = reshape(heads, (b, t, self.num_heads * self.value_dim))
        kernel = self.output_kernel
        out = matmul(flat, reshape(kernel, (self.num_heads * self.value_dim, kernel.shape[-1])))
        out = add(out, self.output_bias) if self.use_bias else out
        return (out, weights) if scores else out

    def _check(self, q: Tensor, k: Tensor, v: Tensor) -> None:
        shapes = f"query {q.shape}, key {k.shape} and value {v.shape}"
        if not q.ndim == k.ndim == v.ndim == 3:
            raise ShapeError(f"expected query, key and value of shape (batch, length, features), got "
                             f"{shapes}.")
        if not q.shape[0] == k.shape[0] == v.shape[0] or k.shape[1] != v.shape[1]:
            raise ShapeError(f"query, key and value must have one batch size, and key and value one length; "
                             f"got {shapes}.")
        wanted = (self.query_kernel.shape[0], self.key_kernel.shape[0], self.value_kernel.shape[0])
        if (q.shape[-1], k.shape[-1], v.shape[-1]) != wanted:
            raise ShapeError(f"expected {wanted[0]}, {wanted[1]} and {wanted[2]} features in the query, key "
                             f"and value (the layer was built for those), got {shapes}; make a new layer for "
                             "inputs of other sizes.")

    def _project(self, x: Tensor, name: str) -> Tensor:
        """x (batch, length, features) projected per head: (batch, length, heads, dim)."""
        kernel: Tensor = getattr(self, f"{name}_kernel")
        features, heads, dim = kernel.shape
        y = matmul(x, reshape(kernel, (features, heads * dim)))
        if self.use_bias:
            y = add(y, reshape(getattr(self, f"{name}_bias"), (heads * dim,)))
        return reshape(y, (*x.shape[:2], heads, dim))

    def _attend(self, q: Tensor, k: Tensor, v: Tensor, keep: Tensor | None,
                training: bool | None) -> tuple[Tensor, Tensor]:
        """Attention written out (for a value_dim other than key_dim, dropout on the attention
        weights, or the weights returned): q, k (B, T|S, N, H), v (B, S, N, Hv) -> the heads'
        results (B, T, N, Hv) and the weights (B, N, T, S) before dropout."""
        logits = multiply(matmul(permute_dims(q, (0, 2, 1, 3)), permute_dims(k, (0, 2, 3, 1))),
                          1 / math.sqrt(self.key_dim))
        if keep is not None:
            logits = where(expand_dims(keep, 1), logits, _MASKED)
        weights = softmax(logits, axis=-1)
        dropped = self.attention_dropout(weights, training=training)
        return permute_dims(matmul(dropped, permute_dims(v, (0, 2, 1, 3))), (0, 2, 1, 3)), weights


def _keep_mask(mask: Any, causal: bool, batch: int, t: int, s: int) -> Tensor | None:
    """The boolean (batch, T, S) mask of the logits kept, or None to keep them all."""
    keep = None
    if mask is not None:
        keep = asarray(mask)
        if keep.dtype is not bool_:
            raise DTypeError("attention_mask must be boolean (True where a query position may attend to a "
                             f"key position), got {keep.dtype.name}; e.g. mask.astype(tp.bool).")
        try:
            keep = broadcast_to(keep, (batch, t, s))
        except ShapeError:
            raise ShapeError(f"attention_mask has shape {keep.shape}, which does not broadcast to (batch, "
                             f"query length, key length) = {(batch, t, s)}.") from None
    if causal:
        tri = asarray(np.tril(np.ones((t, s), dtype=bool)))
        keep = broadcast_to(tri, (batch, t, s)) if keep is None else logical_and(keep, tri)
    return keep


def _shape(x: Any) -> tuple[int, ...] | None:
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None else None


def _dtype(x: Any) -> Any:
    return getattr(x, "dtype", None)
