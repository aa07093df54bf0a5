"""``run_kernel`` (the public, dict-shaped way to run a kernel, as TF.js's
``engine.runKernel``); the explanation of kernel failures from the kernel spec
(``explain_failure``) is ``tensorplug.kernels.call_checks``'s.

Ops call a ``Dispatcher`` (``tensorplug.kernels.dispatcher``) instead: the same registry, without the
argument conversion and the spec check that ``run_kernel`` does per call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.backends.lifecycle import active_backend
from tensorplug.core.validate import checked_size
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import asarray
from tensorplug.kernels.call_checks import explain_failure
from tensorplug.kernels.dispatcher import dispatcher_of
from tensorplug.kernels.kernel_spec import tensor_info
from tensorplug.registry.specs import get_kernel_spec

__all__ = ["run_kernel"]


def run_kernel(kernel_name: str, inputs: Mapping[str, Any] | Sequence[Any] = (),
               attrs: Mapping[str, Any] | None = None) -> Any:
    """Run one kernel on the active backend (TF.js's engine.runKernel).

    `inputs` maps the spec's input names to Tensors (or array-likes), or is a sequence in spec
    order; `attrs` is checked and completed from the spec. Returns a Tensor, or a tuple for a
    multi-output kernel; it is recorded for autodiff like any op.
    """
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
