"""References of the discrete Fourier transforms: numpy.fft's n-d transforms (fftn, ifftn,
rfftn, irfftn) on single and double precision inputs, over one axis and several (in any
order), with lengths that pad and trim, in each norm. The kit's finite-difference gradient
check needs outputs of the input's dtype, which these kernels (complex in or out) do not have:
tests/test_gradients_fft.py checks their gradients against jax.vjp and, through tp.fft, against
finite differences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import Case, accepted, sample
from tensorplug.testing.references._base import BadCase, reference

#: (input shape, axes, s, norm)
_LAYOUTS = [((5,), (0,), (5,), "backward"), ((3, 4), (1,), (6,), "ortho"), ((3, 4), (1,), (3,), "forward"),
            ((2, 3, 4), (2, 0), (3, 2), "backward"), ((4, 1), (1, 0), (1, 5), "ortho"),
            ((2, 0, 3), (2,), (4,), "backward"), ((1,), (0,), (3,), "forward")]


def _cases(spec: KernelSpec) -> list[Case]:
    return [Case((sample(shape, d, key=(spec.name, i)),), {"axes": axes, "s": s, "norm": norm})
            for d in accepted(spec, "x") for i, (shape, axes, s, norm) in enumerate(_LAYOUTS)]


def _bad(real: bool) -> Callable[[KernelSpec], list[BadCase]]:
    def cases(spec: KernelSpec) -> list[BadCase]:
        x = sample((2, 4), accepted(spec, "x")[0], key=spec.name)
        wrong = (x + 0j) if real else x.real
        return [BadCase((x,), {"axes": (2,), "s": (4,)}, error=ShapeError, why="an axis out of range"),
                BadCase((x,), {"axes": (1, -1), "s": (4, 4)}, error=ShapeError, why="an axis named twice"),
                BadCase((x,), {"axes": (1,), "s": (4, 2)}, error=ShapeError, why="more lengths than axes"),
                BadCase((wrong,), {"axes": (1,), "s": (4,)}, error=DTypeError,
                        why="a complex input" if real else "a real input")]
    return cases


#: single precision: the transforms sum n terms (numpy and XLA round differently)
_LOOSE = {"float32": 1e-4, "complex64": 1e-4}


def _transform(fn: Callable[..., Any]) -> Callable[..., Any]:
    def compute(x: np.ndarray, axes: tuple[int, ...], s: tuple[int, ...], norm: str) -> Any:
        return fn(x, s=s, axes=axes, norm=norm)
    return compute


reference("Fft", _cases, _bad(False), rtol=_LOOSE, atol=_LOOSE)(_transform(np.fft.fftn))
reference("Ifft", _cases, _bad(False), rtol=_LOOSE, atol=_LOOSE)(_transform(np.fft.ifftn))
reference("Rfft", _cases, _bad(True), rtol=_LOOSE, atol=_LOOSE)(_transform(np.fft.rfftn))
reference("Irfft", _cases, _bad(False), rtol=_LOOSE, atol=_LOOSE)(_transform(np.fft.irfftn))
