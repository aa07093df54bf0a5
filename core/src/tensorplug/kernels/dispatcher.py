"""The dispatcher: the one object an op calls to run a kernel, for core ops and plugin ops alike.

``Dispatcher(kernel_name)`` is made once (at import) and called per op call. It binds to the
active backend's kernel on first use and again whenever the kernel registry changes (its
version), and then costs a few attribute reads, the kernel call and the output Tensor:

- where the kernel's config offers a ``DirectCall`` for the inputs' dtype, the direct function
  runs on the native inputs (no kernel-function layer), and its output dtype is remembered;
- otherwise, or when the direct function raises, the kernel function runs; a kernel that
  raises is explained from its spec (``call_checks.explain_failure``).

The fast path is written once, in ``_FAST_PATH``; ``unary``, ``binary`` and ``__call__`` are
generated from it. The first call of each binding and input dtypes holds the kernel's outputs
to its spec (``call_checks.check_outputs``: their number, native type, dtypes and shapes);
``tp.debug_checks()`` holds every call to it. Outputs are recorded on the active recorders
(tapes, counters, profiles, the planner, which is told the direct function that ran) either
way; while a profile records (``tensorplug.profiler``), the kernel call is timed for it. Shapes
are the caller's to get right (a kernel refusing them is explained); attributes must be
complete and validated (``KernelSpec.normalize_attrs``).
"""

from __future__ import annotations

import inspect
import linecache
import operator
import textwrap
from collections.abc import Callable, Mapping, Sequence
from time import perf_counter_ns as _clock
from typing import Any, TypeVar

from tensorplug.backends.lifecycle import Backend, active_backend  # noqa: F401  (the generated fast path calls it)
from tensorplug.core.context import backend_var, profiling, recorders_var
from tensorplug.core.runtime import ACTIVE
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType
from tensorplug.errors import KernelError, TensorplugError
from tensorplug.kernels.call_checks import check_outputs, check_served, explain_failure
from tensorplug.kernels.kernel_spec import REQUIRED, KernelSpec
from tensorplug.kernels.lookup import missing_kernel_error
from tensorplug.registry._slots import CHANGES
from tensorplug.registry.kernel_config import DirectCall, DirectFunc, KernelFunc
from tensorplug.registry.specs import get_kernel_spec

__all__ = ["Dispatcher", "dispatcher_of", "wrap", "to_backend"]

_new = object.__new__
_get_backend = backend_var.get
_get_recorders = recorders_var.get
_data_of = operator.attrgetter("_data")  # (a C loop over inputs: no comprehension's frame)
_dtype_of = operator.attrgetter("_dtype")


def wrap(native: Any, backend: Backend, dtype: DType | None = None) -> Tensor:
    """A Tensor around a native array of `backend`."""
    t = _new(Tensor)
    t._data = native
    t._dtype = backend.dtype_of(native) if dtype is None else dtype
    t._backend = backend
    return t


def to_backend(t: Tensor, backend: Backend) -> Any:
    """The native array of `t` on `backend` (``Backend.from_tensor`` if it lives elsewhere:
    through the host, or as it is beneath a transform's backend)."""
    if t._backend is backend:
        return t._data
    return backend.from_tensor(t)


class _Direct:
    """One direct function and the output dtype it gives per input dtype (None until seen)."""

    __slots__ = ("run", "outs")

    def __init__(self, run: DirectFunc, dtypes: frozenset[DType]) -> None:
        self.run = run
        self.outs: dict[DType, DType | None] = dict.fromkeys(dtypes)


class _Binding:
    """The binding cache: a dispatcher's kernel on one backend, valid while the registries keep
    `version` (the registries' ``CHANGES`` when it was bound), with what its calls learned
    (direct functions and their output dtypes, the input dtypes whose outputs were checked)."""

    __slots__ = ("backend", "version", "spec", "func", "direct_call", "fixed", "variants", "single",
                 "one_dtype", "checked", "serves")

    def __init__(self, backend: Backend | None, version: int, spec: KernelSpec | None,
                 func: KernelFunc | None, direct: DirectCall | None, fixed: _Direct | None,
                 serves: frozenset[DType] | None = None) -> None:
        self.backend = backend
        self.serves = serves  # the input dtypes the kernel's config narrows it to (None: all)
        self.version = version
        self.spec = spec
        self.func = func
        self.direct_call = direct
        self.fixed = fixed  # the direct function for the dispatcher's own attributes
        self.variants: dict[tuple[Any, ...], _Direct | None] = {}  # by other attribute values
        self.single = spec is not None and len(spec.outputs) == 1  # one output, not a tuple of them
        # the input dtypes whose kernel-function calls were checked: by the first input's dtype
        # where the spec gives its inputs one dtype (cheaper than a tuple of them all)
        self.one_dtype = spec is not None and _inputs_share_a_dtype(spec)
        self.checked: set[DType | tuple[DType, ...]] = set()


