"""N-d gather/scatter kernels (TF semantics): GatherNd, ScatterNd, TensorScatterUpdate.

Eagerly (concrete indices) each checks its indices first and raises IndexOutOfRangeError naming
the row, as the numpy backend does; negative indices are out of range (TF). Inside ``tp.jit``
(no values to check) GatherNd fills (NaN for floats, as Gather does), and ScatterNd and
TensorScatterUpdate of floats give NaN everywhere when any index is out of range.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tensorplug.kernel_helpers import check_nd_index_bounds
from tensorplug_jax.kernels._jit import is_traced, with_attrs


def _nd(indices: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """One index array per addressed axis, a negative index moved just past the end (jax's
    fill and drop modes then see it out of range; a huge negative one, not wrapped, overflows
    jax's bounds check and would read element 0)."""
    sizes = jnp.asarray(shape[:indices.shape[-1]], dtype=indices.dtype)
    if jnp.issubdtype(indices.dtype, jnp.signedinteger):
        indices = jnp.where(indices < 0, sizes, indices)
    return tuple(jnp.moveaxis(indices, -1, 0))


def _nan_if_out_of_range(out: Any, indices: Any, shape: tuple[int, ...]) -> Any:
    """`out`, or NaN everywhere (floats) when any of the n-d indices is outside `shape`."""
    if not jnp.issubdtype(out.dtype, jnp.inexact):
        return out
    sizes = jnp.asarray(shape[:indices.shape[-1]], dtype=indices.dtype)
    bad = jnp.any(indices >= sizes)
    if jnp.issubdtype(indices.dtype, jnp.signedinteger):
        bad = bad | jnp.any(indices < 0)
    return jnp.where(bad, jnp.nan, out)


def _gather_nd(params: Any, indices: Any) -> Any:
    return params.at[_nd(indices, params.shape)].get(mode="fill", wrap_negative_indices=False)


def _scatter_nd(indices: Any, updates: Any, shape: tuple[int, ...]) -> Any:
    at = _nd(indices, shape)
    if updates.dtype == jnp.bool_:  # numpy's bool addition: logical or
        counts = jnp.zeros(shape, jnp.int32).at[at].add(updates.astype(jnp.int32), mode="drop",
                                                        wrap_negative_indices=False)
        return counts > 0
    out = jnp.zeros(shape, updates.dtype).at[at].add(updates, mode="drop", wrap_negative_indices=False)
    return _nan_if_out_of_range(out, indices, shape)


def _tensor_scatter_update(tensor: Any, indices: Any, updates: Any) -> Any:
    out = tensor.at[_nd(indices, tensor.shape)].set(updates, mode="drop", wrap_negative_indices=False)
    return _nan_if_out_of_range(out, indices, tensor.shape)


_GATHER_ND = with_attrs(_gather_nd)
_SCATTER_ND = with_attrs(_scatter_nd, static=("shape",))
_TENSOR_SCATTER_UPDATE = with_attrs(_tensor_scatter_update)


def _checked(name: str, kernel: Callable[..., Any], shape_of: Callable[..., tuple[int, ...]],
             what: str) -> Callable[..., Any]:
    """`kernel`, checking concrete indices (input 'indices') against `shape_of(inputs, attrs)`."""
    where = 0 if name == "ScatterNd" else 1

    def run(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        indices = inputs[where]
        if not is_traced(indices):
            check_nd_index_bounds(name, backend.name, np.asarray(indices), shape_of(inputs, attrs), what)
        return kernel(inputs, attrs, backend)

    run.__name__ = kernel.__name__
    return run


KERNELS: dict[str, Callable[..., Any]] = {
    "GatherNd": _checked("GatherNd", _GATHER_ND, lambda i, a: i[0].shape, "params"),
    "ScatterNd": _checked("ScatterNd", _SCATTER_ND, lambda i, a: a["shape"], "the output"),
    "TensorScatterUpdate": _checked("TensorScatterUpdate", _TENSOR_SCATTER_UPDATE,
                                    lambda i, a: i[0].shape, "tensor"),
}
