"""The extension surface: everything a plugin, backend or gradient author needs, in one place.

Configs (``KernelSpec``, ``KernelConfig`` with its ``DirectCall``, ``GradConfig``,
``BackendConfig``, ``OpConfig``), their ``register_*``/``unregister_*``/``get_*`` verbs, the
``Backend`` base class, the ``Dispatcher`` an op runs its kernel with (core ops use the same
one), pluggy's ``hookimpl`` marker for the hooks in ``tensorplug.plugins.hookspecs``, the
``Runtime`` that holds all registrations (``current_runtime()``, ``use_runtime``), and the
helpers kernels and gradients are written with (those of ``tensorplug.kernel_helpers`` among
them).
"""

from __future__ import annotations

from ._version import API_VERSION
from .backend import (
    Backend,
    BackendConfig,
    backend_info,
    dispose_backend,
    register_backend,
    start_backend,
    unregister_backend,
)
from .dispatch import Dispatcher
from .engine import run_kernel, wrap
from .gradients._util import unbroadcast
from .jit import tracing
from .kernel_helpers import (
    ACCUMULATOR_DTYPES,
    BINARY_KERNELS,
    COMPLEX_SPECIAL_CASES,
    PLAIN_ARITHMETIC,
    UNARY_KERNELS,
    avg_pool_divisor,
    band_part,
    batch_to_space,
    check_index_bounds,
    check_nd_index_bounds,
    clip_bounds,
    depth_to_space,
    elementwise_functions,
    expm1_complex_parts,
    fill_empty_rows,
    floor_divide_floats,
    normalize_axis,
    output_sizes,
    pool_window,
    range_dtype,
    range_length,
    slice_index,
    space_to_batch,
    space_to_depth,
    sparse_reshape_indices,
    sparse_reshape_shape,
    stable_argsort,
    tap_slices,
    window_taps,
)
from .kernel_spec import REQUIRED, AttrSpec, KernelSpec, TensorInfo
from .plan import PlannedFunction
from .plugins.hookspecs import hookimpl
from .plugins.manager import (
    PluginInfo,
    PluginProblem,
    contributions,
    list_plugins,
    load_plugins,
    plugin_problems,
    register_plugin,
    unregister_plugin,
)
from .registry.gradients import (
    GradConfig,
    find_gradient,
    get_gradient,
    override_gradient,
    register_gradient,
    unregister_gradient,
)
from .registry.kernels import (
    DirectCall,
    KernelConfig,
    KernelFunc,
    backends_with_kernel,
    get_kernel,
    kernels_for_backend,
    register_kernel,
    unregister_kernel,
)
from .registry.ops import OpConfig, get_op, list_ops, register_op, unregister_op
from .registry.specs import get_kernel_spec, list_kernel_specs, register_kernel_spec, unregister_kernel_spec
from .runtime import Runtime, use_runtime
from .runtime import current as current_runtime

__all__ = [
    "API_VERSION",
    # tensorplug.kernel_helpers
    "ACCUMULATOR_DTYPES", "BINARY_KERNELS", "COMPLEX_SPECIAL_CASES", "PLAIN_ARITHMETIC", "UNARY_KERNELS",
    "check_index_bounds", "clip_bounds", "elementwise_functions", "expm1_complex_parts",
    "floor_divide_floats", "normalize_axis", "range_dtype", "range_length", "slice_index", "stable_argsort",
    "avg_pool_divisor", "output_sizes", "pool_window", "tap_slices", "window_taps",  # (pooling)
    "band_part", "batch_to_space", "depth_to_space", "space_to_batch", "space_to_depth",
    "check_nd_index_bounds", "fill_empty_rows", "sparse_reshape_indices", "sparse_reshape_shape",
    # the rest
    "AttrSpec", "Backend", "BackendConfig", "DirectCall", "Dispatcher", "GradConfig",
    "KernelConfig", "KernelFunc", "KernelSpec",
    "OpConfig", "PlannedFunction", "PluginInfo", "PluginProblem", "REQUIRED", "Runtime", "TensorInfo",
    "current_runtime",
    "backend_info", "backends_with_kernel", "contributions", "dispose_backend", "find_gradient",
    "get_gradient", "get_kernel", "get_kernel_spec", "get_op", "hookimpl", "kernels_for_backend",
    "list_kernel_specs", "list_ops", "list_plugins", "load_plugins", "override_gradient",
    "plugin_problems", "register_backend", "register_gradient", "register_kernel",
    "register_kernel_spec", "register_op", "register_plugin", "run_kernel", "start_backend",
    "tracing", "unbroadcast", "unregister_backend", "unregister_gradient", "unregister_kernel",
    "unregister_kernel_spec", "unregister_op", "unregister_plugin", "use_runtime", "wrap",
]

# tensorplug.kernel_helpers: the activations' formulas
from .kernel_helpers import SELU_ALPHA, SELU_SCALE, elu_values, gelu_slope, gelu_values  # noqa: E402

__all__ += ["SELU_ALPHA", "SELU_SCALE", "elu_values", "gelu_slope", "gelu_values"]

# tensorplug.kernel_helpers: the image family's arithmetic (resize taps, sampling, NMS)
from .kernel_helpers import image_sampling  # noqa: E402

__all__ += ["image_sampling"]
