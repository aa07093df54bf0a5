"""``tp.export.stablehlo``: a function serialized as StableHLO with ``jax.export``, traced
through the jax backend (its ops run on jax tracers, so the whole function is one jax
computation); Variables it reads are baked in as constants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import backend_scope
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ExportError, MissingDependencyError
from tensorplug.kernels.dispatcher import wrap
from tensorplug.models.module import Module

__all__ = ["stablehlo"]


def stablehlo(fn: Callable[..., Any], *example_args: Any) -> bytes:
    """`fn` (a function of tensors, or a Module in eval mode) traced with jax on arguments of the
    shapes and dtypes of `example_args` and serialized with ``jax.export``: bytes that
    ``jax.export.deserialize(...).call(*arrays)`` runs (its results are jax arrays)."""
    try:
        import jax  # (optional: the jax backend's distribution brings it)
        from jax import export as jax_export
    except ImportError as exc:
        raise MissingDependencyError("tp.export.stablehlo needs jax and the jax backend: pip install "
                                     "tensorplug-backend-jax") from exc
    arrays = [np.asarray(Tensor.__array__(a) if isinstance(a, Tensor) else a) for a in example_args]
    modes = [(m, m.training) for m in fn.modules()] if isinstance(fn, Module) else []
    with backend_scope("jax") as backend:

        def pure(*xs: Any) -> Any:
            out = fn(*[wrap(x, backend) for x in xs])
            items = out if isinstance(out, (tuple, list)) else (out,)
            if not all(isinstance(t, Tensor) for t in items):
                raise ExportError("tp.export.stablehlo: the function must return a tensor or a tuple of "
                                  f"tensors; got {type(out).__name__}.")
            natives = tuple(t._data for t in items)
            return natives if isinstance(out, (tuple, list)) else natives[0]

        for m, _ in modes:
            m.training = False
        try:
            specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays]
            exported = jax_export.export(jax.jit(pure))(*specs)
        finally:
            for m, training in modes:
                m.training = training
    return bytes(exported.serialize())
