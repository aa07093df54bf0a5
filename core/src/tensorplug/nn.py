"""``tp.nn``: neural-network ops with JAX/Flax-like functional signatures: activations,
softmax and cross-entropies, dropout, convolutions, pooling, normalization, and TF's
space/depth/batch rearrangements. Losses with ``reduction=`` are in ``tp.losses``."""

from __future__ import annotations

from tensorplug.ops import activations as _activations
from tensorplug.ops.activations import *  # noqa: F403
from tensorplug.ops.attention import dot_product_attention, embedding
from tensorplug.ops.convolution import conv, conv_transpose, depthwise_conv, separable_conv
from tensorplug.ops.dropout import dropout
from tensorplug.ops.fused import fused_conv, fused_matmul
from tensorplug.ops.layout import batch_to_space_nd, depth_to_space, space_to_batch_nd, space_to_depth
from tensorplug.ops.nn import (
    log_softmax,
    logsumexp,
    one_hot,
    relu,
    sigmoid,
    softmax,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from tensorplug.ops.normalization import (
    batch_norm,
    batch_norm_train,
    layer_norm,
    local_response_normalization,
    moments,
)
from tensorplug.ops.pooling import avg_pool, dilation2d, max_pool, max_pool_with_argmax

__all__ = [
    "log_softmax", "logsumexp", "one_hot", "relu", "sigmoid", "softmax", "softmax_cross_entropy",
    "sparse_softmax_cross_entropy", "dropout",
    "conv", "conv_transpose", "depthwise_conv", "separable_conv",
    "avg_pool", "dilation2d", "max_pool", "max_pool_with_argmax",
    "batch_norm", "batch_norm_train", "layer_norm", "local_response_normalization", "moments",
    "batch_to_space_nd", "depth_to_space", "space_to_batch_nd", "space_to_depth",
]
__all__ += _activations.__all__
__all__ += ["dot_product_attention", "embedding", "fused_conv", "fused_matmul"]
