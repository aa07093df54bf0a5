"""tensorplug: a tensor framework built for extension.

Ops (``tp.add``, ``tp.matmul``, ``tp.nn.softmax``...) dispatch kernels that backends provide
through plugins; gradients are registered per kernel and written with ops. ``import
tensorplug`` imports no plugin: backends are discovered on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tensorplug import (
    dtypes,
    extend,
    fft,
    image,
    linalg,
    losses,
    ops,
    optimizers,
    random,
    sparse,
    tree_util,
)
from tensorplug.backends.devices import devices, set_default_device
from tensorplug.backends.lifecycle import (
    backend_scope,
    get_backend,
    list_backends,
    set_backend,
    set_default_backend,
)
from tensorplug.core.constants import e, inf, nan, newaxis, pi
from tensorplug.core.dtype_functions import can_cast, finfo, iinfo, isdtype, result_type
from tensorplug.core.lazy_modules import lazy_module
from tensorplug.core.namespace_info import __array_namespace_info__
from tensorplug.core.runtime import current as _current
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.core.version import API_VERSION, ARRAY_API_VERSIONS, __version__
from tensorplug.dtypes import (
    DType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from tensorplug.errors import (
    ArgumentError,
    AutodiffError,
    BackendNotFoundError,
    CheckpointError,
    CheckpointFileError,
    CheckpointNotFoundError,
    CopyError,
    DeviceError,
    DLPackError,
    DTypeError,
    ExportError,
    GradientNotFoundError,
    HyperparameterError,
    ImmutableTensorError,
    IndexOutOfRangeError,
    IndexShapeError,
    KernelError,
    KernelNotFoundError,
    KernelOutputError,
    MissingDependencyError,
    NonFiniteError,
    OutOfMemoryError,
    PluginError,
    RegistrationError,
    ShapeError,
    StateError,
    TensorplugError,
    TracedValueError,
    VariableNotFoundError,
)
from tensorplug.families._common.convert import device_put
from tensorplug.families.activations.arithmetic import *  # noqa: F403
from tensorplug.families.control_flow.ops import *  # noqa: F403
from tensorplug.families.creation.ops import *  # noqa: F403
from tensorplug.families.elementwise.bitwise import *  # noqa: F403
from tensorplug.families.elementwise.ops import *  # noqa: F403
from tensorplug.families.indexing.ops import *  # noqa: F403
from tensorplug.families.linalg.ops import *  # noqa: F403
from tensorplug.families.manipulation.ops import *  # noqa: F403
from tensorplug.families.reductions.ops import *  # noqa: F403
from tensorplug.families.registration import register_core as _register_core
from tensorplug.families.scatter_nd.ops import *  # noqa: F403
from tensorplug.families.segments.ops import *  # noqa: F403
from tensorplug.families.sorting.ops import *  # noqa: F403
from tensorplug.families.sorting.sets import *  # noqa: F403
from tensorplug.families.structure.grids import *  # noqa: F403
from tensorplug.families.structure.ops import *  # noqa: F403
from tensorplug.io.saving import load, save
from tensorplug.kernels.run import run_kernel

# the op families one by one (not `from .ops import *`) so that type checkers see every op
from tensorplug.ops import asarray, astype, to_backend
from tensorplug.ops.dlpack import *  # noqa: F403
from tensorplug.ops.tensor_methods import attach_methods as _attach_methods
from tensorplug.profiler import profile
from tensorplug.tools.debug import debug_checks, debug_nans
from tensorplug.tools.memory import memory
from tensorplug.transforms.autodiff.api import (
    custom_grad,
    grad,
    stop_gradient,
    value_and_grad,
    variable_grads,
    vjp,
)
from tensorplug.transforms.autodiff.checkpoint import checkpoint
from tensorplug.transforms.autodiff.custom_jvp import custom_jvp
from tensorplug.transforms.autodiff.forward import jvp, linearize
from tensorplug.transforms.autodiff.jacobians import hessian, hvp, jacfwd, jacrev
from tensorplug.transforms.jit.api import jit
from tensorplug.transforms.vmap.api import vmap

if TYPE_CHECKING:
    from tensorplug import callbacks, data, export, metrics, nn
else:  # what only some programs use, run at the first read of one of their attributes (issue 37)
    callbacks = lazy_module("tensorplug.callbacks")
    data = lazy_module("tensorplug.data")
    export = lazy_module("tensorplug.export")
    metrics = lazy_module("tensorplug.metrics")
    nn = lazy_module("tensorplug.nn")

bool = bool_  # noqa: A001  (tp.bool, as the Array API names it)
__array_api_version__ = ARRAY_API_VERSIONS[-1]

__all__ = [
    "__version__", "API_VERSION",
    "Tensor", "Variable", "DType", "bool", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "dtypes", "export", "extend", "fft", "linalg", "nn", "optimizers", "random", "run_kernel", "jit",
    "__array_api_version__", "__array_namespace_info__", "e", "inf", "nan", "newaxis", "pi",
    "finfo", "iinfo", "can_cast", "isdtype", "result_type",
    "grad", "value_and_grad", "vjp", "variable_grads", "custom_grad", "stop_gradient", "checkpoint",
    "jvp", "linearize", "jacfwd", "jacrev", "hessian", "hvp", "custom_jvp", "vmap", "tree_util",
    "get_backend", "set_backend", "set_default_backend", "list_backends", "backend_scope", "debug_nans",
    "debug_checks", "profile", "memory",
    "device_put", "devices", "set_default_device",
    "TensorplugError", "ShapeError", "DTypeError", "KernelNotFoundError", "BackendNotFoundError",
    "GradientNotFoundError", "RegistrationError", "KernelError", "AutodiffError", "PluginError",
    "IndexOutOfRangeError", "IndexShapeError", "VariableNotFoundError", "DeviceError", "TracedValueError",
    "NonFiniteError", "KernelOutputError", "ExportError",
    "HyperparameterError", "StateError", "ArgumentError", "OutOfMemoryError",
    "DLPackError", "CopyError", "ImmutableTensorError",
    "save", "load", "CheckpointError", "CheckpointNotFoundError", "CheckpointFileError",
    "MissingDependencyError",
]
__all__ += ops.__all__
__all__ += ["losses"]
__all__ += ["sparse"]
__all__ += ["image"]
__all__ += ["callbacks", "data", "metrics"]

_attach_methods(Tensor)  # Tensor's operators and its methods that are ops
_register_core(_current())  # the default runtime: the core's entries; nothing else registers at import
