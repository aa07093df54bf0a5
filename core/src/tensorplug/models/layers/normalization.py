"""Normalization layers: ``BatchNorm`` (Keras's BatchNormalization, running statistics as
non-trainable Variables), ``LayerNorm``, ``GroupNorm`` and ``RMSNorm``. Each is sized by its
input (the dimensions on its axes, at the first call) unless given ``in_features``, and holds
``gamma`` (scale, ones) and ``beta`` (offset, zeros) shaped like those dimensions."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.errors import ShapeError
from tensorplug.families._common.convert import to_float
from tensorplug.families.activations.arithmetic import rsqrt
from tensorplug.families.elementwise.ops import add, multiply, square
from tensorplug.families.manipulation.ops import moveaxis, permute_dims, reshape
from tensorplug.families.normalization.ops import batch_norm, batch_norm_train, layer_norm, moments
from tensorplug.families.reductions.ops import mean
from tensorplug.models.initializers import ones, zeros
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers import inputs
from tensorplug.models.module import Module

__all__ = ["BatchNorm", "LayerNorm", "GroupNorm", "RMSNorm"]


class _Normalization(Module):
    """What the four share: the axes, epsilon, gamma and beta over the dimensions on the axes,
    the checks of an input against them."""

    def __init__(self, axis: Any, epsilon: Any, center: Any, scale: Any, in_features: Any,
                 seed: Any, key: Any = None) -> None:
        name = type(self).__name__
        self.axis = args.axes(axis, name)
        self.epsilon = args.epsilon(epsilon, name)
        self.center = valid.flag(center, name, "center")
        self.scale = valid.flag(scale, name, "scale")
        source = args.seed_or_key(seed, key, name)  # (a key is checked, and unused: ones and zeros)
        self.seed = None if isinstance(source, Tensor) else source
        self.built = False
        if in_features is not None:
            sizes = in_features if isinstance(in_features, (list, tuple)) else (in_features,)
            count = len(self.axis) if isinstance(self.axis, tuple) else 1
            if len(sizes) != count:
                raise ShapeError(f"{name}: in_features {in_features!r} must give one size per axis of axis="
                                 f"{self.axis!r} ({count}).")
            self._make(tuple(args.positive_int(s, name, "in_features") for s in sizes), None)

    def build(self, input_shape: tuple[int | None, ...], dtype: Any = None) -> None:
        """Make the variables for the dimensions of `input_shape` on the layer's axes."""
        sizes = tuple(input_shape[a] for a in inputs.flat_axes(self.axis, len(input_shape)))
        if any(s is None for s in sizes):
            raise ShapeError(f"the dimensions on axis {self.axis!r} of input shape "
                             f"{input_shape} must be known to build the layer.")
        self._make(sizes, dtype)  # type: ignore[arg-type]

    def _make(self, sizes: tuple[int, ...], dtype: Any) -> None:
        dt = inputs.variable_dtype(dtype)
        self.features = sizes
        if self.scale:
            self.gamma = Variable(ones(sizes, dt, seed=self.seed))
        if self.center:
            self.beta = Variable(zeros(sizes, dt, seed=None if self.seed is None else self.seed + 1))
        self.built = True

    def _axes_of(self, x: Tensor, minimum_ndim: int = 1) -> tuple[int, ...]:
        """The input's axes the layer normalizes over, after checking its rank and sizes (the
        messages leave the layer's name to Module.__call__, which adds it with its path)."""
        if x.ndim < minimum_ndim:
            raise ShapeError(f"expected an input of at least {minimum_ndim} dimensions, got shape {x.shape}.")
        axes = inputs.flat_axes(self.axis, x.ndim)
        if tuple(x.shape[a] for a in axes) != self.features:
            raise ShapeError(f"expected {self._features_text()} on axis {self.axis!r} (the layer was built "
                             f"for that), got an input of shape {x.shape}; make a new layer for inputs of "
                             "another size.")
        return axes

    def _features_text(self) -> str:
        return f"size {self.features[0]}" if len(self.features) == 1 else f"sizes {self.features}"

    def _along(self, param: Tensor | None, axes: tuple[int, ...], ndim: int) -> Tensor | None:
        """A parameter shaped by the layer's axes, reshaped to broadcast against an input of
        `ndim` dimensions (as is when those are the trailing axes in order)."""
        if param is None or axes == tuple(range(ndim - len(axes), ndim)):
            return param
        order = sorted(range(len(axes)), key=lambda i: axes[i])
        if order != list(range(len(axes))):
            param = permute_dims(param, tuple(order))
        shape = [1] * ndim
        for i, a in enumerate(sorted(axes)):
            shape[a] = param.shape[i]
        return reshape(param, tuple(shape))

    def _affine(self, y: Tensor, axes: tuple[int, ...]) -> Tensor:
        if self.scale:
            y = multiply(y, self._along(self.gamma, axes, y.ndim))
        if self.center:
            y = add(y, self._along(self.beta, axes, y.ndim))
        return y


