"""The conformance kit's onnx tests, collected only with ``--tensorplug-onnx``: each runs
``tensorplug.testing.opcheck``'s "onnx" check for one kernel with an ONNX lowering."""

from __future__ import annotations

from typing import Any


def test_onnx(tensorplug_conformance: Any, tensorplug_onnx: str, request: Any) -> None:
    """The kernel's ONNX lowering, run in onnxruntime on the kit's cases, computes what the
    kernel computes."""
    tensorplug_conformance.check("onnx", tensorplug_onnx, request.node)
