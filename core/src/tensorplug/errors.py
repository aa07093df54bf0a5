"""tensorplug's error types: one base class, subclasses that are also the Python built-in a user
would catch (ValueError for shapes, TypeError for dtypes, LookupError for missing things)."""

from __future__ import annotations

__all__ = [
    "TensorplugError",
    "ShapeError",
    "DTypeError",
    "ArgumentError",
    "OutOfMemoryError",
    "KernelNotFoundError",
    "KernelSpecNotFoundError",
    "BackendNotFoundError",
    "DeviceError",
    "IndexOutOfRangeError",
    "IndexShapeError",
    "GradientNotFoundError",
    "RegistrationError",
    "RegistrationConflictError",
    "VariableNotFoundError",
    "HyperparameterError",
    "StateError",
    "KernelError",
    "KernelOutputError",
    "TracedValueError",
    "DLPackError",
    "CopyError",
    "ImmutableTensorError",
    "NonFiniteError",
    "AutodiffError",
    "PluginError",
    "PluginVersionError",
    "TensorplugWarning",
    "TensorplugPluginWarning",
    "VmapFallbackWarning",
    "CheckpointError",
    "CheckpointNotFoundError",
    "CheckpointFileError",
    "MissingDependencyError",
    "ExportError",
]


class TensorplugError(Exception):
    """Base class of every error tensorplug raises on purpose."""


class ShapeError(TensorplugError, ValueError):
    """Shapes (or attribute values that act on shapes) do not fit an op's or kernel's contract."""


class DTypeError(TensorplugError, TypeError):
    """A dtype is not accepted by an op or kernel."""


class ArgumentError(TensorplugError, TypeError):
    """An op's argument is of a kind it does not take (a backend name that is not a string, a
    function that is not callable, an array where a flag belongs); the message names the op,
    the argument and what it accepts."""


class OutOfMemoryError(TensorplugError, MemoryError):
    """A kernel ran out of memory: the message names the kernel, the backend and the shapes."""


class KernelNotFoundError(TensorplugError, LookupError):
    """No kernel is registered for a kernel name on the backend that needs it."""


class KernelSpecNotFoundError(TensorplugError, LookupError):
    """A kernel name has no kernel spec (declare it before registering kernels for it)."""


class BackendNotFoundError(TensorplugError, LookupError):
    """No backend of that name is registered."""


class DeviceError(TensorplugError, LookupError):
    """A backend has no such device (or cannot place data on it)."""


class IndexOutOfRangeError(TensorplugError, IndexError):
    """An index (in take, gather or indexing) lies outside the axis it addresses."""


class IndexShapeError(ShapeError, IndexError):
    """An index does not fit the indexed tensor's shape (more indices than axes, a boolean mask
    of other sizes); an IndexError too, as the Array API standard and numpy raise."""


class GradientNotFoundError(TensorplugError, LookupError):
    """A kernel on the path of a gradient has no registered gradient."""


class VariableNotFoundError(TensorplugError, LookupError):
    """A gradient or update names a Variable that is not live (or not given to the optimizer)."""


class HyperparameterError(TensorplugError, ValueError):
    """An optimizer's or initializer's setting is out of its range (or cannot be changed that way)."""


class StateError(TensorplugError, TypeError):
    """A state holder was given state it cannot hold (an optimizer's ``state`` of another type,
    a state tree that tp.jit cannot carry)."""


class RegistrationError(TensorplugError, ValueError):
    """A registration conflicts with an existing one or is malformed."""


class RegistrationConflictError(RegistrationError):
    """A different registration for a taken slot (kernel, gradient, spec, op, backend), at the
    same priority, without override=True, or two overrides of one slot by different sources."""


class KernelError(TensorplugError, RuntimeError):
    """A kernel raised although its inputs satisfy the kernel spec (a backend bug)."""


class KernelOutputError(KernelError):
    """A kernel returned what its spec does not promise (another number of outputs, no native
    array of its backend, another dtype or shape): a backend bug, caught by the dispatcher's
    output checks (``tensorplug.kernels.call_checks``)."""


class TracedValueError(TensorplugError, TypeError):
    """The values of a traced tensor were needed on the host (``.numpy()``, ``float()``,
    ``if tensor:``, a value-dependent shape) while ``tp.jit`` traces a function, or a traced
    tensor escaped the function it was traced in."""


class DLPackError(TensorplugError, BufferError):
    """A tensor cannot be exchanged through DLPack as asked (``__dlpack__``, ``tp.from_dlpack``):
    no copy allowed where one is needed, a device or dtype the other side cannot take."""


class CopyError(TensorplugError, ValueError):
    """``tp.asarray(..., copy=False)`` cannot share the caller's buffer: the conversion would need
    a copy (a Python sequence, a cast, another backend or device, a buffer the backend cannot
    alias)."""


class ImmutableTensorError(TensorplugError, TypeError):
    """A tensor was written in place (``x[i] = v``): tensors are immutable; use the functional
    update ``x = x.at[i].set(v)``."""


class NonFiniteError(TensorplugError, FloatingPointError):
    """While ``tp.debug_nans()`` (or ``TENSORPLUG_DEBUG_NANS=1``) is on, a kernel gave NaN or
    infinity."""


class AutodiffError(TensorplugError, ValueError):
    """Autodiff was asked for something it cannot give (non-scalar output, bad argnums, ...)."""


class PluginError(TensorplugError, RuntimeError):
    """A plugin failed to import or to register (raised only in strict mode)."""

    def __init__(self, message: str, plugin: str | None = None) -> None:
        super().__init__(message)
        self.plugin = plugin


class PluginVersionError(PluginError):
    """A plugin was built for another core API version."""


class TensorplugWarning(UserWarning):
    """The base class of tensorplug's warnings."""


class TensorplugPluginWarning(TensorplugWarning):
    """Warned once per broken plugin when plugins load in non-strict mode."""


class VmapFallbackWarning(TensorplugWarning):
    """Warned once per kernel that ``tp.vmap`` batches by a loop over the batch (it has no
    batching rule): register one (``tensorplug.extend.BatchConfig``) to batch it in one call."""


class CheckpointError(TensorplugError, ValueError):
    """A file given to ``tp.load`` is not one ``tp.save`` wrote (or is damaged), or what it
    holds does not match the tree it is restored into (``like=``)."""


class CheckpointNotFoundError(TensorplugError, FileNotFoundError):
    """``tp.load`` was given a path where there is no file."""


class CheckpointFileError(CheckpointError, OSError):
    """The file system refused ``tp.save`` or ``tp.load`` (a folder without write permission, a
    file system that holds no files such as /proc, a path that is no regular file): the message
    names the path and the cause."""


class MissingDependencyError(TensorplugError, ImportError):
    """An optional dependency a function needs is not installed (the message names the pip
    command)."""


class ExportError(TensorplugError, ValueError):
    """A function or model cannot be exported (``tp.export``): a kernel without a lowering, a
    dtype the format lacks, an argument the exporter does not take."""
