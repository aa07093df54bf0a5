"""Kernel specs: the contract between the core and every backend for one kernel name.

A spec names the kernel's inputs (in the order kernels receive them), its attributes (defaults
and validation), the dtypes each input accepts and a rule that gives output shapes and dtypes
from input shapes and dtypes. Error messages, the conformance kit and abstract evaluation all
come from it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from tensorplug.core.records import Record
from tensorplug.core.validate import shown
from tensorplug.dtypes import DType
from tensorplug.errors import ArgumentError, DTypeError, RegistrationError, ShapeError

if TYPE_CHECKING:
    from tensorplug.core.tensor import Tensor

__all__ = ["REQUIRED", "AttrSpec", "KernelSpec", "TensorInfo", "describe"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Marks an attribute without a default.
REQUIRED: Any = _Required()


class TensorInfo(NamedTuple):
    """Shape and dtype of a tensor, as specs see them."""

    shape: tuple[int, ...]
    dtype: DType


def tensor_info(t: Tensor) -> TensorInfo:
    """A tensor's shape and dtype, as kernel specs read them."""
    return TensorInfo(tuple(t.shape), t._dtype)


def describe(info: TensorInfo) -> str:
    """'float32[2, 3]'-style text for messages."""
    return f"{info.dtype.name}[{', '.join(str(d) for d in info.shape)}]"


class AttrSpec(Record):
    """One kernel attribute: name, default, and a validator that returns the normalized value
    or raises ShapeError/DTypeError/ValueError saying what is wrong."""

    __slots__ = ("name", "default", "validate", "doc")
    name: str
    default: Any
    validate: Callable[[Any], Any] | None
    doc: str

    def __init__(self, name: str, default: Any = REQUIRED, validate: Callable[[Any], Any] | None = None,
                 doc: str = "") -> None:
        self._set(name=name, default=default, validate=validate, doc=doc)


InferRule = Callable[[Sequence[TensorInfo], Mapping[str, Any]], Sequence[TensorInfo]]


