"""One kernel call held to its kernel spec, for the dispatcher: ``explain_failure`` says why a
kernel raised, ``check_outputs`` whether what it returned is what the spec's rule promises for
the inputs it got (the number of outputs, native arrays of its backend, their dtypes and
shapes), raising ``KernelOutputError`` if not.

The dispatcher checks outputs on the first call of each binding (a kernel on a backend) and
input dtypes, and whenever an output cannot be wrapped as a Tensor; ``tp.debug_checks()``
checks every kernel call (``tensorplug.tools.debug``). Outputs of a transform's backend (``tp.vmap``'s)
are not checked: its kernels are made from kernels checked at the level beneath.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tensorplug.backends.contract import Backend
from tensorplug.backends.held_dtypes import nearest_dtype
from tensorplug.core.runtime import current
from tensorplug.dtypes import ALL_DTYPES, DType
from tensorplug.errors import (
    DTypeError,
    KernelError,
    KernelOutputError,
    OutOfMemoryError,
    ShapeError,
    TensorplugError,
)
from tensorplug.kernels.kernel_spec import KernelSpec, TensorInfo, describe
from tensorplug.registry.specs import get_kernel_spec

if TYPE_CHECKING:  # (tensor.py imports the context, whose debug recorders use this module)
    from tensorplug.core.tensor import Tensor

__all__ = ["explain_failure", "check_outputs", "check_served"]


def explain_failure(name: str, backend: Backend, inputs: Sequence[Tensor], attrs: Mapping[str, Any],
                    exc: BaseException) -> TensorplugError:
    """A tensorplug error for a kernel that raised: the spec's reason if the inputs break the
    contract (ShapeError/DTypeError), an OutOfMemoryError if the backend says `exc` means so,
    else a KernelError blaming the kernel's registrant."""
    spec = get_kernel_spec(name)
    infos = _infos(inputs)
    where = f"Kernel '{name}' on backend '{backend.name}' (inputs {_shown_inputs(spec, infos, attrs)})"
    try:
        outs = spec.check(infos, attrs)
    except (ShapeError, DTypeError) as reason:
        return type(reason)(f"{where}: {reason}")
    except Exception as bug:  # the spec's own rule failed: still say what we know
        return KernelError(f"{where} raised {type(exc).__name__}: {exc} (and its spec rule "
                           f"raised {type(bug).__name__}: {bug}).")
    if backend.out_of_memory(exc):
        made = ", ".join(describe(o) for o in outs)
        return OutOfMemoryError(f"{where} ran out of memory making {made}: {type(exc).__name__}: {exc}. "
                                "Make the tensors smaller (or free memory).")
    return KernelError(
        f"{where} raised {type(exc).__name__}: {exc}. The inputs satisfy the kernel spec, so "
        f"this is a bug in the kernel registered by '{_source(name, backend)}': report it there, or "
        "register another kernel with override=True."
    )


