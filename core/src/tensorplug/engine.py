"""The engine: dispatches a kernel on the active backend, wraps its outputs as Tensors,
records tape entries, and explains kernel failures from the kernel spec.

Hot path (``make_caller``): a thread-state read, one dict lookup keyed by
``(kernel name, backend name)``, the kernel call, and the output Tensor built directly. No
plugin call, no spec check while the kernel succeeds.

Direct calls: a kernel function may carry ``direct``, a mapping from the values of its
attributes (a tuple, in the spec's attribute order; ``()`` for a kernel without attributes)
to a function of the native inputs alone, ``direct_attrs``, the names of those attributes
(they must be the spec's, in its order, or ``direct`` is ignored), and ``direct_dtypes``, the
tensorplug dtypes of inputs it is valid for; the dtype of its output must depend on the input
dtypes only (the engine remembers it). For a single-output kernel of one or two inputs, the
engine then calls that function with the native inputs, sparing the kernel function's Python
layer, while the backend's ``direct_kernels`` is true; if it raises, the kernel function runs
instead (and explains the failure). ``direct_checked = True`` declares that the direct
functions raise for any input of those dtypes the spec refuses (shapes, ranks): ops may then
call them without checking shapes first (``_fastpath``, which learns them from the engine's
callers through ``call.direct_state()``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ._state import backend_var, recorders_var
from .backend import Backend, active_backend
from .dtypes import DType
from .errors import DTypeError, KernelError, ShapeError, TensorplugError
from .kernel_spec import KernelSpec, TensorInfo, describe
from .registry.kernels import KERNELS, missing_kernel_error
from .registry.specs import get_kernel_spec
from .tensor import Tensor

__all__ = ["make_caller", "run_kernel", "wrap", "to_backend", "tensor_info", "explain_failure"]

_new = object.__new__


def wrap(native: Any, backend: Backend, dtype: DType | None = None) -> Tensor:
    """A Tensor around a native array of `backend`."""
    t = _new(Tensor)
    t._data = native
    t._dtype = backend.dtype_of(native) if dtype is None else dtype
    t._backend = backend
    return t


def to_backend(t: Tensor, backend: Backend) -> Any:
    """The native array of `t` on `backend` (moved through numpy if it lives elsewhere)."""
    if t._backend is backend:
        return t._data
    return backend.from_numpy(np.asarray(t._backend.to_numpy(t._data)))


def tensor_info(t: Tensor) -> TensorInfo:
    return TensorInfo(tuple(t.shape), t._dtype)


def explain_failure(name: str, backend: Backend, inputs: Sequence[Tensor], attrs: Mapping[str, Any],
                    exc: BaseException) -> TensorplugError:
    """A tensorplug error for a kernel that raised: the spec's reason if the inputs break the
    contract (ShapeError/DTypeError), else a KernelError blaming the kernel's registrant."""
    spec = get_kernel_spec(name)
    infos = [tensor_info(t) for t in inputs]
    shown = ", ".join(
        f"{n}: {describe(i)}" for n, i in zip(_input_names(spec, len(infos)), infos)
    ) or "no inputs"
    attr_text = f", attrs {dict(attrs)}" if attrs else ""
    where = f"Kernel '{name}' on backend '{backend.name}' (inputs {shown}{attr_text})"
    try:
        spec.check(infos, attrs)
    except (ShapeError, DTypeError) as reason:
        return type(reason)(f"{where}: {reason}")
    except Exception as bug:  # the spec's own rule failed: still say what we know
        return KernelError(f"{where} raised {type(exc).__name__}: {exc} (and its spec rule "
                           f"raised {type(bug).__name__}: {bug}).")
    reg = KERNELS.registration((name, backend.name))
    source = reg.source if reg else "unknown"
    return KernelError(
        f"{where} raised {type(exc).__name__}: {exc}. The inputs satisfy the kernel spec, so "
        f"this is a bug in the kernel registered by '{source}': report it there, or register "
        "another kernel with override=True."
    )


def _input_names(spec: KernelSpec, n: int) -> list[str]:
    if spec.variadic:
        return [f"{spec.inputs[0]}[{i}]" for i in range(n)]
    return list(spec.inputs)