def _inputs_share_a_dtype(spec: KernelSpec) -> bool:
    """Whether the spec's inputs share one dtype whenever it accepts them: one (not variadic)
    input, or all of them in its ``same_dtype``."""
    if not spec.inputs:
        return False
    return (len(spec.inputs) == 1 and not spec.variadic) or set(spec.inputs) <= set(spec.same_dtype)


_UNBOUND = _Binding(None, -1, None, None, None, None)
# Raised by a kernel, these reach the caller as they are: tensorplug's own errors, and what the
# user's settings made an error (a warning under -W error, numpy's np.errstate(all="raise")).
_PASS_THROUGH = (TensorplugError, Warning, FloatingPointError)
_VARIANTS_LIMIT = 1024  # direct functions remembered per binding for other attribute values

# The fast path, written once: ``unary``, ``binary`` and ``__call__`` differ only in how they
# hold their inputs and attributes, so each is generated from this template (as the planner
# generates its plans) rather than calling a shared helper, which would cost a Python call (~5%
# of a tiny op). Fields: `choose` sets `d`, the direct function for the call's attributes (or
# None); `same` says every input lives on the backend with dtype `dtype`; `arrays` are the
# native inputs, `inputs` the inputs as a tuple, `attrs` the call's attributes. Reading it: the
# binding (bound again when the backend or the registries changed); then, where a direct
# function serves `dtype`, either its first output of that dtype or a recorded call
# (``_recorded``), or the direct call itself and the output Tensor; else the kernel function
# (``_kernel``).
_FAST_PATH = """\
def {name}({params}):
    backend = _get_backend() or active_backend()
    b = self._binding
    if b.backend is not backend or b.version != CHANGES[0]:
        b = self._bind(backend)
{choose}
    if d is not None and {same} and backend.direct_kernels:
        try:
            out_dt = d.outs[{dtype}]
        except KeyError:  # a dtype the direct function does not serve
            return self._kernel(b, {inputs}, {attrs})
        if out_dt is None or _get_recorders():  # (a first output, checked; or something records)
            return self._recorded(b, d, {inputs}, {attrs})
        try:
            out = d.run({arrays})
        except _PASS_THROUGH:
            raise
        except Exception:  # the kernel function runs below, and explains
            pass
        else:
            t = _new(Tensor)
            t._data, t._dtype, t._backend = out, out_dt, backend
            return t
    return self._kernel(b, {inputs}, {attrs})
"""
# __call__'s `choose`: its attributes are given per call (the dispatcher's own if None).
_CALL_CHOOSES = """\
inputs = tuple(inputs)
if attrs is None or attrs is self.attrs or attrs is self._given:
    attrs, d = self.attrs, b.fixed
else:  # other attribute values: the direct function for them, if any
    d = None if b.direct_call is None else self._variant(b, b.direct_call, attrs)
dt = inputs[0]._dtype if inputs else None
"""
_F = TypeVar("_F", bound=Callable[..., Any])


def _fast_path(*, choose: str, same: str, dtype: str, arrays: str, inputs: str,
               attrs: str) -> Callable[[_F], _F]:
    """A Dispatcher method whose body is ``_FAST_PATH`` with these fields (its signature and
    docstring are the decorated function's). Its source is put in ``linecache``, so tracebacks
    and debuggers show the generated lines."""

    def generate(declared: _F) -> _F:
        parameters = inspect.signature(declared).parameters.values()
        params = ", ".join(str(p.replace(annotation=inspect.Parameter.empty)) for p in parameters)
        source = _FAST_PATH.format(name=declared.__name__, params=params, same=same, dtype=dtype,
                                   arrays=arrays, inputs=inputs, attrs=attrs,
                                   choose=textwrap.indent(choose, "    ").rstrip("\n"))
        filename = f"<tensorplug.kernels.dispatcher: the fast path of Dispatcher.{declared.__name__}>"
        namespace: dict[str, Any] = {}
        exec(compile(source, filename, "exec"), globals(), namespace)  # noqa: S102
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        made = namespace[declared.__name__]
        for attr in ("__module__", "__qualname__", "__doc__", "__annotations__"):
            setattr(made, attr, getattr(declared, attr))
        return made

    return generate


