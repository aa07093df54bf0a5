"""The scope of every call tensorplug makes into jax: 64-bit types enabled (tensorplug's int64
and float64 exist; see the README's dtype policy) and, when the backend was told to use a device
other than jax's default, that device as jax's default device; both only for the duration of
the call and only in the calling thread (jax's thread-local configuration), so that other JAX
code in the process keeps its own settings.

Costs ~1-2 us per call (two thread-local swaps, ~0.3 us, and jax's dispatch reading the
thread-local state), measured against ~10 us for the cheapest eager jax op, so elementwise
kernels on 32-bit inputs skip it (see ``kernels._jit.NARROW``); the public context
managers (``with jax.enable_x64(True):``) cost ~1 us more and are the fallback for a jax whose
configuration states lack ``swap_local``.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import jax

from tensorplug.errors import DeviceError, TracedValueError

if TYPE_CHECKING:
    from tensorplug_jax.kernels._jit import JaxKernel

__all__ = ["scoped", "scoped_call", "calling", "enter", "leave", "TRACER_ERRORS", "traced_error",
           "sharding_error", "SCOPED"]

_X64 = jax.enable_x64
#: the kernel functions ``scoped`` made: those that run in the scope already
SCOPED: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()
_DEVICE = jax.default_device
_NOTHING: Any = object()

#: jax's errors for a traced value used where a concrete one is needed
TRACER_ERRORS: tuple[type[BaseException], ...] = (
    jax.errors.ConcretizationTypeError,
    jax.errors.TracerArrayConversionError,
    jax.errors.TracerBoolConversionError,
    jax.errors.TracerIntegerConversionError,
    jax.errors.UnexpectedTracerError,
)


def traced_error(where: str, exc: BaseException) -> TracedValueError:
    """A tensorplug error for jax's complaint about a traced value, saying what to do."""
    if isinstance(exc, jax.errors.UnexpectedTracerError):
        why = ("a traced value escaped the function tp.jit traced it in (stored in a global, an "
               "attribute or a list other than a Variable); return it, or keep it in a Variable")
    else:
        why = ("it needs concrete values, which a function being compiled by tp.jit does not have; "
               "make the value a static argument (tp.jit(f, static_argnums=...)), use ops instead "
               "of Python control flow on tensor values (e.g. tp.where), or call it outside tp.jit")
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return TracedValueError(f"{where}: {why}. (jax: {type(exc).__name__}: {first})")


def sharding_error(where: str, exc: BaseException) -> DeviceError:
    """jax's explicit-sharding mode wants an output sharding the kernel cannot know."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return DeviceError(
        f"{where}: jax cannot decide how to shard the result ({first}). tensorplug's kernels leave "
        "sharding to jax's propagation: build the mesh with automatic axes, e.g. "
        "jax.make_mesh((8,), ('data',), axis_types=(jax.sharding.AxisType.Auto,))."
    )


def _scoped_call(fn: Callable[..., Any], backend: Any, where: str) -> Callable[..., Any]:
    """``scoped_call`` with the scope's context manager (``calling``, below): a pinned device,
    or an older jax."""

    def call(*args: Any) -> Any:
        with calling(backend.pinned_device):
            try:
                return fn(*args)
            except TRACER_ERRORS as exc:
                raise traced_error(where, exc) from exc

    return call


if hasattr(_X64, "swap_local") and hasattr(_DEVICE, "swap_local"):
    _swap_x64, _set_x64 = _X64.swap_local, _X64.set_local
    _swap_device, _set_device = _DEVICE.swap_local, _DEVICE.set_local

    def scoped(kernel: JaxKernel, where: Callable[[Any], str]) -> Callable[..., Any]:
        """The kernel function of `kernel` wrapped: run in the scope, jax's traced-value errors
        turned into TracedValueError naming `where(backend)`. For inputs of its direct dtypes
        only (and no pinned device) it runs unscoped: jax's default mode computes the same."""
        fn = kernel.func
        narrow = frozenset(d.numpy for d in kernel.direct.dtypes) if kernel.direct else frozenset()

        def reraise(exc: Exception, backend: Any) -> NoReturn:
            """jax's complaint about a traced value or a sharding as a tensorplug error; any
            other exception as it is."""
            if isinstance(exc, TRACER_ERRORS):
                raise traced_error(where(backend), exc) from exc
            if type(exc).__name__ == "ShardingTypeError":
                raise sharding_error(where(backend), exc) from exc
            raise exc

        def call(inputs: Any, attrs: Any, backend: Any) -> Any:
            device = backend.pinned_device
            if narrow and device is None and all(a.dtype in narrow for a in inputs):
                try:
                    return fn(inputs, attrs, backend)
                except Exception as exc:
                    reraise(exc, backend)
            prev = _swap_x64(True)  # the scope: 64-bit types on, the backend's device if pinned
            if device is not None:
                prev_device = _swap_device(device)
            try:
                return fn(inputs, attrs, backend)
            except Exception as exc:
                reraise(exc, backend)
            finally:
                _set_x64(prev)
                if device is not None:
                    _set_device(prev_device)

        call.__name__ = getattr(fn, "__name__", "kernel")
        SCOPED.add(call)
        return call

    def scoped_call(fn: Callable[..., Any], backend: Any, where: str) -> Callable[..., Any]:
        """`fn(*args)` run in the scope (on `backend.pinned_device`), jax's traced-value errors
        turned into TracedValueError naming `where`."""

        def call(*args: Any) -> Any:
            if backend.pinned_device is not None:
                return pinned(*args)
            prev = _swap_x64(True)  # (the common case inline: a compiled training step)
            try:
                return fn(*args)
            except TRACER_ERRORS as exc:
                raise traced_error(where, exc) from exc
            finally:
                _set_x64(prev)

        pinned = _scoped_call(fn, backend, where)
        return call

    def enter(device: Any) -> Any:
        """Enter the scope (the fast path of ``calling``); give the result to ``leave``."""
        return _swap_x64(True), (_swap_device(device) if device is not None else _NOTHING)

    def leave(token: Any) -> None:
        _set_x64(token[0])
        if token[1] is not _NOTHING:
            _set_device(token[1])

    @contextlib.contextmanager
    def calling(device: Any) -> Iterator[None]:
        prev = _swap_x64(True)
        if device is not None:
            prev_device = _swap_device(device)
        try:
            yield
        finally:
            _set_x64(prev)
            if device is not None:
                _set_device(prev_device)

else:  # pragma: no cover - older jax: the documented context managers

    def enter(device: Any) -> Any:
        manager = calling(device)
        manager.__enter__()
        return manager

    def leave(token: Any) -> None:
        token.__exit__(None, None, None)

    @contextlib.contextmanager
    def calling(device: Any) -> Iterator[None]:
        with _X64(True), (_DEVICE(device) if device is not None else contextlib.nullcontext()):
            yield

    scoped_call = _scoped_call

    def scoped(kernel: JaxKernel, where: Callable[[Any], str]) -> Callable[..., Any]:
        fn = kernel.func

        def call(inputs: Any, attrs: Any, backend: Any) -> Any:
            with calling(backend.pinned_device):
                try:
                    return fn(inputs, attrs, backend)
                except TRACER_ERRORS as exc:
                    raise traced_error(where(backend), exc) from exc

        SCOPED.add(call)
        return call
