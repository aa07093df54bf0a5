"""Path 3 of the guide: overriding the gradient of a core kernel.

The core gives ``Round`` a zero gradient (the derivative of a step function, wherever it
exists), which stops training through a quantizer. The straight-through estimator (Bengio et
al., 2013) passes the upstream gradient through unchanged instead, as if round were the
identity. ``plugin.py`` registers it with ``override=True``, so while this plugin is installed
it replaces the core's gradient for every ``tp.round`` (``tensorplug doctor`` lists it as an
override in force); ``tensorplug.extend.unregister_plugin("tensorplug-example-ops")`` brings
the core's back. For one experiment only, use it scoped instead:
``with tensorplug.extend.override_gradient(ROUND_STRAIGHT_THROUGH): ...``.

Forward mode has its own rule per kernel: overriding a gradient leaves ``tp.jvp`` as it was.
The plugin overrides Round's JVP rule the same way (``ROUND_STRAIGHT_THROUGH_JVP``), so that
reverse and forward mode agree (and ``tp.hvp`` through a quantizer sees the estimator too).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import tensorplug as tp
from tensorplug.extend import GradConfig, JvpConfig

__all__ = ["ROUND_STRAIGHT_THROUGH", "ROUND_STRAIGHT_THROUGH_JVP"]


def _straight_through(dy: tp.Tensor, saved: tuple[tp.Tensor, ...],
                      attrs: Mapping[str, Any]) -> dict[str, Callable[[], tp.Tensor]]:
    """d round(x) / dx taken to be 1: the upstream gradient passes through."""
    return {"x": lambda: dy}


def _straight_through_jvp(primals: Any, tangents: Any, outputs: Any, attrs: Mapping[str, Any]) -> Any:
    """The tangent passes through, as if round were the identity."""
    return tangents[0]


ROUND_STRAIGHT_THROUGH = GradConfig("Round", _straight_through)
ROUND_STRAIGHT_THROUGH_JVP = JvpConfig("Round", _straight_through_jvp)
