"""What a backend says about one kernel: ``KernelConfig``, with its optional ``DirectCall``, and
the checks that hold a config to its kernel spec when it is registered.

This is the whole kernel contract. The dispatcher reads these fields and nothing else: no
attribute set on a kernel function means anything to tensorplug.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tensorplug.backends.held_dtypes import declared_dtypes
from tensorplug.core.records import Record
from tensorplug.dtypes import DType
from tensorplug.errors import RegistrationError
from tensorplug.kernels.kernel_spec import KernelSpec

__all__ = ["KernelConfig", "KernelFunc", "DirectCall", "DirectFunc", "check_kernel_config"]

#: A kernel: ``kernel_func(inputs, attrs, backend)`` where ``inputs`` is a tuple of
#: backend-native arrays in spec order; returns one native array, or a tuple for several outputs,
#: of the dtypes and shapes its spec's rule gives (``tensorplug.kernels.call_checks.check_outputs``).
KernelFunc = Callable[[tuple[Any, ...], dict[str, Any], Any], Any]
#: A direct function: the native inputs, positionally, to the one native output.
DirectFunc = Callable[..., Any]


class DirectCall(Record):
    """Functions of a kernel's native inputs alone, which the dispatcher calls in place of the
    kernel function (one Python layer less per op) when every input has one dtype in ``dtypes``.

    Give ``function`` for a kernel without attributes, or ``specialize`` for one with
    attributes: it is called once per distinct set of attribute values (a dict, complete and
    validated) and returns the function for them, or None where it has none. A function's
    output dtype must follow from its input dtype and the attributes: the dispatcher learns it
    from the first output, which it holds to the spec (a native array of the spec's dtype and
    shape). If a function raises, the kernel function runs instead and its failure is
    explained as usual; so a function may refuse what it does not handle. Like the kernel
    function, it must raise for inputs the spec refuses (the dispatcher checks no spec's input
    rule while kernels succeed): where its library would accept them, it checks (numpy's
    matmul takes 1-d inputs, which MatMul's spec refuses).
    """

    __slots__ = ("dtypes", "function", "specialize")
    dtypes: frozenset[DType]
    function: DirectFunc | None
    specialize: Callable[[Mapping[str, Any]], DirectFunc | None] | None

    def __init__(self, dtypes: Iterable[DType], function: DirectFunc | None = None, *,
                 specialize: Callable[[Mapping[str, Any]], DirectFunc | None] | None = None) -> None:
        given = (dtypes,) if isinstance(dtypes, DType) else tuple(dtypes)
        wrong = [d for d in given if not isinstance(d, DType)]
        if wrong or not given:
            raise RegistrationError(
                f"DirectCall: dtypes must be tensorplug dtypes (tp.float32, ...), got {list(given)!r}. "
                "Name the input dtypes the direct functions serve, e.g. DirectCall((tp.float32,), fn)."
            )
        if (function is None) == (specialize is None):
            raise RegistrationError(
                "DirectCall takes exactly one of `function` (a kernel without attributes) and "
                "`specialize` (attribute values -> function or None)."
            )
        for what, value in (("function", function), ("specialize", specialize)):
            if value is not None and not callable(value):
                raise RegistrationError(f"DirectCall: {what} must be callable, got {type(value).__name__}.")
        self._set(dtypes=frozenset(given), function=function, specialize=specialize)

    def for_attrs(self, attrs: Mapping[str, Any]) -> DirectFunc | None:
        """The direct function for these (complete, validated) attribute values, or None."""
        if self.function is not None:
            return self.function
        assert self.specialize is not None
        return self.specialize(attrs)


class KernelConfig(Record):
    """The implementation of one kernel name for one backend.

    ``kernel_func(inputs, attrs, backend)`` is the kernel (see ``KernelFunc``); ``direct``
    optionally offers the dispatcher faster calls for some dtypes (see ``DirectCall``).
    ``dtypes`` optionally narrows the backend's dtypes (``BackendConfig.dtypes``) for this
    kernel: the input dtypes it serves (an input of another dtype is a DTypeError naming the
    nearest one it serves), and the only ones the conformance kit tests it in.
    ``setup_func(backend)`` runs when the backend starts (or when the kernel becomes the active
    one of its slot on a started backend); ``dispose_func(backend)`` when it stops being active
    (unregistered, or shadowed by an override) or the backend is disposed.
    """

    __slots__ = ("kernel_name", "backend_name", "kernel_func", "setup_func", "dispose_func", "direct",
                 "dtypes")
    kernel_name: str
    backend_name: str
    kernel_func: KernelFunc
    setup_func: Callable[[Any], None] | None
    dispose_func: Callable[[Any], None] | None
    direct: DirectCall | None
    dtypes: frozenset[DType] | None

    def __init__(self, kernel_name: str, backend_name: str, kernel_func: KernelFunc,
                 setup_func: Callable[[Any], None] | None = None,
                 dispose_func: Callable[[Any], None] | None = None, *,
                 direct: DirectCall | None = None, dtypes: Iterable[DType] | None = None) -> None:
        where = f"KernelConfig for '{kernel_name}' on backend '{backend_name}'"
        self._set(kernel_name=kernel_name, backend_name=backend_name, kernel_func=kernel_func,
                  setup_func=setup_func, dispose_func=dispose_func, direct=direct,
                  dtypes=declared_dtypes(dtypes, where))


def check_kernel_config(config: KernelConfig, spec: KernelSpec) -> None:
    """Raise RegistrationError saying what to fix if `config` does not fit its kernel `spec`."""
    where = f"KernelConfig for '{config.kernel_name}' on backend '{config.backend_name}'"
    if not isinstance(config.kernel_name, str) or not isinstance(config.backend_name, str):
        raise RegistrationError(f"{where}: kernel_name and backend_name must be strings.")
    for name in ("kernel_func", "setup_func", "dispose_func"):
        value = getattr(config, name)
        if (value is not None or name == "kernel_func") and not callable(value):
            raise RegistrationError(f"{where}: {name} must be callable, got {type(value).__name__}.")
    direct = config.direct
    if direct is None:
        return
    if not isinstance(direct, DirectCall):
        raise RegistrationError(f"{where}: direct must be a DirectCall, got {type(direct).__name__}.")
    if config.dtypes is not None and not direct.dtypes <= config.dtypes:
        extra = sorted(d.name for d in direct.dtypes - config.dtypes)
        raise RegistrationError(
            f"{where}: its DirectCall serves {extra}, which the config's dtypes leave out; a "
            "direct call serves some of the kernel's dtypes: add them to dtypes, or leave them "
            "out of the DirectCall."
        )
    if len(spec.outputs) != 1 or spec.variadic:
        raise RegistrationError(
            f"{where}: direct calls are for kernels of a fixed number of inputs and one output; "
            f"'{spec.name}' has outputs {list(spec.outputs)}"
            + (" and variadic inputs" if spec.variadic else "") + ". Leave direct=None."
        )
    if spec.attrs and direct.function is not None:
        raise RegistrationError(
            f"{where}: '{spec.name}' has attributes {[a.name for a in spec.attrs]}, so one function "
            "cannot serve every call; give DirectCall(dtypes, specialize=fn) with fn(attrs) -> "
            "function or None."
        )
    if not spec.attrs and direct.specialize is not None:
        raise RegistrationError(
            f"{where}: '{spec.name}' has no attributes; give DirectCall(dtypes, function) instead "
            "of specialize."
        )
