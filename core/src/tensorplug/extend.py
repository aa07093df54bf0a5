"""The extension surface: everything a plugin, backend or gradient author needs, in one place.

Configs (``KernelSpec``, ``KernelConfig`` with its ``DirectCall``, ``GradConfig``,
``JvpConfig``, ``BatchConfig``, ``BackendConfig``, ``OpConfig``), their
``register_*``/``unregister_*``/``get_*``/``find_*``/``override_*`` verbs, the ``Backend`` base
class, the ``Dispatcher`` an op runs its kernel with (core ops use the same one), pluggy's
``hookimpl`` marker for the hooks in ``tensorplug.plugins.hookspecs``, the ``Runtime`` that
holds all registrations (``current_runtime()``, ``use_runtime``; ``register_core(Runtime())``
makes a working one), and the helpers kernels and
gradients are written with (those of ``tensorplug.kernel_helpers`` among them).
"""

from __future__ import annotations

from tensorplug import kernel_helpers as _kernel_helpers
from tensorplug.backends.lifecycle import (
    Backend,
    BackendConfig,
    backend_info,
    dispose_backend,
    register_backend,
    start_backend,
    unregister_backend,
)
from tensorplug.core.runtime import Runtime, use_runtime
from tensorplug.core.runtime import current as current_runtime
from tensorplug.core.version import API_VERSION
from tensorplug.exporting.context import LoweringContext
from tensorplug.families._common.gradient_util import unbroadcast
from tensorplug.families.control_flow.graphs import Graph, GraphStep, call_graph, run_graph
from tensorplug.families.registration import register_core
from tensorplug.kernel_helpers import *  # noqa: F403  (every helper: they are part of this API)
from tensorplug.kernels.dispatcher import Dispatcher, wrap
from tensorplug.kernels.kernel_spec import REQUIRED, AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.lookup import get_kernel
from tensorplug.kernels.run import run_kernel
from tensorplug.plugins.hookspecs import hookimpl
from tensorplug.plugins.manager import (
    PluginInfo,
    PluginProblem,
    contributions,
    list_plugins,
    load_plugins,
    plugin_problems,
    register_plugin,
    unregister_plugin,
)
from tensorplug.registry.batching import (
    BatchConfig,
    batching_rule_beneath,
    find_batching_rule,
    override_batching_rule,
    register_batching_rule,
    unregister_batching_rule,
)
from tensorplug.registry.family_configs import family_configs
from tensorplug.registry.gradients import (
    GradConfig,
    find_gradient,
    get_gradient,
    gradient_beneath,
    override_gradient,
    register_gradient,
    unregister_gradient,
)
from tensorplug.registry.jvps import (
    JvpConfig,
    find_jvp,
    jvp_beneath,
    override_jvp,
    register_jvp,
    unregister_jvp,
)
from tensorplug.registry.kernels import (
    DirectCall,
    KernelConfig,
    KernelFunc,
    backends_with_kernel,
    kernels_for_backend,
    register_kernel,
    unregister_kernel,
)
from tensorplug.registry.onnx_lowerings import (
    OnnxLowering,
    find_onnx_lowering,
    override_onnx_lowering,
    register_onnx_lowering,
    unregister_onnx_lowering,
)
from tensorplug.registry.ops import OpConfig, get_op, list_ops, register_op, unregister_op
from tensorplug.registry.specs import (
    get_kernel_spec,
    list_kernel_specs,
    register_kernel_spec,
    unregister_kernel_spec,
)
from tensorplug.transforms.jit.api import tracing
from tensorplug.transforms.jit.planner import PlannedFunction

__all__ = [
    "API_VERSION",
    "Graph", "GraphStep", "call_graph", "run_graph",
    "AttrSpec", "Backend", "BackendConfig", "BatchConfig", "DirectCall", "Dispatcher", "GradConfig",
    "JvpConfig", "KernelConfig", "KernelFunc", "KernelSpec", "OnnxLowering", "LoweringContext",
    "OpConfig", "PlannedFunction", "PluginInfo", "PluginProblem", "REQUIRED", "Runtime", "TensorInfo",
    "current_runtime", "family_configs",
    "backend_info", "backends_with_kernel", "contributions", "dispose_backend", "find_batching_rule",
    "find_gradient", "find_jvp", "find_onnx_lowering",
    "get_gradient", "get_kernel", "get_kernel_spec", "get_op", "hookimpl", "kernels_for_backend",
    "list_kernel_specs", "list_ops", "list_plugins", "load_plugins", "override_batching_rule",
    "override_gradient", "override_jvp", "override_onnx_lowering",
    "plugin_problems", "register_backend", "register_batching_rule",
    "register_gradient", "register_jvp", "register_kernel", "register_onnx_lowering",
    "register_core", "register_kernel_spec", "register_op", "register_plugin", "run_kernel", "start_backend",
    "tracing", "unbroadcast", "unregister_backend",
    "unregister_batching_rule", "unregister_gradient", "unregister_jvp", "unregister_kernel",
    "unregister_kernel_spec", "unregister_onnx_lowering", "unregister_op", "unregister_plugin", "use_runtime",
    "wrap",
]
__all__ += ["gradient_beneath", "jvp_beneath", "batching_rule_beneath"]  # (an override builds on these)
__all__ += _kernel_helpers.__all__  # tensorplug.kernel_helpers
