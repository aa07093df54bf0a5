"""Default gradient of MatMul (batched; batch axes broadcast, so they are summed back)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.families._common.convert import caller
from tensorplug.families._common.gradient_util import gradient, unbroadcast

Grads = Mapping[str, Callable[[], Tensor]]


# (transpose_x, transpose_y) of the product -> how each input's gradient is one MatMul of
# (dy, x, y): (first operand, second operand, transpose first, transpose second)
_RULES = {
    (False, False): (("dy", "y", False, True), ("x", "dy", True, False)),
    (False, True): (("dy", "y", False, False), ("dy", "x", True, False)),
    (True, False): (("y", "dy", False, True), ("x", "dy", False, False)),
    (True, True): (("y", "dy", True, True), ("dy", "x", True, True)),
}

# one dispatcher per pair of transposes: each call is then the dispatcher's two-input fast path
_MATMULS = {(ta, tb): caller("MatMul", {"transpose_x": ta, "transpose_y": tb})
            for ta in (False, True) for tb in (False, True)}


@gradient("MatMul", inputs=("x", "y"))
def _matmul(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """Each input's gradient is one MatMul with transposes (no Transpose kernel); batch axes
    that broadcast are summed back."""
    x, y = saved  # both at least 2-d
    rule_x, rule_y = _RULES[attrs["transpose_x"], attrs["transpose_y"]]
    values = {"dy": dy, "x": x, "y": y}

    def product(rule: tuple[str, str, bool, bool], like: Tensor) -> Tensor:
        a, b, ta, tb = rule
        out = _MATMULS[ta, tb].binary(values[a], values[b])
        return unbroadcast(out, like.shape)

    return {"x": lambda: product(rule_x, x), "y": lambda: product(rule_y, y)}
