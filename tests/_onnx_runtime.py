"""onnxruntime for the export tests: the module skips where onnx or onnxruntime is absent, and
``run`` gives a model's outputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

__all__ = ["onnx", "ort", "run"]


def run(path_or_model: Any, *arrays: Any) -> list[np.ndarray]:
    """The outputs of an ONNX model (a path or a ModelProto) in onnxruntime, on `arrays`."""
    source = path_or_model if isinstance(path_or_model, str) else path_or_model.SerializeToString()
    session = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: np.asarray(a) for i, a in zip(session.get_inputs(), arrays)})