class BatchNorm(_Normalization):
    """Batch normalization with Keras's semantics (``keras.layers.BatchNormalization``): in
    training mode the input is normalized over every axis but `axis` (the channels) with the
    batch's mean and biased variance, and the running statistics move to
    ``moving = moving * momentum + batch * (1 - momentum)`` (Keras's momentum; PyTorch's is
    ``1 - momentum``, and PyTorch's running variance takes the unbiased variance where this
    takes the biased one, as Keras). In eval mode it uses ``moving_mean`` and
    ``moving_variance`` (non-trainable Variables). Output shape = input shape.

    Training calls assign the running statistics eagerly and under ``tp.jit``, and also through
    a copy of the layer that holds plain tensors in their place (``tp.grad(loss)(model, x)``
    rebuilds the model around tensors): the layer keeps its Variables aside for that, in a
    static attribute its copies share."""

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, *, in_features: int | None = None, seed: int | None = None,
                 key: Tensor | None = None) -> None:
        self.momentum = float(valid.number(momentum, "BatchNorm", "momentum"))
        if not 0.0 <= self.momentum <= 1.0:
            raise ShapeError(f"BatchNorm: momentum must be in [0, 1] (Keras's: the weight of the old running "
                             f"statistics), got {self.momentum}; e.g. 0.99, or 1 - PyTorch's momentum.")
        super().__init__(valid.integer(axis, "BatchNorm", "axis"), epsilon, center, scale, in_features, seed,
                         key)

    def _make(self, sizes: tuple[int, ...], dtype: Any) -> None:
        super()._make(sizes, dtype)
        dt = inputs.variable_dtype(dtype)
        self.moving_mean = Variable(zeros(sizes, dt), trainable=False)
        self.moving_variance = Variable(ones(sizes, dt), trainable=False)
        self._statistics = _Statistics(self.moving_mean, self.moving_variance)

    def forward(self, x: Any, training: bool | None = None) -> Tensor:
        """Normalize x (..., C, ...) (C on `axis`); `training` (default: the layer's mode)."""
        x = to_float(x)
        (ax,) = self._axes_of(x, 2)
        gamma = self.gamma if self.scale else None
        beta = self.beta if self.center else None
        if not inputs.training_mode(training, self.training):
            mu, variance, offset, factor = (self._along(t, (ax,), x.ndim)
                                            for t in (self.moving_mean, self.moving_variance, beta, gamma))
            return batch_norm(x, mu, variance, offset, factor, epsilon=self.epsilon)
        y, new_mean, new_variance = batch_norm_train(x, self.moving_mean, self.moving_variance, beta, gamma,
                                                     axis=ax, momentum=self.momentum, epsilon=self.epsilon)
        self._statistics.update(self.moving_mean, self.moving_variance, new_mean, new_variance)
        return y


class _Statistics:
    """A BatchNorm's running statistics Variables, kept aside as a static attribute (compared by
    identity), so that a copy of the layer holding tensors in their place (the module
    ``tp.grad`` rebuilds around its traced values) still updates them."""

    __slots__ = ("mean", "variance")

    def __init__(self, mean: Variable, variance: Variable) -> None:
        self.mean, self.variance = mean, variance

    def update(self, mean: Tensor, variance: Tensor, new_mean: Tensor, new_variance: Tensor) -> None:
        """Assign the new statistics: to `mean` and `variance` themselves where they are
        Variables (the layer's own, even one set by hand), else to the Variables kept here."""
        if isinstance(mean, Variable) and isinstance(variance, Variable):
            self.mean, self.variance = mean, variance
        self.mean.assign(new_mean)
        self.variance.assign(new_variance)

    def __repr__(self) -> str:
        return f"_Statistics({self.mean.name}, {self.variance.name})"