class Dispatcher:
    """Runs kernel `kernel_name` on the active backend: ``d(inputs, attrs)``, or ``d.unary(x)``
    and ``d.binary(x, y)`` with the dispatcher's own `attrs`.

    `inputs` are Tensors in spec order; `attrs` complete and validated (given here, they are
    checked by the spec on first use and serve every call that passes none). Make one per
    kernel (and set of constant attributes) at import, and keep it.
    """

    __slots__ = ("name", "attrs", "_given", "_binding", "_previous")

    def __init__(self, kernel_name: str, attrs: Mapping[str, Any] | None = None) -> None:
        self.name = kernel_name
        self._given = None if attrs is None else dict(attrs)
        #: the attributes used when a call gives none (None until known: see _bind)
        self.attrs: dict[str, Any] | None = self._given
        self._binding = _UNBOUND
        self._previous = _UNBOUND  # the binding before, kept for code alternating two backends (vmap)

    def __repr__(self) -> str:
        return f"<Dispatcher {self.name!r}{'' if self._given is None else f' {self._given}'}>"

    # -- binding ---------------------------------------------------------------------------
    def _bind(self, backend: Backend) -> _Binding:
        """Look the kernel up for `backend` (and the spec, and the direct function for the
        dispatcher's own attributes) as of the registry's current version: the binding
        before it if that one fits (vmap's rules run kernels beneath the batching level)."""
        previous = self._previous
        version = CHANGES[0]
        self._previous = self._binding
        if previous.backend is backend and previous.version == version:
            self._binding = previous
            return previous
        kernels = ACTIVE.runtime.kernels
        spec = get_kernel_spec(self.name)
        config = kernels.active.get((self.name, backend.name)) or backend.derived_kernel(self.name)
        if config is None:
            raise missing_kernel_error(self.name, backend.name)
        self.attrs = self._own_attrs(spec)
        func = backend.kernel_function(config)
        direct = config.direct  # (a direct call computes its dtypes as the kernel does, wrapped or not)
        fixed = None
        if direct is not None and self.attrs is not None:
            fixed = self._direct_for(direct, self.attrs, backend)
        binding = _Binding(backend, version, spec, func, direct, fixed, config.dtypes)
        self._binding = binding
        return binding

    def _own_attrs(self, spec: KernelSpec) -> dict[str, Any] | None:
        """The attributes of calls that give none: those given to the dispatcher (checked, and
        kept as the very dict given when complete), else the spec's defaults (None when it
        has required attributes)."""
        given = self._given
        if given is None:
            return None if any(a.default is REQUIRED for a in spec.attrs) else spec.normalize_attrs(None)
        normalized = spec.normalize_attrs(given)
        try:
            same = normalized == given
        except Exception:  # values that do not compare (arrays): keep the normalized ones
            same = False
        return given if same is True else normalized

    def _direct_for(self, direct: DirectCall, attrs: Mapping[str, Any], backend: Backend) -> _Direct | None:
        try:
            run = direct.for_attrs(attrs)
        except TensorplugError:
            raise
        except Exception as exc:
            raise KernelError(
                f"Kernel '{self.name}' on backend '{backend.name}': its DirectCall.specialize raised "
                f"{type(exc).__name__}: {exc} for attributes {dict(attrs)}; it must return a "
                "function or None. Report it to the backend's plugin."
            ) from exc
        return None if run is None else _Direct(run, direct.dtypes)

    def _variant(self, binding: _Binding, direct: DirectCall, attrs: Mapping[str, Any]) -> _Direct | None:
        """The direct function (of the binding's `direct`) for attribute values other than the
        dispatcher's own."""
        if direct.function is not None:
            return binding.fixed
        try:
            key = tuple(attrs.values())
            found = binding.variants.get(key, False)
        except TypeError:  # unhashable attribute values: no direct call
            return None
        if found is False:
            assert binding.backend is not None
            if len(binding.variants) >= _VARIANTS_LIMIT:
                binding.variants.clear()
            found = binding.variants[key] = self._direct_for(direct, attrs, binding.backend)
        return found  # type: ignore[return-value]

    # -- calls: the fast path, generated from _FAST_PATH below ----------------------------------
    @_fast_path(choose="d = b.fixed", same="x._backend is backend", dtype="x._dtype",
                arrays="x._data", inputs="(x,)", attrs="self.attrs")
    def unary(self, x: Tensor) -> Any:
        """The kernel on one input with the dispatcher's own attributes."""

    @_fast_path(choose="d = b.fixed\ndt = x._dtype", dtype="dt",
                same="x._backend is backend and y._backend is backend and y._dtype is dt",
                arrays="x._data, y._data", inputs="(x, y)", attrs="self.attrs")
    def binary(self, x: Tensor, y: Tensor) -> Any:
        """The kernel on two inputs with the dispatcher's own attributes."""

    @_fast_path(choose=_CALL_CHOOSES, same="_all_of(inputs, backend, dt)", dtype="dt",
                arrays="*[t._data for t in inputs]", inputs="inputs", attrs="attrs")
    def __call__(self, inputs: Sequence[Tensor], attrs: Mapping[str, Any] | None = None) -> Any:
        """The kernel on `inputs` (Tensors in spec order) with `attrs` (the dispatcher's own if
        None): a Tensor, or a tuple of Tensors for a kernel of several outputs."""

    def _recorded(self, b: _Binding, d: _Direct, inputs: tuple[Tensor, ...],
                  attrs: Mapping[str, Any]) -> Any:
        """The direct function's call when its output is recorded (tapes, counters, profiles)
        or its dtype not known yet: timed while a profile records; the first output of a dtype
        held to the spec (``check_outputs``) and its dtype learned; the output recorded,
        saying which direct function ran (the kernel function runs instead if it raises)."""
        start = _clock() if profiling[0] else 0
        run = d.run
        try:
            out = run(*map(_data_of, inputs))
        except _PASS_THROUGH:
            raise
        except Exception:  # the kernel function runs, and explains
            return self._kernel(b, inputs, attrs)
        backend = b.backend
        assert backend is not None
        outs, dt = d.outs, inputs[0]._dtype
        out_dt = outs[dt]
        if out_dt is None:
            check_outputs(self.name, backend, inputs, attrs, out, direct=True)
            out_dt = outs[dt] = backend.dtype_of(out)
        t = _new(Tensor)
        t._data, t._dtype, t._backend = out, out_dt, backend
        for recorder in _get_recorders():
            recorder.record(self.name, inputs, attrs, (t,), start=start, direct=run)
        return t

    def _kernel(self, b: _Binding, inputs: tuple[Tensor, ...], attrs: Mapping[str, Any] | None) -> Any:
        """The kernel function's path: inputs moved to the backend, the outputs of the first
        call of each set of input dtypes held to the spec, outputs wrapped and recorded, a
        failure explained."""
        backend = b.backend
        assert backend is not None and b.func is not None and b.spec is not None
        if attrs is None:  # none given, and the spec has required ones
            attrs = b.spec.normalize_attrs(None)  # raises, naming the missing attribute
        dtypes = inputs[0]._dtype if b.one_dtype else tuple(map(_dtype_of, inputs))
        first = dtypes not in b.checked
        if first and b.serves is not None:
            check_served(self.name, backend, b.serves, inputs)
        arrays = tuple([t._data if t._backend is backend else to_backend(t, backend) for t in inputs])
        start = _clock() if profiling[0] else 0
        try:
            out = b.func(arrays, attrs if isinstance(attrs, dict) else dict(attrs), backend)
        except _PASS_THROUGH:
            raise
        except Exception as exc:
            raise explain_failure(self.name, backend, inputs, attrs, exc) from exc
        if first:
            check_outputs(self.name, backend, inputs, attrs, out)
            b.checked.add(dtypes)
        single = b.single
        try:
            outputs = (wrap(out, backend),) if single else tuple([wrap(o, backend) for o in out])
        except _PASS_THROUGH:
            raise
        except Exception as exc:  # not native arrays: the spec says what was due, if it can
            check_outputs(self.name, backend, inputs, attrs, out)
            raise explain_failure(self.name, backend, inputs, attrs, exc) from exc
        for recorder in _get_recorders():
            recorder.record(self.name, inputs, attrs, outputs, start=start)
        return outputs[0] if single else outputs


def _all_of(inputs: tuple[Tensor, ...], backend: Backend, dt: DType) -> bool:
    """Whether every input lives on `backend` with dtype `dt` (a loop: cheaper than all() of a
    generator on the hot path)."""
    for t in inputs:  # noqa: SIM110
        if t._backend is not backend or t._dtype is not dt:
            return False
    return True


_shared: dict[str, Dispatcher] = {}


def dispatcher_of(kernel_name: str) -> Dispatcher:
    """The shared dispatcher of `kernel_name` without attributes of its own, for code that runs
    kernels by name (``run_kernel``, gradients' ``kernel``)."""
    found = _shared.get(kernel_name)
    if found is None:
        found = _shared[kernel_name] = Dispatcher(kernel_name)
    return found
