"""tensorplug-example-ops: worked examples of extending tensorplug from outside its core,
one module per path of the guide ``docs/guide/custom-ops-kernels-gradients.md``:

1. ``ema.py``: an op composed from existing ops (differentiable for free);
2. ``erf.py`` + ``kernels.py``: a new kernel, ``Erf``: its spec, its numpy and jax kernels,
   the op that dispatches it and its gradient;
3. ``straight_through.py``: a gradient override of a core kernel (``Round``);
4. ``softplus.py``, ``clip_gradient.py``: ops whose gradient is given with ``tp.custom_grad``;
5. ``references.py``: the testing kit's reference values for ``Erf``.

``plugin.py`` registers them through tensorplug's hooks. Installed, the ops are reachable as
``tp.ops.ema``, ``tp.ops.erf``, ``tp.ops.softplus`` and ``tp.ops.clip_gradient``, and
importable from here. The plugin uses only ``tensorplug``'s public API, ``tensorplug.extend``
and (for its references) ``tensorplug.testing``.
"""

from tensorplug_example_ops.clip_gradient import clip_gradient
from tensorplug_example_ops.ema import ema
from tensorplug_example_ops.erf import ERF, ERF_GRADIENT, ERF_SPEC, erf
from tensorplug_example_ops.softplus import softplus
from tensorplug_example_ops.straight_through import ROUND_STRAIGHT_THROUGH

__all__ = [
    "ERF", "ERF_GRADIENT", "ERF_SPEC", "ROUND_STRAIGHT_THROUGH",
    "clip_gradient", "ema", "erf", "softplus",
]
