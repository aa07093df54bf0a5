"""TF.js's kernel names that tensorplug spells otherwise: the kernel each one is here
(``TFJS_KERNELS``), or the op that composes it from other kernels (``TFJS_OPS``). The table of
all 180, docs/reference/tfjs-kernels.md, agrees with these (tests/test_tfjs_kernels.py); an
unknown kernel name is answered from them ("No kernel spec named 'Sub'. Did you mean
'Subtract' (TF.js's 'Sub')?")."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["TFJS_KERNELS", "TFJS_OPS", "tfjs_hint"]

#: TF.js kernel name -> the tensorplug kernel it is
TFJS_KERNELS: Mapping[str, str] = MappingProxyType({
    "BatchMatMul": "MatMul", "ClipByValue": "Clip", "ComplexAbs": "Abs",
    "DepthwiseConv2dNative": "Conv2D", "DepthwiseConv2dNativeBackpropFilter": "Conv2DBackpropFilter",
    "DepthwiseConv2dNativeBackpropInput": "Conv2DBackpropInput", "FFT": "Fft",
    "FloorDiv": "FloorDivide", "_FusedMatMul": "FusedMatMul", "GatherV2": "Gather", "IFFT": "Ifft",
    "LowerBound": "SearchSorted", "Neg": "Negative", "Pack": "Stack", "PadV2": "Pad",
    "RealDiv": "Divide", "Select": "Where", "Slice": "StridedSlice", "Sub": "Subtract",
    "UpperBound": "SearchSorted",
})

#: TF.js kernel name -> the tensorplug op that composes it (no kernel of its own)
TFJS_OPS: Mapping[str, str] = MappingProxyType({
    "All": "tp.all", "Any": "tp.any", "Complex": "tp.complex", "ExpandDims": "tp.expand_dims",
    "Identity": "tp.asarray", "Mean": "tp.mean", "OnesLike": "tp.ones_like", "Pool": "tp.nn.max_pool",
    "Reciprocal": "tp.reciprocal", "ZerosLike": "tp.zeros_like",
})

_LOWER = {n.lower(): n for n in (*TFJS_KERNELS, *TFJS_OPS)}


def tfjs_hint(name: str) -> tuple[str | None, str]:
    """For a TF.js kernel name (any case): the tensorplug kernel it is (or None), and a sentence
    saying so, or which op it is ('' for a name TF.js does not spell otherwise)."""
    tfjs = _LOWER.get(str(name).lower())
    if tfjs is None:
        return None, ""
    if tfjs in TFJS_KERNELS:
        return TFJS_KERNELS[tfjs], ""
    return None, (f" TF.js's '{tfjs}' is the op {TFJS_OPS[tfjs]} here, composed of other kernels "
                  "(no kernel of its own).")
