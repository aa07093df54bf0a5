"""Tensor: an immutable handle on a backend-native n-d array; Python operators call ops."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from tensorplug.core.context import jit_tracing, plan_trace_var
from tensorplug.core.version import ARRAY_API_VERSIONS
from tensorplug.dtypes import DType
from tensorplug.errors import (
    ArgumentError,
    DTypeError,
    OutOfMemoryError,
    ShapeError,
    TensorplugError,
    TracedValueError,
)

if TYPE_CHECKING:
    from tensorplug.backends.lifecycle import Backend
    from tensorplug.ops._updates import At

__all__ = ["Tensor"]


class Tensor:
    """An immutable n-d array on one backend: ``shape``, ``dtype``, ``backend`` and the
    backend's native array. Create tensors with ops (``tp.asarray``, ``tp.zeros``, ...).

    **Tensors are immutable.** ``x[key] = v`` raises ImmutableTensorError (a TypeError); write
    ``x = x.at[key].set(v)`` instead, JAX's functional update (also ``.add``, ``.multiply``,
    ``.min``, ``.max``, ``.get``): a new tensor, differentiable with respect to x and v, for
    every key ``x[key]`` takes. Why not in-place writes guarded by a version counter, as
    PyTorch does: ``tp.jit`` on numpy replays a plan that hands out the same arrays again, the
    tensors of Python scalars (``x * 2.0``) are cached and shared, and autodiff saves inputs
    for backward without copying them; each of these relies on a tensor never changing, and a
    counter would have to be checked on each of those paths (the hot path among them) to turn
    a silent wrong answer into an error. DLPack exports are read-only where the consumer reads
    DLPack 1.0 flags (numpy); a legacy consumer (jax) must not write through them either.
    """

    __slots__ = ("_data", "_dtype", "_backend", "__weakref__")

    _data: Any
    _dtype: DType
    _backend: Backend

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ArgumentError("tp.Tensor() is not a constructor. Tensors are made by ops: use "
                            "tp.asarray(data), tp.zeros(shape), ...")

    # -- properties -------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The size of each axis, as a tuple of ints."""
        return self._backend.shape_of(self._data)

    @property
    def dtype(self) -> DType:
        """The element type, a `DType` (``tp.float32``, ``tp.int64``, ...)."""
        return self._dtype

    @property
    def ndim(self) -> int:
        """The number of axes (0 for a scalar)."""
        return self._backend.ndim_of(self._data)

    @property
    def size(self) -> int:
        """The number of elements (the product of the shape; 1 for a scalar)."""
        return math.prod(self.shape)

    @property
    def backend(self) -> str:
        """The name of the backend holding this tensor."""
        return self._backend.name

    @property
    def device(self) -> str:
        """The device the values live on, as the backend names it (``'cpu'``, ``'gpu:1'``, ...)."""
        return self._backend.device_of(self._data)

    @property
    def native(self) -> Any:
        """The backend-native array (for kernels and backend authors; do not mutate it)."""
        return self._data

    # -- conversion -------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """The values as a read-only numpy array (it may share memory with the tensor, which
        is immutable, whatever the backend's ``to_numpy`` gives: copy it to write)."""
        arr = self._host()
        if arr.flags.writeable:  # (a backend handing out a writable alias of its array)
            arr = arr.view()
            arr.flags.writeable = False
        return arr

    def _host(self) -> np.ndarray:
        """The values on the host; TracedValueError while tp.jit plans a function whose inputs
        they depend on (see ``tensorplug.transforms.jit.planner``)."""
        self._host_check()
        try:
            return self._backend.to_numpy(self._data)
        except TensorplugError:
            raise
        except Exception as exc:
            if not self._backend.out_of_memory(exc):
                raise
            raise OutOfMemoryError(
                f"Backend '{self._backend.name}' ran out of memory computing or reading a tensor of "
                f"shape {tuple(self.shape)}, dtype {self._dtype.name}: {type(exc).__name__}: {exc}. "
                "Make the tensors smaller (or free memory).") from exc

    def _host_check(self, what: str = "") -> None:
        """TracedValueError while tp.jit plans a function whose inputs this value depends on."""
        if jit_tracing[0]:
            recorder = plan_trace_var.get()
            if recorder is not None and recorder.depends_on_inputs(self._data):
                raise TracedValueError(
                    f"tp.jit on backend '{self._backend.name}'{': ' + what if what else ''}: this "
                    f"value (shape {tuple(self.shape)}, "
                    f"dtype {self._dtype.name}) depends on the function's inputs, which tp.jit does not "
                    "know while it traces the function: make it a static argument (tp.jit(f, "
                    "static_argnums=...)), use ops instead of Python control flow on tensor values "
                    "(e.g. tp.where), or call it outside tp.jit."
                )

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        arr = self.numpy()
        if dtype is not None:
            arr = arr.astype(dtype, copy=False)
        if copy:
            arr = arr.copy()
        return arr

    def item(self) -> bool | int | float | complex:
        """The one element as a Python bool, int, float or complex; ShapeError if the tensor has more."""
        arr = self._host()
        if arr.size != 1:
            raise ShapeError(f"item() needs a tensor with one element, got shape {self.shape}.")
        return arr.item()

    def tolist(self) -> Any:
        """The values as nested Python lists (a scalar gives a Python number)."""
        return self.numpy().tolist()

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The tensorplug module, the Array API namespace of tensors (for ``api_version``
        None, the latest of ``ARRAY_API_VERSIONS``, or an earlier one it includes)."""
        if api_version is not None and api_version not in ARRAY_API_VERSIONS:
            raise ArgumentError(f"tensorplug implements the Array API standard {ARRAY_API_VERSIONS[-1]} "
                                f"(and {', '.join(ARRAY_API_VERSIONS[:-1])}), not {api_version!r}.")
        return sys.modules["tensorplug"]  # (the package this module is in: loaded before it)

    def __complex__(self) -> complex:
        return complex(self.item())

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ShapeError(
                f"The truth value of a tensor of shape {self.shape} is ambiguous; "
                "use tp.any(x) or tp.all(x)."
            )
        return bool(self.item())

    def _real_item(self, to: str) -> bool | int | float:
        item = self.item()
        if isinstance(item, complex):
            raise DTypeError(f"cannot convert a {self._dtype.name} tensor to {to}: it would drop the "
                             "imaginary part; use complex(x), or tp.real(x) first.")
        return item

    def __float__(self) -> float:
        return float(self._real_item("float"))

    def __int__(self) -> int:
        return int(self._real_item("int"))

    def __index__(self) -> int:
        if not self._dtype.is_integer or self.size != 1:
            raise DTypeError("only integer tensors with one element can be used as an index, got "
                            f"{self._dtype.name}{list(self.shape)}")
        return int(self._real_item("int"))

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        try:
            body = np.array2string(np.asarray(self.numpy()), separator=", ", prefix="Tensor(")
        except TracedValueError:  # inside tp.jit: no values, only shape and dtype
            return f"Tensor(<traced>, shape={self.shape}, dtype={self._dtype.name}, backend={self.backend!r})"
        return f"Tensor({body}, dtype={self._dtype.name}, backend={self.backend!r})"

    def __str__(self) -> str:
        try:
            return str(self.numpy())
        except TracedValueError:
            return f"<traced tensor, shape={self.shape}, dtype={self._dtype.name}>"

    __hash__ = None  # type: ignore[assignment]

    def __pos__(self) -> Tensor:
        return self

    # The methods that are ops, set on the class by tensorplug.ops.tensor_methods (ops import
    # Tensor, so this module cannot import them); declared here for readers and type checkers.
    if TYPE_CHECKING:
        @property
        def T(self) -> Tensor:
            """The transpose of a 2-d tensor; ShapeError for any other rank (use ``.mT``)."""
        @property
        def mT(self) -> Tensor:
            """The transpose of the last two axes (``tp.matrix_transpose``); needs at least 2 axes."""
        @property
        def at(self) -> At:
            """Functional updates, as JAX's: ``x.at[key].set(v)`` (``.add``, ``.multiply``, ``.min``,
            ``.max``, ``.get``) returns a new tensor, x with the places ``x[key]`` addresses updated;
            differentiable with respect to x and v. Inside ``tp.jit`` and ``tp.vmap``, where a key
            tensor's values are unknown, ``.set`` and ``.add`` take integer tensors for x's leading
            axes (``x.at[i].add(v)``, ``x.at[i, j].set(v)``)."""
        def astype(self, dtype: Any, *, copy: bool = True, device: Any = None) -> Tensor:
            """This tensor cast to `dtype` (``tp.astype``); the same tensor if it already has it."""
        def to(self, backend: str) -> Tensor:
            """This tensor's values on another backend."""
        def to_device(self, device: Any, /, *, stream: Any = None) -> Tensor:
            """This tensor on `device`, a device of its backend (``tp.device_put``)."""
        def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
            """numpy ufuncs on tensors: ``np.exp(t)`` and ``np_array + t`` run tensorplug's ops (a
            Tensor comes back); other ufuncs run in numpy on the values (see ``ops._ufuncs``)."""
        def __dlpack__(self, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                       dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
            """A DLPack capsule of the values for another library's ``from_dlpack`` (zero-copy where
            the backend allows; consumers must not write to it: tensors are immutable)."""
        def __dlpack_device__(self) -> tuple[int, int]:
            """``(device_type, device_id)`` of the values as DLPack numbers them (1 = CPU)."""
        def __reduce__(self) -> tuple[Any, ...]: ...
        def __getitem__(self, key: Any) -> Tensor: ...
        def __setitem__(self, key: Any, value: Any, /) -> None:
            """Always ImmutableTensorError: tensors are immutable; ``x = x.at[key].set(value)``."""
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __rand__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __ror__(self, other: Any) -> Tensor: ...
        def __xor__(self, other: Any) -> Tensor: ...
        def __rxor__(self, other: Any) -> Tensor: ...
        def __lshift__(self, other: Any) -> Tensor: ...
        def __rlshift__(self, other: Any) -> Tensor: ...
        def __rshift__(self, other: Any) -> Tensor: ...
        def __rrshift__(self, other: Any) -> Tensor: ...
        def __eq__(self, other: Any) -> Tensor: ...  # type: ignore[override]
        def __ne__(self, other: Any) -> Tensor: ...  # type: ignore[override]
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...

    def __copy__(self) -> Tensor:  # (copying and pickling: see tensorplug.io.pickling)
        return self  # (immutable, as a tuple is: the copy is the tensor itself)

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        return self


