"""``Module.summary``: each module's path, type, output shape and parameter count, from one run
on zeros in eval mode, as Keras's ``model.summary()``; and ``run_on_zeros``, which
``Module.build`` uses too."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError
from tensorplug.families.creation.ops import zeros
from tensorplug.models.calls import CallRecorder, first_input
from tensorplug.tools.text_tables import table
from tensorplug.tree_util import tree_leaves

__all__ = ["summary_table", "run_on_zeros"]


def run_on_zeros(module: Any, input_shape: Any, dtype: Any) -> Any:
    """`module`'s output on zeros of `input_shape` (None dimensions as 1; `dtype` default
    float32), run in eval mode (so no statistic moves); every module's mode is restored after."""
    if not isinstance(input_shape, (tuple, list)) or not all(
            d is None or (isinstance(d, (int, np.integer)) and d >= 0) for d in input_shape):
        raise ArgumentError(f"{type(module).__name__}.build: input_shape must be a tuple of sizes (None for "
                            f"any, e.g. the batch: (None, 64)), got {input_shape!r}.")
    modes = [(m, m.training) for m in module.modules()]
    module.eval()
    try:
        return module(zeros(tuple(1 if d is None else int(d) for d in input_shape),
                            dtype=dtype if dtype is not None else "float32"))
    finally:
        for m, mode in modes:
            m.training = mode


def summary_table(model: Any, input_shape: tuple[int | None, ...] | None, dtype: Any) -> str:
    """The summary of `model` as text (see ``Module.summary``)."""
    if input_shape is None:
        seen = first_input(model)
        if seen is None:
            raise ArgumentError(f"{type(model).__name__}.summary: the model has not been called yet, so its "
                                "input shape is unknown; pass it: model.summary(input_shape=(None, 64)).")
        input_shape, seen_dtype = (None, *seen[0][1:]), seen[1]
        dtype = seen_dtype if dtype is None else dtype
    with CallRecorder() as recorder:
        run_on_zeros(model, input_shape, dtype)
    batch_free = bool(input_shape) and input_shape[0] is None
    rows = []
    for path, module in model.named_modules():
        out = recorder.outputs.get(id(module))
        shown = "?" if out is None else _shapes(out, batch_free)
        params = sum(int(np.prod(v.shape)) for v in module.variables())
        name = path or "(model)"
        depth = path.count(".") - sum(p.isdigit() for p in path.split(".")) + (1 if path else 0)
        rows.append(("  " * depth + name, type(module).__name__, shown, f"{params:,}"))
    total = model.count_params()
    trainable = sum(int(np.prod(v.shape)) for v in model.trainable_variables())
    lines = [f'Model: {type(model).__name__}',
             table(("Layer (path)", "Type", "Output shape", "Param #"), rows, indent=0),
             f"Total params: {total:,}", f"Trainable params: {trainable:,}",
             f"Non-trainable params: {total - trainable:,}"]
    return "\n".join(lines)


def _shapes(out: Any, batch_free: bool) -> str:
    shapes = [tuple(x.shape) for x in tree_leaves(out) if isinstance(x, (Tensor, np.ndarray))]
    shown = [str((None, *s[1:]) if batch_free and s else s) for s in shapes]
    return shown[0] if len(shown) == 1 else "[" + ", ".join(shown) + "]"
