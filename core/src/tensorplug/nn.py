"""``tp.nn``: neural-network ops (softmax, cross-entropy losses, one_hot, activations)."""

from __future__ import annotations

from .ops.layout import batch_to_space_nd, depth_to_space, space_to_batch_nd, space_to_depth
from .ops.nn import (
    log_softmax,
    logsumexp,
    one_hot,
    relu,
    sigmoid,
    softmax,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from .ops.normalization import (
    batch_norm,
    batch_norm_train,
    layer_norm,
    local_response_normalization,
    moments,
)
from .ops.pooling import avg_pool, dilation2d, max_pool, max_pool_with_argmax

__all__ = [
    "log_softmax",
    "logsumexp",
    "one_hot",
    "relu",
    "sigmoid",
    "softmax",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
    "batch_to_space_nd", "depth_to_space", "space_to_batch_nd", "space_to_depth",
]

from .ops.activations import *  # noqa: E402, F403
from .ops.activations import __all__ as _activations
from .ops.dropout import dropout  # noqa: E402

__all__ += [*_activations, "dropout"]
__all__ += ["avg_pool", "dilation2d", "max_pool", "max_pool_with_argmax"]  # (issue 15: pooling)
__all__ += ["batch_norm", "batch_norm_train", "layer_norm", "local_response_normalization",
            "moments"]  # (issue 15: normalization)
