"""The shared conformance tests: each runs ``tensorplug.testing.opcheck`` for one kernel on the
backend named by ``--tensorplug-backend`` (the pytest plugin parametrizes them)."""

from __future__ import annotations

from typing import Any


def test_kernel(tensorplug_conformance: Any, tensorplug_kernel: str, request: Any) -> None:
    """The kernel exists; outputs have the spec's shapes, dtypes and the reference values;
    bad inputs raise the spec's typed errors."""
    tensorplug_conformance.check("kernel", tensorplug_kernel, request.node)


def test_gradient(tensorplug_conformance: Any, tensorplug_gradient: str, request: Any) -> None:
    """The kernel's gradient is registered and agrees with finite differences; so does forward
    mode through it (its JVP rule, or its gradient transposed)."""
    tensorplug_conformance.check("gradient", tensorplug_gradient, request.node)


def test_batching(tensorplug_conformance: Any, tensorplug_batching: str, request: Any) -> None:
    """The kernel's batching rule (tp.vmap), where it has one, agrees with a loop over the batch."""
    tensorplug_conformance.check("batching", tensorplug_batching, request.node)