class LayerNorm(_Normalization):
    """Layer normalization (``keras.layers.LayerNormalization``): each example normalized over
    `axis` (an int or a tuple) to mean 0 and variance 1, then times ``gamma`` plus ``beta``
    (shaped like the input's dimensions on `axis`). Output shape = input shape. Keras's
    epsilon 1e-3 (PyTorch's is 1e-5)."""

    def __init__(self, axis: int | tuple[int, ...] = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, *, in_features: int | tuple[int, ...] | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        super().__init__(axis, epsilon, center, scale, in_features, seed, key)

    def forward(self, x: Any) -> Tensor:
        """Normalize x over the layer's axes."""
        x = to_float(x)
        axes = self._axes_of(x)
        return layer_norm(x, self._along(self.gamma, axes, x.ndim) if self.scale else None,
                          self._along(self.beta, axes, x.ndim) if self.center else None,
                          axis=axes, epsilon=self.epsilon)


class GroupNorm(_Normalization):
    """Group normalization (``keras.layers.GroupNormalization``, ``torch.nn.GroupNorm``): the
    channels on `axis` split into `groups` contiguous groups, each example normalized over its
    group's channels and every other axis but the batch (axis 0), then times ``gamma`` plus
    ``beta`` (one per channel). Inputs (batch, ..., channels) for axis=-1; `groups` must divide
    the channels. Output shape = input shape."""

    def __init__(self, groups: int = 32, axis: int = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, *, in_features: int | None = None, seed: int | None = None,
                 key: Tensor | None = None) -> None:
        self.groups = args.positive_int(groups, "GroupNorm", "groups")
        channels = None if in_features is None else args.positive_int(in_features, "GroupNorm", "in_features")
        if channels is not None and channels % self.groups:
            raise ShapeError(f"GroupNorm: groups={self.groups} must divide in_features={in_features} (the "
                             "channels); choose a divisor.")
        super().__init__(valid.integer(axis, "GroupNorm", "axis"), epsilon, center, scale, in_features, seed,
                         key)

    def _make(self, sizes: tuple[int, ...], dtype: Any) -> None:
        if sizes[0] % self.groups:
            raise ShapeError(f"groups={self.groups} must divide the number of channels, "
                             f"{sizes[0]}; choose a divisor of {sizes[0]}.")
        super()._make(sizes, dtype)

    def forward(self, x: Any) -> Tensor:
        """Normalize x (batch, ..., channels, ...) per example and group."""
        x = to_float(x)
        (ax,) = self._axes_of(x, 2)
        if ax == 0:
            raise ShapeError(f"axis {self.axis} names the batch axis (0) of an input of shape "
                             f"{x.shape}; the channels must be on another axis.")
        last = moveaxis(x, ax, -1) if ax != x.ndim - 1 else x
        channels = last.shape[-1]
        grouped = reshape(last, (*last.shape[:-1], self.groups, channels // self.groups))
        over = (*range(1, last.ndim - 1), last.ndim)
        mu, variance = moments(grouped, over, keepdims=True)
        y = reshape(batch_norm(grouped, mu, variance, epsilon=self.epsilon), last.shape)
        y = self._affine(y, (y.ndim - 1,))
        return moveaxis(y, -1, ax) if ax != x.ndim - 1 else y


class RMSNorm(_Normalization):
    """Root-mean-square normalization (``torch.nn.RMSNorm``): x / sqrt(mean(x ** 2 over `axis`)
    + epsilon) times ``gamma`` (shaped like the input's dimensions on `axis`; no offset).
    Output shape = input shape."""

    def __init__(self, axis: int | tuple[int, ...] = -1, epsilon: float = 1e-6, scale: bool = True, *,
                 in_features: int | tuple[int, ...] | None = None, seed: int | None = None,
                 key: Tensor | None = None) -> None:
        super().__init__(axis, epsilon, False, scale, in_features, seed, key)

    def forward(self, x: Any) -> Tensor:
        """Normalize x over the layer's axes by its root mean square."""
        x = to_float(x)
        axes = self._axes_of(x)
        y = multiply(x, rsqrt(add(mean(square(x), axis=axes, keepdims=True), self.epsilon)))
        return self._affine(y, axes)

