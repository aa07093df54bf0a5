"""The torch backend object: native arrays are ``torch.Tensor``s (never written after creation,
never requiring grad: tensorplug's own tape differentiates), on the CPU or a CUDA/MPS device."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import torch

from tensorplug.dtypes import DType
from tensorplug.errors import DeviceError, DTypeError
from tensorplug.extend import Backend, PlannedFunction
from tensorplug_torch import HELD_DTYPES

__all__ = ["TorchBackend", "HELD_DTYPES", "TORCH_DTYPES", "torch_dtype"]

#: tensorplug's dtypes as torch's (torch names them alike; bool_ is torch.bool)
TORCH_DTYPES: dict[DType, torch.dtype] = {d: getattr(torch, d.name) for d in HELD_DTYPES}
_FROM_TORCH = {v: k for k, v in TORCH_DTYPES.items()}
_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)  # (a comparison with the dtype, not its type, is fast)
_CPU = torch.device("cpu")


def torch_dtype(dtype: DType, kernel: str = "") -> torch.dtype:
    """The torch dtype of a tensorplug dtype the backend holds; DTypeError naming `kernel` for
    another (a kernel called past the ops, which refuse those dtypes first)."""
    try:
        return TORCH_DTYPES[dtype]
    except KeyError:
        held = ", ".join(d.name for d in HELD_DTYPES)
        where = f"Kernel '{kernel}' on backend 'torch'" if kernel else "Backend 'torch'"
        raise DTypeError(f"{where}: the backend holds no {dtype.name} tensors (torch has no arithmetic "
                         f"on them); it holds {held}: ask for one of those.") from None


class TorchBackend(Backend):
    """Holds torch tensors (on the CPU, or on ``cuda:<i>`` / ``mps`` when torch sees them).
    ``tp.jit`` compiles by planning: a trace's kernel calls, replayed."""

    packs_jit_state = False

    def __init__(self) -> None:
        self._device = _CPU
        # the dispatcher reads this on every call: an instance attribute reads faster than the
        # class's (as the numpy backend)
        self.direct_kernels = True
        # the tensor made for a Python scalar (x * 2.0) is made once and reused while tensors are
        # made on the CPU (they are never written); on another default device, each is made there
        self.reuses_scalars = True

    @property
    def device(self) -> torch.device:
        """The torch device tensors are made on (what kernels without inputs create on)."""
        return self._device

    # -- host data --------------------------------------------------------------------------
    def from_numpy(self, array: np.ndarray) -> torch.Tensor:
        array = np.array(array, order="C")  # a copy of its own (np.ascontiguousarray made 0-d 1-d)
        if array.dtype == _BFLOAT16:  # (torch reads no ml_dtypes array: its bits then)
            out = torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
        else:
            out = torch.from_numpy(array)
        return out if self._device is _CPU else out.to(self._device)

    def to_numpy(self, native: torch.Tensor) -> np.ndarray:
        """The values on the host, sharing a CPU tensor's memory (a tensor with torch's lazy
        conjugate or negative bit, which numpy cannot view, is resolved into a copy first)."""
        try:  # the common case, a plain CPU tensor: numpy views it
            return native.numpy()
        except (RuntimeError, TypeError):  # on a GPU, a lazy bit, bfloat16, requiring grad
            pass
        host = native.detach().cpu().resolve_conj().resolve_neg()
        if host.dtype == torch.bfloat16:
            return host.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        return host.numpy()

    def is_native(self, value: Any) -> bool:
        return isinstance(value, torch.Tensor)

    def dtype_of(self, native: torch.Tensor) -> DType:
        return _FROM_TORCH[native.dtype]

    def shape_of(self, native: torch.Tensor) -> tuple[int, ...]:
        return tuple(native.shape)

    # native.ndim, read in C (no Python frame, and no torch.Size built as shape_of's tuple
    # needs: tp.matmul and the gradients ask for it on every call)
    ndim_of = staticmethod(operator.attrgetter("ndim"))  # type: ignore[assignment]

    # -- devices ----------------------------------------------------------------------------
    def devices(self) -> list[str]:
        names = ["cpu"]
        if torch.cuda.is_available():
            names += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            names.append("mps")
        return names

    def default_device(self) -> str:
        return _name(self._device)

    def device_of(self, native: torch.Tensor) -> str:
        return _name(native.device)

    def device_put(self, native: torch.Tensor, where: Any) -> torch.Tensor:
        return native.to(self._device_of(where))

    def set_default_device(self, where: Any) -> None:
        device = self._device_of(where)
        self._device = _CPU if device == _CPU else device  # (from_numpy tests `is _CPU`)
        self.reuses_scalars = self._device is _CPU

    def _device_of(self, where: Any) -> torch.device:
        name = _name(where) if isinstance(where, torch.device) else where
        if not (isinstance(name, str) and name in self.devices()):
            raise DeviceError(f"Backend '{self.name}' has no device {where!r}; its devices are "
                              f"{self.devices()} (torch {torch.__version__}).")
        return torch.device(name)

    # -- DLPack: zero-copy both ways ---------------------------------------------------------
    def to_dlpack(self, native: torch.Tensor, *, stream: Any = None,
                  max_version: tuple[int, int] | None = None, dl_device: tuple[int, int] | None = None,
                  copy: bool | None = None) -> Any:
        """Zero-copy: a CPU tensor (but bfloat16, which numpy cannot export) as a read-only numpy
        view for consumers of DLPack 1.0, which says read-only (tensors are never written
        after creation; torch's own export would let numpy write them); otherwise torch's own
        export, whose consumer must not write."""
        if (max_version is not None and max_version[0] >= 1 and native.device.type == "cpu"
                and native.dtype != torch.bfloat16):
            view = native.detach().resolve_conj().resolve_neg().numpy().view()
            view.setflags(write=False)
            return view.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
        kwargs: dict[str, Any] = {"stream": stream}
        if max_version is not None:
            kwargs.update(max_version=max_version, dl_device=dl_device, copy=copy)
        return native.__dlpack__(**kwargs)

    def dlpack_device(self, native: torch.Tensor) -> tuple[int, int]:
        device_type, index = native.__dlpack_device__()
        return int(device_type), int(index)

    def from_dlpack(self, obj: Any, *, copy: bool | None = None) -> torch.Tensor:
        """``torch.from_dlpack``: shares the producer's memory unless `copy` (a torch tensor that
        requires grad is read detached: tensorplug's own tape differentiates)."""
        out = torch.from_dlpack(obj.detach() if isinstance(obj, torch.Tensor) else obj)
        return out.clone() if copy else out

    # -- compiling ------------------------------------------------------------------------------
    def compile(self, fn: Callable[..., Any], static_argnums: tuple[int, ...] = ()) -> Callable[..., Any]:
        """A plan of `fn` (``PlannedFunction``), called with tp.jit's arguments as tensors: it
        passes host arguments (numpy arrays, tensors of other backends) as numpy arrays, which
        the numpy backend's plans and jax.jit take as they are, and torch kernels do not."""
        planned = PlannedFunction(self, fn)
        from_numpy = self.from_numpy

        def run(args: list[Any], state: list[Any]) -> tuple[list[Any], list[Any]]:
            return planned([from_numpy(a) if isinstance(a, np.ndarray) else a for a in args], state)

        return run

    def out_of_memory(self, exc: BaseException) -> bool:
        return isinstance(exc, (MemoryError, torch.OutOfMemoryError))


def _name(device: torch.device) -> str:
    """A device as ``devices()`` names it: 'cpu', 'cuda:0', 'mps'."""
    if device.type == "cuda":
        return f"cuda:{device.index or 0}"
    return device.type
