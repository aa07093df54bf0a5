"""The engine: ``run_kernel`` (the public, dict-shaped way to run a kernel, as TF.js's
``engine.runKernel``), and the explanation of kernel failures from the kernel spec.

Ops call a ``Dispatcher`` (``tensorplug.dispatch``) instead: the same registry, without the
argument conversion and the spec check that ``run_kernel`` does per call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._validate import checked_size
from .backend import Backend, active_backend
from .dispatch import dispatcher_of, to_backend, wrap
from .errors import ArgumentError, DTypeError, KernelError, OutOfMemoryError, ShapeError, TensorplugError
from .kernel_spec import KernelSpec, TensorInfo, describe
from .registry.specs import get_kernel_spec
from .runtime import current
from .tensor import Tensor

__all__ = ["run_kernel", "wrap", "to_backend", "tensor_info", "explain_failure"]


def tensor_info(t: Tensor) -> TensorInfo:
    return TensorInfo(tuple(t.shape), t._dtype)


def explain_failure(name: str, backend: Backend, inputs: Sequence[Tensor], attrs: Mapping[str, Any],
                    exc: BaseException) -> TensorplugError:
    """A tensorplug error for a kernel that raised: the spec's reason if the inputs break the
    contract (ShapeError/DTypeError), an OutOfMemoryError if the backend says `exc` means so,
    else a KernelError blaming the kernel's registrant."""
    spec = get_kernel_spec(name)
    infos = [tensor_info(t) for t in inputs]
    shown = ", ".join(
        f"{n}: {describe(i)}" for n, i in zip(_input_names(spec, len(infos)), infos)
    ) or "no inputs"
    attr_text = f", attrs {dict(attrs)}" if attrs else ""
    where = f"Kernel '{name}' on backend '{backend.name}' (inputs {shown}{attr_text})"
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
    reg = current().kernels.registration((name, backend.name))
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


def run_kernel(kernel_name: str, inputs: Mapping[str, Any] | Sequence[Any] = (),
               attrs: Mapping[str, Any] | None = None) -> Any:
    """Run one kernel on the active backend (TF.js's engine.runKernel).

    `inputs` maps the spec's input names to Tensors (or array-likes), or is a sequence in spec
    order; `attrs` is checked and completed from the spec. Returns a Tensor, or a tuple for a
    multi-output kernel; it is recorded for autodiff like any op.
    """
    from .ops._convert import asarray  # ops sit above the engine

    backend = active_backend()  # (started: plugins and their specs are loaded)
    if not isinstance(kernel_name, str):
        raise ArgumentError(f"run_kernel: kernel_name must be a kernel's name (a str such as 'Add'), "
                            f"got {type(kernel_name).__name__}.")
    spec = get_kernel_spec(kernel_name)
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, (Mapping, Sequence)):
        raise ArgumentError(f"run_kernel('{kernel_name}'): inputs must be a dict of its input names "
                            f"{list(spec.inputs)} to tensors, or a list of tensors in that order; got "
                            f"{type(inputs).__name__}.")
    if isinstance(inputs, Mapping):
        if spec.variadic:
            given = inputs.get(spec.inputs[0], ())
            if not isinstance(given, Sequence) or isinstance(given, (str, bytes)):
                raise ArgumentError(f"run_kernel('{kernel_name}'): input '{spec.inputs[0]}' takes a list of "
                                    f"tensors, got {type(given).__name__}.")
            values = list(given)
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
        outs = spec.check([tensor_info(t) for t in tensors], full_attrs)
    except (ShapeError, DTypeError) as exc:
        raise explain_failure(kernel_name, backend, tensors, full_attrs, exc) from None
    for out in outs:  # a shape past the backend's limits is refused before it is allocated
        checked_size(out.shape, backend, f"run_kernel('{kernel_name}')")
    dispatcher = dispatcher_of(kernel_name)
    return dispatcher(tensors, full_attrs)
