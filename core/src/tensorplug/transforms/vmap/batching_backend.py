"""vmap's batching backend: the backend active while a vmapped function runs.

Its native arrays are ``Batched(value, axis)``: `value` is a Tensor of the level beneath (the
backend active when vmap was entered: an ordinary backend, or the batching backend of an
enclosing vmap) holding the whole batch along `axis`, or one value shared by every example
(axis None). Shapes are per example. Its kernels are derived from the level beneath
(``derived_kernel``): a kernel call applies the kernel's batching rule
(``tensorplug.extend.find_batching_rule``) or, without one, loops over the batch. Rules run
their ops on the level beneath, seen by the recorders active when vmap was entered (tapes,
forward mode, tp.jit's planner), which is how grad, jvp and jit compose with vmap.

A batching backend serves one vmap call at a time (``open`` / ``close``; vmap reuses it for
later calls) and marks its arrays with that call (``Batched.call``): an array of a call that
has returned, a value that escaped the vmapped function, is refused wherever it is used
(kernels, reads, vmap's results) with a TracedValueError.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import Backend
from tensorplug.core.context import backend_var, recorders_var
from tensorplug.core.runtime import current
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType
from tensorplug.errors import KernelError, ShapeError, TracedValueError, VmapFallbackWarning
from tensorplug.families._common.batching_util import select
from tensorplug.families.creation.ops import zeros
from tensorplug.families.manipulation.ops import stack
from tensorplug.kernels.dispatcher import dispatcher_of, to_backend, wrap
from tensorplug.kernels.kernel_spec import TensorInfo
from tensorplug.registry.batching import find_batching_rule
from tensorplug.registry.kernel_config import KernelConfig
from tensorplug.registry.specs import get_kernel_spec

__all__ = ["Batched", "BatchingBackend"]


class Batched:
    """A native array of the batching backend: `value` (a Tensor of the level beneath) holds
    the batch along `axis`, or one value for every example (axis None); `call` is the token of
    the vmap call that made it (``BatchingBackend.call``)."""

    __slots__ = ("value", "axis", "call")

    def __init__(self, value: Tensor, axis: int | None, call: object) -> None:
        self.value = value
        self.axis = axis
        self.call = call

    def __repr__(self) -> str:
        return f"Batched({self.value!r}, axis={self.axis})"


def _kernel_func(kernel_name: str) -> Any:
    def run(arrays: tuple[Batched, ...], attrs: dict[str, Any], backend: BatchingBackend) -> Any:
        return backend.run(kernel_name, arrays, attrs)
    return run


_configs: dict[str, KernelConfig] = {}  # the derived kernels, by kernel name


class BatchingBackend(Backend):
    """The backend of one vmap level over `inner` with batch size `size`; `recorders` are those
    active when vmap was entered (they see the ops batching rules run)."""

    name = "vmap"
    direct_kernels = False
    transform = True

    def __init__(self, inner: Backend, size: int) -> None:
        self.inner = inner
        self.size = size
        self.recorders: tuple[Any, ...] = ()
        #: the token of the vmap call this level serves (a new object per call); None when closed
        self.call: object | None = None
        self.max_elements = inner.max_elements
        self.max_ndim = inner.max_ndim - 1  # (the batch axis takes one)
        self.dtypes = inner.dtypes

    def __repr__(self) -> str:
        return f"<BatchingBackend over {self.inner!r}, batch size {self.size}>"

    # -- one vmap call -----------------------------------------------------------------------
    def open(self, recorders: tuple[Any, ...]) -> None:
        """Serve a new vmap call, whose caller's recorders are `recorders`."""
        self.call = object()
        self.recorders = recorders

    def close(self) -> None:
        """End the call: its arrays are refused from now on (``live``)."""
        self.call = None
        self.recorders = ()

    def live(self, native: Batched) -> Batched:
        """`native` if the vmap call now served made it; else TracedValueError (it escaped a
        vmapped function that has returned)."""
        if native.call is not self.call or native.call is None:
            raise self._escaped(native)
        return native

    def _escaped(self, native: Batched) -> TracedValueError:
        return TracedValueError(
            f"vmap: a value computed inside vmap escaped: this tensor (per example shape "
            f"{self.shape_of(native)}, dtype {native.value.dtype.name}) was made inside a tp.vmap'd "
            "function that has returned, and was kept (in a list, a global, a closure) rather than "
            "returned. Return it from the vmapped function (it leaves with its batch axis, see "
            "out_axes) and use that result instead.")

    # -- arrays ----------------------------------------------------------------------------
    def from_numpy(self, array: np.ndarray) -> Batched:
        """Data made inside the function (creation ops) is the same for every example."""
        return Batched(wrap(self.inner.from_numpy(array), self.inner), None, self.call)

    def from_dlpack(self, obj: Any, *, copy: bool | None = None) -> Batched:
        """The level beneath's import (shared where it shares), the same for every example."""
        return Batched(wrap(self.inner.from_dlpack(obj, copy=copy), self.inner), None, self.call)

    def to_numpy(self, native: Batched) -> np.ndarray:
        self.live(native)
        if native.axis is not None:
            raise TracedValueError(
                f"vmap: cannot read values inside vmap: this tensor (per example shape "
                f"{self.shape_of(native)}, dtype {native.value.dtype.name}) differs between the "
                f"{self.size} examples of the batch. Use ops instead of Python control flow on its "
                "values (e.g. tp.where), or return it from the vmapped function and read it outside.")
        value = native.value
        return value._backend.to_numpy(value._data)

    def from_tensor(self, tensor: Tensor) -> Batched:
        """A tensor of a level beneath (e.g. a weight closed over by the function) as it is:
        the same for every example, no copy."""
        inner = self.inner
        if tensor._backend is inner:
            return Batched(tensor, None, self.call)
        return Batched(wrap(to_backend(tensor, inner), inner, tensor._dtype), None, self.call)

    def dtype_of(self, native: Batched) -> DType:
        return native.value._dtype

    def shape_of(self, native: Batched) -> tuple[int, ...]:
        shape = native.value.shape
        axis = native.axis
        return shape if axis is None else shape[:axis] + shape[axis + 1:]

    def device_of(self, native: Batched) -> str:
        return native.value.device

    def devices(self) -> list[str]:
        return self.inner.devices()

    # -- kernels ---------------------------------------------------------------------------
    def derived_kernel(self, kernel_name: str) -> KernelConfig:
        found = _configs.get(kernel_name)
        if found is None:
            found = _configs[kernel_name] = KernelConfig(kernel_name, self.name, _kernel_func(kernel_name))
        return found

    def run(self, name: str, arrays: tuple[Batched, ...], attrs: Mapping[str, Any]) -> Any:
        """Kernel `name` on the batch: its batching rule (or a loop) on the level beneath."""
        call = self.call
        for a in arrays:
            if a.call is not call:
                raise self._escaped(a)
        values = tuple([a.value for a in arrays])
        axes = tuple([a.axis for a in arrays])
        backend_token = backend_var.set(self.inner)
        recorders_token = recorders_var.set(self.recorders)
        try:
            if axes.count(None) == len(axes):  # nothing batched: the kernel itself, once
                return _as_batched(dispatcher_of(name)(values, attrs), None, call)
            if not self.size:  # (rules may divide by the batch size)
                return self._checked(name, _empty(name, values, axes, attrs), 0, call)
            rule = find_batching_rule(name)
            found = NotImplemented if rule is None else rule.batch_func(values, axes, attrs)
            if found is NotImplemented:  # no rule, or one that declines these batch axes
                outputs, out_axes = self.loop(name, values, axes, attrs, declined=rule is not None), 0
            else:
                outputs, out_axes = found
        finally:
            recorders_var.reset(recorders_token)
            backend_var.reset(backend_token)
        return self._checked(name, outputs, out_axes, call)

    def loop(self, name: str, values: tuple[Tensor, ...], axes: tuple[int | None, ...],
             attrs: Mapping[str, Any], declined: bool = False) -> Any:
        """The loop fallback: the kernel per example on the level beneath, stacked (axis 0);
        `declined`: the kernel's rule declined these inputs (rather than there being none)."""
        warned = current().warned_loops
        if name not in warned:
            warned.add(name)
            why = ("its batching rule declines these inputs' batch axes" if declined
                   else "it has no batching rule")
            warnings.warn(
                f"tp.vmap: kernel '{name}': {why}, so vmap runs it once per example (a loop over "
                "the batch). Register a rule (tensorplug.extend.BatchConfig, register_batching_rule; "
                "override=True to replace one) to batch it in one call.", VmapFallbackWarning,
                stacklevel=2)
        spec = get_kernel_spec(name)
        dispatcher = dispatcher_of(name)
        results = []
        for i in range(self.size):
            results.append(dispatcher([v if a is None else select(v, a, i) for v, a in zip(values, axes)],
                                      attrs))
        single = len(spec.outputs) == 1
        per_output = [results] if single else [list(parts) for parts in zip(*results)]
        for parts in per_output:
            shapes = {t.shape for t in parts}
            if len(shapes) > 1:
                raise ShapeError(f"vmap: kernel '{name}' gives outputs of different shapes for different "
                                 f"examples ({sorted(shapes)}): its output shape depends on the values, so "
                                 "it cannot be batched. Call it outside vmap.")
        stacked = [stack(parts) for parts in per_output]
        return stacked[0] if single else tuple(stacked)

    def _checked(self, name: str, outputs: Any, out_axes: Any, call: object) -> Any:
        """The rule's outputs as Batched arrays of `call` (one, or a tuple), checked."""
        if isinstance(outputs, Tensor):
            return _as_batched(outputs, self._axis(name, outputs, out_axes), call)
        if not isinstance(outputs, (tuple, list)):
            raise KernelError(f"the batching rule of '{name}' returned {type(outputs).__name__}; "
                              "it returns (outputs, out_batch_axes) with Tensors for outputs.")
        if not isinstance(out_axes, (tuple, list)):
            out_axes = (out_axes,) * len(outputs)
        if len(out_axes) != len(outputs):
            raise KernelError(f"the batching rule of '{name}' returned {len(outputs)} outputs and "
                              f"{len(out_axes)} batch axes; give one axis (or None) per output.")
        return tuple([_as_batched(o, self._axis(name, o, a), call) for o, a in zip(outputs, out_axes)])

    def _axis(self, name: str, out: Any, axis: Any) -> int | None:
        if not isinstance(out, Tensor):
            raise KernelError(f"the batching rule of '{name}' returned a {type(out).__name__} for an "
                              "output; return Tensors.")
        if axis is None:
            return None
        shape = out._backend.shape_of(out._data)
        if not isinstance(axis, int) or not -len(shape) <= axis < len(shape) or shape[axis] != self.size:
            raise KernelError(f"the batching rule of '{name}' returned an output of shape {shape} with "
                              f"batch axis {axis!r}; that axis must exist and have the batch size "
                              f"{self.size}.")
        return axis % len(shape)


