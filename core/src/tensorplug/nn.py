"""``tp.nn``: neural-network ops with JAX/Flax-like functional signatures: activations,
softmax and cross-entropies, dropout, convolutions, pooling, normalization, and TF's
space/depth/batch rearrangements; ``tp.nn.initializers`` makes parameters' first values;
``tp.nn.Module`` and the layers build models of them.
Losses with ``reduction=`` are in ``tp.losses``."""

from __future__ import annotations

from tensorplug.families.activations import ops as _activations
from tensorplug.families.activations.ops import *  # noqa: F403
from tensorplug.families.convolution.ops import conv, conv_transpose, depthwise_conv, separable_conv
from tensorplug.families.fused.ops import fused_conv, fused_matmul
from tensorplug.families.layout.ops import (
    batch_to_space_nd,
    depth_to_space,
    space_to_batch_nd,
    space_to_depth,
)
from tensorplug.families.nn.ops import (
    log_softmax,
    logsumexp,
    one_hot,
    relu,
    sigmoid,
    softmax,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from tensorplug.families.normalization.ops import (
    batch_norm,
    batch_norm_train,
    layer_norm,
    local_response_normalization,
    moments,
)
from tensorplug.families.pooling.ops import avg_pool, dilation2d, max_pool, max_pool_with_argmax
from tensorplug.models import initializers
from tensorplug.models.containers import Lambda, Sequential
from tensorplug.models.layers.activations import (
    ELU,
    GELU,
    Activation,
    LeakyReLU,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
)
from tensorplug.models.layers.attention import MultiHeadAttention
from tensorplug.models.layers.convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    DepthwiseConv2D,
    SeparableConv2D,
)
from tensorplug.models.layers.dense import Dense
from tensorplug.models.layers.dropout import Dropout
from tensorplug.models.layers.embedding import Embedding
from tensorplug.models.layers.normalization import BatchNorm, GroupNorm, LayerNorm, RMSNorm
from tensorplug.models.layers.pooling import (
    AdaptiveAvgPool2D,
    AdaptiveMaxPool2D,
    AvgPool1D,
    AvgPool2D,
    AvgPool3D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalAvgPool3D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPool3D,
    MaxPool1D,
    MaxPool2D,
    MaxPool3D,
)
from tensorplug.models.layers.reshaping import Flatten, Reshape
from tensorplug.models.module import Module
from tensorplug.models.seeding import set_seed
from tensorplug.ops.attention import dot_product_attention, embedding
from tensorplug.ops.dropout import dropout

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
__all__ += ["initializers"]
__all__ += ["Module", "Sequential", "Lambda", "set_seed"]
__all__ += ["Dense", "Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose", "DepthwiseConv2D", "SeparableConv2D"]
__all__ += ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalAvgPool1D",
            "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
            "AdaptiveAvgPool2D", "AdaptiveMaxPool2D"]
__all__ += ["Flatten", "Reshape", "Activation", "ReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "LeakyReLU",
            "ELU", "SiLU"]
__all__ += ["BatchNorm", "LayerNorm", "GroupNorm", "RMSNorm", "Dropout", "Embedding", "MultiHeadAttention"]