def make_caller(spec: KernelSpec, attrs: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """The fast dispatch function ops use for one kernel: ``call(inputs, attrs)`` where
    `inputs` is a tuple of Tensors in spec order and `attrs` a complete, validated dict.
    Given `attrs` here (complete and validated), the caller is for those attributes only: it
    must be called with them (an op's constant attributes; the kernel's direct function for
    them is then found once, not per call).

    The kernel function is cached per backend and refreshed when the kernel registry changes.
    """
    fixed_src = attrs
    fixed = dict(attrs) if attrs is not None else None
    name = spec.name
    table = KERNELS
    get_backend = backend_var.get
    get_recorders = recorders_var.get
    single = len(spec.outputs) == 1
    attr_names = tuple(a.name for a in spec.attrs)
    n_attrs = len(attr_names)
    resolved = not n_attrs or fixed is not None  # the direct function is known at lookup
    first_attr = attr_names[0] if attr_names else ""
    attr_key = operator.itemgetter(*attr_names) if n_attrs > 1 else None  # the spec's order
    # (backend, kernel function, registry version, the backend's dtype_of, direct: the function
    # itself when known for all calls, else the mapping; {input dtype (of both inputs), or
    # (function, input dtype): output dtype, None until known} with an entry for every input
    # dtype the direct functions take)
    cache: tuple[Any, ...] = (None, None, -1, None, None, {})

    def lookup(backend: Backend) -> tuple[Any, ...]:
        nonlocal cache
        config = table.active.get((name, backend.name))
        if config is None:
            raise missing_kernel_error(name, backend.name)
        fn = config.kernel_func
        direct = getattr(fn, "direct", None)
        if direct is not None and (not single or tuple(getattr(fn, "direct_attrs", ())) != attr_names):
            direct = None  # keyed by other attributes than the spec's: not safe to use
        if direct is not None and resolved:
            direct = direct.get(tuple(fixed[n] for n in attr_names) if fixed is not None else ())
        outs: dict[Any, Any] = {}
        if direct is not None:
            outs.update((d, None) for d in getattr(fn, "direct_dtypes", ()))
        cache = (backend, fn, table.version, backend.dtype_of, direct, outs)
        return cache

    def call(inputs: tuple[Tensor, ...], attrs: Mapping[str, Any]) -> Any:
        backend = get_backend() or active_backend()
        cached_backend, fn, version, dtype_of, direct, outs = cache
        if backend is not cached_backend or version != table.version:
            _, fn, _, dtype_of, direct, outs = lookup(backend)
        if direct is not None and backend.direct_kernels:
            # the direct path: one function of the native inputs, its output dtype remembered
            n = len(inputs)
            if n == 1:
                x = inputs[0]
                key: Any = x._dtype
                ok = key in outs and x._backend is backend
            elif n == 2:  # (inputs of one dtype, as ops give binary kernels)
                x, y = inputs
                key = x._dtype
                ok = key is y._dtype and key in outs and x._backend is backend and y._backend is backend
            else:
                ok = False
            if ok:
                try:
                    if resolved:  # (a caller for fixed attributes given others: no direct call)
                        run = direct if fixed_src is None or attrs is fixed_src else None
                    else:
                        run = direct.get((attrs[first_attr],) if n_attrs == 1 else attr_key(attrs))  # type: ignore[misc]
                        key = (run, key)
                    if run is not None:
                        out = run(x._data) if n == 1 else run(x._data, y._data)
                        t = _new(Tensor)
                        t._data = out
                        dt = outs.get(key)
                        if dt is None:
                            dt = outs[key] = dtype_of(out)
                        t._dtype = dt
                        t._backend = backend
                        recorders = get_recorders()
                        if recorders:
                            for recorder in recorders:
                                recorder.record(name, inputs, attrs, (t,))
                        return t
                except (TensorplugError, Warning):
                    raise
                except Exception:  # the kernel function runs again below, and explains
                    pass
        if len(inputs) == 2:
            x, y = inputs
            arrays: tuple[Any, ...] = (
                x._data if x._backend is backend else to_backend(x, backend),
                y._data if y._backend is backend else to_backend(y, backend),
            )
        elif len(inputs) == 1:
            x = inputs[0]
            arrays = (x._data if x._backend is backend else to_backend(x, backend),)
        else:
            arrays = tuple([t._data if t._backend is backend else to_backend(t, backend) for t in inputs])
        try:
            out = fn(arrays, attrs, backend)
            if single:
                t = _new(Tensor)
                t._data = out
                t._dtype = dtype_of(out)
                t._backend = backend
            else:
                made = []
                for o in out:
                    t = _new(Tensor)
                    t._data = o
                    t._dtype = dtype_of(o)
                    t._backend = backend
                    made.append(t)
                outputs = tuple(made)
        except (TensorplugError, Warning):  # a warning here is one the user made an error (-W error)
            raise
        except Exception as exc:
            raise explain_failure(name, backend, inputs, attrs, exc) from exc
        recorders = get_recorders()
        if single:
            if recorders:
                outputs = (t,)
                for recorder in recorders:
                    recorder.record(name, inputs, attrs, outputs)
            return t
        for recorder in recorders:
            recorder.record(name, inputs, attrs, outputs)
        return outputs

    def direct_state() -> tuple[Any, int, Any, dict[Any, Any], bool]:
        """(backend, registry version, the direct function if one serves every call of this
        caller else None, {input dtype: output dtype or None until known}, whether the kernel
        declares ``direct_checked``) as last looked up."""
        backend, fn, version, _, direct, outs = cache
        checked = bool(getattr(fn, "direct_checked", False))
        return backend, version, direct if resolved else None, outs, checked

    call.__name__ = f"call_{name}"
    call.__qualname__ = call.__name__
    call.direct_state = direct_state  # type: ignore[attr-defined]  # for ops' fast paths (_fastpath)
    return call


_callers: dict[str, tuple[KernelSpec, Callable[..., Any]]] = {}


def run_kernel(kernel_name: str, inputs: Mapping[str, Any] | Sequence[Any] = (),
               attrs: Mapping[str, Any] | None = None) -> Any:
    """Run one kernel on the active backend (TF.js's engine.runKernel).

    `inputs` maps the spec's input names to Tensors (or array-likes), or is a sequence in spec
    order; `attrs` is checked and completed from the spec. Returns a Tensor, or a tuple for a
    multi-output kernel; it is recorded for autodiff like any op.
    """
    from .ops._convert import asarray  # ops sit above the engine

    active_backend()  # make sure plugins (and their specs) are loaded
    spec = get_kernel_spec(kernel_name)
    if isinstance(inputs, Mapping):
        if spec.variadic:
            values = list(inputs.get(spec.inputs[0], ()))
            extra = set(inputs) - {spec.inputs[0]}
        else:
            missing = [n for n in spec.inputs if n not in inputs]
            extra = set(inputs) - set(spec.inputs)
            if missing:
                raise ShapeError(f"run_kernel('{kernel_name}'): missing input(s) {missing}; "
                                 f"the kernel takes {list(spec.inputs)}.")
            values = [inputs[n] for n in spec.inputs]
        if extra:
            raise ShapeError(f"run_kernel('{kernel_name}'): unknown input(s) {sorted(extra)}; "
                             f"the kernel takes {list(spec.inputs)}.")
    else:
        values = list(inputs)
    tensors = tuple(asarray(v) for v in values)
    full_attrs = spec.normalize_attrs(attrs)
    # The public path holds callers to the contract: a kernel given dtypes or shapes its spec
    # refuses may well succeed (np.exp of int32 gives float64) and return the wrong thing.
    try:
        spec.check([tensor_info(t) for t in tensors], full_attrs)
    except (ShapeError, DTypeError) as exc:
        raise explain_failure(kernel_name, active_backend(), tensors, full_attrs, exc) from None
    cached = _callers.get(kernel_name)
    if cached is None or cached[0] is not spec:
        cached = _callers[kernel_name] = (spec, make_caller(spec))
    return cached[1](tensors, full_attrs)
