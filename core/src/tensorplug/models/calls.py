"""Which modules are being called (an error inside names its module by its path in the
outermost one), the first input each outermost module met (``summary``'s default shape), and
a recorder of each module's output (``summary``'s source)."""

from __future__ import annotations

import contextvars
import weakref
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor

__all__ = ["calls", "CallRecorder", "record_output", "remember_input", "first_input", "shape_and_dtype"]

#: the modules being called, outermost first
calls: contextvars.ContextVar[tuple[Any, ...]] = contextvars.ContextVar("tensorplug_module_calls", default=())
_recorder: contextvars.ContextVar[CallRecorder | None] = contextvars.ContextVar("tensorplug_module_recorder",
                                                                                default=None)
# kept aside, not as an attribute: a module's attributes are its pytree structure, which must
# not change when it is called
Shape = tuple[int | None, ...]
_first_inputs: weakref.WeakKeyDictionary[Any, tuple[Shape, Any]] = weakref.WeakKeyDictionary()


class CallRecorder:
    """The output of each module called while it listens, by module id (``with CallRecorder() as r``)."""

    def __init__(self) -> None:
        self.outputs: dict[int, Any] = {}
        self._token: contextvars.Token[CallRecorder | None] | None = None

    def __enter__(self) -> CallRecorder:
        self._token = _recorder.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None
        _recorder.reset(self._token)


def record_output(module: Any, out: Any) -> None:
    """Tell the listening recorder, if any, what `module` returned."""
    recorder = _recorder.get()
    if recorder is not None:
        recorder.outputs[id(module)] = out


def remember_input(module: Any, x: Any) -> None:
    """Keep the shape and dtype of the first input `module` was called with."""
    if module not in _first_inputs:
        _first_inputs[module] = shape_and_dtype(x)


def first_input(module: Any) -> tuple[Shape, Any] | None:
    """The shape and dtype of the first input `module` was called with (outermost), if any."""
    return _first_inputs.get(module)


def shape_and_dtype(x: Any) -> tuple[Shape, Any]:
    """A tensor's or array's shape and dtype."""
    if isinstance(x, Tensor):
        return tuple(x.shape), x.dtype
    arr = np.asarray(x)
    return tuple(arr.shape), arr.dtype
