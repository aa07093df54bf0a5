"""``tensorplug export``: a model the demo saved (``tensorplug demo --save PATH``) written as an
ONNX file (``tp.export.onnx``), its batch axis dynamic. The model (``--model``: mlp or cnn) is
found from the saved variables' paths and shapes unless named."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

import tensorplug as tp
from tensorplug.cli.digits_mlp import MODELS

__all__ = ["add_parser", "run", "export_demo_model", "saved_variables"]

#: what the demo's models take: rows of the 64 pixels of an 8x8 digit
_FEATURES = 64


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export", help="write a model the demo saved as an ONNX file",
        description="Load a model saved by `tensorplug demo --save PATH` and write it as ONNX (a dynamic "
                    "batch axis; input 'input': float32 rows of 64 pixels, output 'output': 10 logits). "
                    "Needs the onnx package: pip install 'tensorplug-core[onnx]'.")
    p.add_argument("saved", metavar="SAVED", help="the file `tensorplug demo --save` wrote (tp.save)")
    p.add_argument("output", metavar="OUT.onnx", help="the ONNX file to write")
    p.add_argument("--model", choices=sorted(MODELS), default=None,
                   help="the demo model saved (default: found from the saved variables)")
    p.add_argument("--opset", type=int, default=None,
                   help="the ONNX opset (default: tp.export.DEFAULT_OPSET)")
    p.set_defaults(handler=run)


def saved_variables(tree: Any, prefix: str = "") -> dict[str, np.ndarray]:
    """The arrays of a loaded module tree by dotted path (``layers.1.kernel``), as
    ``Module.named_variables`` names them."""
    if isinstance(tree, dict):
        items: Any = tree.items()
    elif isinstance(tree, (list, tuple)):
        items = enumerate(tree)
    else:
        return {prefix: np.asarray(tree)} if tree is not None else {}
    found: dict[str, np.ndarray] = {}
    for key, value in items:
        found.update(saved_variables(value, f"{prefix}.{key}" if prefix else str(key)))
    return found


def export_demo_model(saved: str, output: str, model: str | None = None, opset: int | None = None) -> str:
    """Write the demo model saved at `saved` to `output` as ONNX; returns the model's name."""
    tree = tp.load(saved)
    if not isinstance(tree, dict) or "model" not in tree:
        raise tp.ExportError(f"tensorplug export: '{saved}' holds no demo model (no 'model' entry); save one "
                             "with `tensorplug demo --save PATH`.")
    values = saved_variables(tree["model"])
    shapes = {path: a.shape for path, a in values.items()}
    names = [model] if model is not None else sorted(MODELS)
    for name in names:
        candidate = MODELS[name](0)
        if {path: tuple(v.shape) for path, v in candidate.named_variables()} == shapes:
            candidate.assign_variables(values)
            example = np.zeros((1, _FEATURES), np.float32)
            tp.export.onnx(candidate, example, path=output, opset=opset,
                           dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
            return name
    raise tp.ExportError(f"tensorplug export: the variables in '{saved}' ({sorted(shapes)}) are not those "
                         f"of the demo model{'' if model else 's'} {', '.join(names)}; pass --model, or save "
                         "the model with `tensorplug demo --save PATH`.")


def run(args: argparse.Namespace) -> int:
    try:
        name = export_demo_model(args.saved, args.output, args.model, args.opset)
    except (tp.TensorplugError, OSError) as exc:
        print(f"tensorplug export: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}: the demo's {name.upper()} as ONNX (input 'input': float32 [batch, 64]; "
          "output 'output': [batch, 10] logits)")
    return 0