class KernelSpec(Record):
    """The contract of one kernel name.

    ``inputs`` are positional (kernels receive a tuple in this order); with ``variadic=True``
    the kernel takes any number (>= 1) of tensors under the one input name. ``input_dtypes``
    maps an input name to the dtypes it accepts (all, if absent); the names in
    ``same_dtype`` must share one dtype. ``infer`` returns one TensorInfo per output.
    ``domain`` is the open interval of input values where the kernel is defined, e.g.
    ``(0, math.inf)`` for a logarithm (default: every real number); the testing kit samples
    there for a kernel it has no reference for. ``outputs=()`` declares a kernel of as many
    outputs as ``infer`` gives for its attributes (SplitV, Unpack): it always returns a tuple,
    of outputs named ``out[i]`` (``output_names``).
    """

    __slots__ = ("name", "inputs", "infer", "attrs", "outputs", "input_dtypes", "same_dtype",
                 "differentiable", "variadic", "doc", "domain")
    name: str
    inputs: tuple[str, ...]
    infer: InferRule
    attrs: tuple[AttrSpec, ...]
    outputs: tuple[str, ...]
    input_dtypes: Mapping[str, tuple[DType, ...]]
    same_dtype: tuple[str, ...]
    differentiable: bool
    variadic: bool
    doc: str
    domain: tuple[float, float]

    def __init__(self, name: str, inputs: tuple[str, ...], infer: InferRule,
                 attrs: tuple[AttrSpec, ...] = (), outputs: tuple[str, ...] = ("out",),
                 input_dtypes: Mapping[str, tuple[DType, ...]] | None = None,
                 same_dtype: tuple[str, ...] = (), differentiable: bool = True, variadic: bool = False,
                 doc: str = "", domain: tuple[float, float] = (-math.inf, math.inf)) -> None:
        low, high = domain
        if not low < high:
            raise RegistrationError(
                f"KernelSpec '{name}': domain must be (low, high) with low < high (math.inf for "
                f"no bound), got {domain!r}."
            )
        self._set(name=name, inputs=inputs, infer=infer, attrs=attrs, outputs=outputs,
                  input_dtypes={} if input_dtypes is None else input_dtypes, same_dtype=same_dtype,
                  differentiable=differentiable, variadic=variadic, doc=doc, domain=domain)

    def input_names(self, count: int) -> tuple[str, ...]:
        """The names of `count` inputs in messages: ``inputs``, or ``x[i]`` for a variadic kernel
        whose one input name is ``x``."""
        return tuple(f"{self.inputs[0]}[{i}]" for i in range(count)) if self.variadic else self.inputs

    def output_names(self, count: int) -> tuple[str, ...]:
        """The names of the kernel's `count` outputs: ``outputs``, or ``out[i]`` for a kernel
        whose number of outputs follows its attributes (``outputs=()``)."""
        return self.outputs if self.outputs else tuple(f"out[{i}]" for i in range(count))

    def attr_defaults(self) -> dict[str, Any]:
        """Each attribute's default, by name (``REQUIRED`` for one without)."""
        return {a.name: a.default for a in self.attrs}

    def normalize_attrs(self, attrs: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults, refuse unknown or missing attributes, run each validator; an `attrs`
        that is not a mapping of names is an ArgumentError naming the kernel."""
        if attrs is not None and not isinstance(attrs, Mapping):
            raise ArgumentError(f"kernel '{self.name}': attrs must be a dict of attribute names to values "
                                f"(or None), got {type(attrs).__name__}; its attributes are "
                                f"{sorted(a.name for a in self.attrs) or 'none'}.")
        attrs = dict(attrs or {})
        known = {a.name for a in self.attrs}
        unknown = sorted(set(attrs) - known, key=repr)
        if unknown:
            raise ShapeError(
                f"kernel '{self.name}' has no attribute(s) {unknown}; its attributes are "
                f"{sorted(known) or 'none'}."
            )
        out: dict[str, Any] = {}
        for a in self.attrs:
            if a.name in attrs:
                value = attrs[a.name]
            elif a.default is REQUIRED:
                raise ShapeError(
                    f"kernel '{self.name}' needs the attribute '{a.name}'"
                    + (f" ({a.doc})" if a.doc else "")
                    + "; pass it in attrs."
                )
            else:
                value = a.default
            if a.validate is not None:
                try:
                    value = a.validate(value)
                except (ShapeError, DTypeError):
                    raise
                except (TypeError, ValueError, OverflowError) as exc:  # (an int past any float)
                    raise (DTypeError if isinstance(exc, TypeError) else ShapeError)(
                        f"kernel '{self.name}': attribute '{a.name}'={shown(value)} is invalid: {exc}"
                    ) from exc
            out[a.name] = value
        return out

    def check(self, infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> tuple[TensorInfo, ...]:
        """Validate inputs and attributes; return output infos or raise a typed error."""
        if self.variadic:
            if len(infos) < 1:
                raise ShapeError(f"kernel '{self.name}' needs at least one input tensor.")
            names = [f"{self.inputs[0]}[{i}]" for i in range(len(infos))]
            groups = {n: self.inputs[0] for n in names}
        else:
            if len(infos) != len(self.inputs):
                raise ShapeError(
                    f"kernel '{self.name}' takes {len(self.inputs)} input(s) "
                    f"{list(self.inputs)}, got {len(infos)}."
                )
            names = list(self.inputs)
            groups = {n: n for n in names}
        for name, info in zip(names, infos):
            allowed = self.input_dtypes.get(groups[name])
            if allowed is not None and info.dtype not in allowed:
                raise DTypeError(
                    f"kernel '{self.name}' input '{name}' must have dtype "
                    f"{' or '.join(d.name for d in allowed)}; got {info.dtype.name}."
                )
        same = [(n, i) for n, i in zip(names, infos) if groups[n] in self.same_dtype]
        if len({i.dtype for _, i in same}) > 1:
            got = ", ".join(f"{n}: {i.dtype.name}" for n, i in same)
            raise DTypeError(
                f"kernel '{self.name}' needs inputs {list(self.same_dtype)} to share one dtype; "
                f"got {got}. Cast with .astype() first (ops do this for you)."
            )
        return tuple(self.infer(infos, attrs))
