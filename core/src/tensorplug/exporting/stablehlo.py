"""``tp.export.stablehlo``: a function serialized as StableHLO by the installed backend that
writes it (``Backend.serialized_format``; the jax backend, through ``jax.export``), traced on
that backend (its ops run on its traced arrays, so the whole function is one computation);
Variables it reads are baked in as constants. The core names no backend here: it asks them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.backends.contract import Backend
from tensorplug.backends.lifecycle import backend_scope, get_backend, list_backends, start_backend
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ExportError, MissingDependencyError, TensorplugError
from tensorplug.kernels.dispatcher import wrap
from tensorplug.models.module import Module

__all__ = ["stablehlo"]

FORMAT = "stablehlo"


def stablehlo(fn: Callable[..., Any], *example_args: Any) -> bytes:
    """`fn` (a function of tensors, or a Module in eval mode) traced on arguments of the shapes
    and dtypes of `example_args` and serialized as StableHLO: bytes that
    ``jax.export.deserialize(...).call(*arrays)`` runs (its results are jax arrays)."""
    writer = _writer(FORMAT)
    arrays = [np.asarray(Tensor.__array__(a) if isinstance(a, Tensor) else a) for a in example_args]
    modes = [(m, m.training) for m in fn.modules()] if isinstance(fn, Module) else []
    with backend_scope(writer.name) as backend:

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
            return writer.serialize(pure, arrays)
        finally:
            for m, training in modes:
                m.training = training


def _writer(fmt: str) -> Backend:
    """The active backend if it writes `fmt`, else the first installed one (in priority order)
    that starts and does."""
    for name in dict.fromkeys([get_backend(), *list_backends()]):
        try:
            backend = start_backend(name)
        except TensorplugError:
            continue
        if backend.serialized_format == fmt:
            return backend
    raise MissingDependencyError(f"tp.export.stablehlo: no installed backend writes {fmt} "
                                 "(Backend.serialized_format); install one that does, e.g. the jax "
                                 "backend: pip install tensorplug-backend-jax")