def check_outputs(name: str, backend: Backend, inputs: Sequence[Tensor], attrs: Mapping[str, Any],
                  returned: Any, *, direct: bool = False) -> None:
    """Raise KernelOutputError unless `returned`, what kernel `name` returned on `backend` for
    `inputs` and `attrs` (its direct function if `direct`), is what its spec promises: one
    native array of `backend` per output (a tuple or list of them for a kernel of several
    outputs) with the spec's dtype and shape (-1 in the spec's shape: any length). Where the
    spec's rule refuses the inputs (the caller broke the contract, and the kernel did not
    refuse), there is nothing to hold the outputs to."""
    if backend.transform:
        return
    spec = get_kernel_spec(name)
    try:
        expected = spec.check(_infos(inputs), attrs)
    except Exception:  # (a spec's own bug is the conformance kit's to find, not a user's call's)
        return
    names = spec.output_names(len(expected))

    def wrong(got: str, want: str) -> KernelOutputError:
        function = "direct function (its KernelConfig's DirectCall)" if direct else "kernel function"
        source = _source(name, backend)
        return KernelOutputError(
            f"Kernel '{name}' on backend '{backend.name}' (registered by '{source}'): its {function} "
            f"returned {got} from inputs {_shown_inputs(spec, _infos(inputs), attrs)}; the kernel spec "
            f"says {want}. A kernel must return what its spec's rule gives: fix the kernel in "
            f"'{source}' (or report it there), or register another kernel with override=True."
        )

    if len(spec.outputs) == 1:
        if isinstance(returned, (tuple, list)):
            raise wrong(f"a {type(returned).__name__} of {len(returned)}",
                        f"one native array ({describe(expected[0])}) for its one output '{names[0]}'")
        outputs: Sequence[Any] = (returned,)
    elif not isinstance(returned, (tuple, list)):
        raise wrong(_shown(returned, backend), f"a tuple of {len(expected)} native arrays for its outputs "
                    f"{list(names)}")
    elif len(returned) != len(expected):
        raise wrong(f"a {type(returned).__name__} of {len(returned)}",
                    f"{len(expected)} outputs {list(names)}")
    else:
        outputs = returned
    for out_name, out, want in zip(names, outputs, expected):
        if not backend.is_native(out):
            raise wrong(f"{_shown(out, backend)} as output '{out_name}'",
                        f"a native array of backend '{backend.name}' ({describe(want)})")
        got = TensorInfo(tuple(backend.shape_of(out)), backend.dtype_of(out))
        fits = len(got.shape) == len(want.shape) and all(w in (-1, s) for s, w in zip(got.shape, want.shape))
        if got.dtype is not want.dtype or not fits:
            raise wrong(f"{describe(got)} as output '{out_name}'", describe(want))


def check_served(name: str, backend: Backend, serves: frozenset[DType], inputs: Sequence[Tensor]) -> None:
    """Raise DTypeError if an input's dtype is not among those kernel `name`'s config narrows
    it to on `backend` (``KernelConfig.dtypes``), naming the nearest one it serves."""
    for t in inputs:
        if t._dtype not in serves:
            near = nearest_dtype(t._dtype, serves)
            names = ", ".join(d.name for d in ALL_DTYPES if d in serves)
            cast = f"x.astype(tp.{near.name})" if near is not None else "a cast"
            raise DTypeError(
                f"Kernel '{name}' on backend '{backend.name}' serves {names} only (its KernelConfig's "
                f"dtypes, registered by '{_source(name, backend)}'), not {t._dtype.name}: cast the "
                f"input first ({cast}), or use a backend whose kernel serves {t._dtype.name}."
            )


def _infos(inputs: Sequence[Tensor]) -> list[TensorInfo]:
    return [TensorInfo(tuple(t.shape), t._dtype) for t in inputs]


def _shown_inputs(spec: KernelSpec, infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> str:
    """'x: float32[3], y: float32[3], attrs {...}' for messages."""
    shown = ", ".join(f"{n}: {describe(i)}" for n, i in zip(spec.input_names(len(infos)), infos))
    return (shown or "no inputs") + (f", attrs {dict(attrs)}" if attrs else "")


def _source(name: str, backend: Backend) -> str:
    """Who registered kernel `name` for `backend` (a plugin, or tensorplug's core)."""
    reg = current().kernels.registration((name, backend.name))
    return reg.source if reg is not None else "unknown"


def _shown(value: Any, backend: Backend) -> str:
    """A returned value in a message: its type (with its module, so that another library's
    array says so) and, for a Python scalar, its value; for an array, its dtype and shape."""
    if value is None:
        return "None"
    kind = type(value)
    text = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    if isinstance(value, (bool, int, float, complex, str)):
        return f"a {text} ({value!r})"
    try:
        return f"a {text} ({describe(TensorInfo(tuple(value.shape), backend.dtype_of(value)))})"
    except Exception:
        return f"a {text}"