def _empty(name: str, values: tuple[Tensor, ...], axes: tuple[int | None, ...],
           attrs: Mapping[str, Any]) -> Any:
    """The outputs of kernel `name` for an empty batch: empty, of the spec's shapes and dtypes.
    A kernel whose output length depends on the values (its spec gives -1: Unique, NonZero)
    has no such shape: ShapeError."""
    spec = get_kernel_spec(name)
    infos = [TensorInfo(v.shape if a is None else v.shape[:a] + v.shape[a + 1:], v._dtype)
             for v, a in zip(values, axes)]
    found = spec.check(infos, attrs)
    for o in found:
        if any(n < 0 for n in o.shape):
            raise ShapeError(f"vmap: kernel '{name}' over an empty batch (size 0): its output shape "
                             f"depends on the values (per example {o.shape}, -1: unknown), so the "
                             "batch's outputs have no shape. Call it outside vmap, or skip the call "
                             "when the batch is empty.")
    outs = [zeros((0,) + o.shape, dtype=o.dtype) for o in found]
    return outs[0] if len(spec.outputs) == 1 else tuple(outs)


def _as_batched(out: Any, axis: int | None, call: object) -> Any:
    if isinstance(out, Tensor):
        return Batched(out, axis, call)
    return tuple([Batched(o, axis, call) for o in out])
