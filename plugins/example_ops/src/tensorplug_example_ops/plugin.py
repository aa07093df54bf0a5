"""The plugin module the entry point names (``[project.entry-points.tensorplug]`` in
``pyproject.toml``): hook implementations only. Each hook receives a ``register`` callable;
what it registers is recorded as coming from this plugin, ``tensorplug-example-ops``.
"""

from __future__ import annotations

from typing import Any

from tensorplug.extend import API_VERSION, OpConfig, hookimpl
from tensorplug_example_ops import kernels
from tensorplug_example_ops.clip_gradient import clip_gradient
from tensorplug_example_ops.ema import ema
from tensorplug_example_ops.erf import ERF_BATCHING, ERF_GRADIENT, ERF_JVP, ERF_ONNX, ERF_SPEC, erf
from tensorplug_example_ops.softplus import softplus
from tensorplug_example_ops.straight_through import ROUND_STRAIGHT_THROUGH, ROUND_STRAIGHT_THROUGH_JVP

#: The core API this plugin was written for; tensorplug refuses it under another one.
tensorplug_api_version = API_VERSION

#: The public ops this plugin adds: ``tp.ops.ema``, ``tp.ops.erf``, ...
OPS = (
    OpConfig("ema", ema),
    OpConfig("erf", erf),
    OpConfig("softplus", softplus),
    OpConfig("clip_gradient", clip_gradient),
)


@hookimpl
def tensorplug_kernel_specs(register: Any) -> None:
    register(ERF_SPEC)


@hookimpl
def tensorplug_kernels(backend_name: str, register: Any) -> None:
    for config in kernels.kernels_for(backend_name):
        register(config)


@hookimpl
def tensorplug_gradients(register: Any) -> None:
    register(ERF_GRADIENT)
    register(ROUND_STRAIGHT_THROUGH, override=True)  # replaces the core's zero gradient


@hookimpl
def tensorplug_jvps(register: Any) -> None:
    register(ERF_JVP)
    register(ROUND_STRAIGHT_THROUGH_JVP, override=True)  # forward mode agrees with the gradient


@hookimpl
def tensorplug_batching_rules(register: Any) -> None:
    register(ERF_BATCHING)


@hookimpl
def tensorplug_onnx_lowerings(register: Any) -> None:
    register(ERF_ONNX)  # tp.export.onnx writes the plugin's kernel too


@hookimpl
def tensorplug_ops(register: Any) -> None:
    for config in OPS:
        register(config)


@hookimpl
def tensorplug_references(register: Any) -> None:
    # asked only when the testing kit runs (opcheck, the conformance suite): the kit is
    # imported here, never when the plugin loads
    from tensorplug_example_ops.references import ERF_REFERENCE

    register(ERF_REFERENCE)
