"""The recurrent cells ``SimpleRNNCell``, ``LSTMCell`` and ``GRUCell``: one time step,
``cell(x, states) -> (output, new_states)`` with `x` (batch, features) and `states` a tuple of
(batch, units) tensors (``(h,)``, or ``(h, c)`` for the LSTM), as Keras's cells. The layers of
``tensorplug.models.layers.recurrent`` run a cell over time with ``tp.scan``.

Weights as Keras lays them out: ``kernel`` (features, gates * units) starts glorot_uniform,
``recurrent_kernel`` (units, gates * units) orthogonal, ``bias`` zeros; the gates side by side
(GRU: z, r, h, Keras's order; LSTM: i, f, o, c, the three gates of `recurrent_activation`
first so that one call computes them: Keras and torch have i, f, c, o). The activations are
elementwise functions (a cell applies `recurrent_activation` once over its gates side by
side)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families.creation.ops import ones
from tensorplug.families.elementwise.ops import add, multiply, subtract
from tensorplug.families.linalg.ops import matmul
from tensorplug.families.manipulation.ops import concat
from tensorplug.models import initializers
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers.inputs import Initial, as_input, drawn, expect_rank, expect_size
from tensorplug.models.module import Module

__all__ = ["Cell", "GRUCell", "LSTMCell", "SimpleRNNCell", "UnitForgetBias"]


class UnitForgetBias:
    """An LSTM bias initializer (Keras's ``unit_forget_bias=True``): `bias_initializer`'s values
    for the i, o and c gates, ones for the forget gate (the second of i, f, o, c)."""

    __slots__ = ("bias_initializer",)

    def __init__(self, bias_initializer: Any) -> None:
        self.bias_initializer = bias_initializer

    def __call__(self, shape: Sequence[int], dtype: Any = None, *, seed: int | None = None,
                 key: Tensor | None = None) -> Tensor:
        """A bias of `shape` (4 * units,): ones on the forget gate's units."""
        units, source = int(shape[0]) // 4, seed if key is None else key
        return concat([drawn(self.bias_initializer, (units,), dtype, source), ones((units,), dtype=dtype),
                       drawn(self.bias_initializer, (2 * units,), dtype, source)])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnitForgetBias) and other.bias_initializer == self.bias_initializer

    def __hash__(self) -> int:
        return hash(("UnitForgetBias", id(self.bias_initializer)))

    def __repr__(self) -> str:
        return f"UnitForgetBias({self.bias_initializer!r})"


class Cell(Module):
    """What the cells share: their settings, their weights built from the first input (or at
    once with ``in_features``), the check of a step's input and states, ``project`` (the
    inputs' part) and ``forward`` (a checked ``step``). A new cell defines ``step``, GATES
    and N_STATES."""

    GATES = 1
    N_STATES = 1

    def __init__(self, units: int, activation: Any, use_bias: bool, kernel_initializer: Any,
                 recurrent_initializer: Any, bias_initializer: Any, in_features: int | None,
                 seed: int | None, key: Tensor | None = None) -> None:
        self.units = args.positive_int(units, self, "units")
        self.activation = args.activation(activation, self)
        self.use_bias = args.flag(use_bias, self, "use_bias")
        self.in_features = (None if in_features is None else
                            args.positive_int(in_features, self, "in_features"))
        self._initial = Initial(
            args.seed_or_key(seed, key, self),
            kernel=args.initializer(kernel_initializer, self, "kernel_initializer"),
            recurrent_kernel=args.initializer(recurrent_initializer, self, "recurrent_initializer"),
            bias=args.initializer(bias_initializer, self, "bias_initializer"))
        self.built = False

    def _build_now(self) -> None:
        if self.in_features is not None:
            self.build((None, self.in_features))

    @property
    def state_size(self) -> tuple[int, ...]:
        """The size of each state tensor (the units, once per state)."""
        return (self.units,) * self.N_STATES

    def build(self, input_shape: tuple[int | None, ...], dtype: Any = None) -> None:
        """Make kernel (features, gates * units), recurrent_kernel (units, gates * units) and
        bias for step inputs of `input_shape` (batch, features)."""
        initial = Initial.of(self)
        if len(input_shape) != 2 or input_shape[-1] is None:
            raise ShapeError(f"expected step inputs (batch, features) with known features, got shape "
                             f"{tuple(input_shape)}; a layer (SimpleRNN, LSTM, GRU) runs a cell over time.")
        self.in_features = int(input_shape[-1])
        width = self.GATES * self.units
        self.kernel = initial.variable("kernel", (self.in_features, width), dtype)
        self.recurrent_kernel = initial.variable("recurrent_kernel", (self.units, width), dtype)
        self.bias = initial.variable("bias", self._bias_shape(), dtype) if self.use_bias else None
        del self._initial

    def _bias_shape(self) -> tuple[int, ...]:
        return (self.GATES * self.units,)

    def _step_args(self, x: Any, states: Any) -> tuple[Tensor, list[Tensor]]:
        """`x` as a Tensor and `states` as a list, checked against the cell's sizes."""
        x = as_input(x)
        expect_rank(x.shape, 2, "batch, features")
        expect_size(x.shape, -1, self.in_features or 0, "features")
        given = ([states] if isinstance(states, Tensor) else
                 list(states) if isinstance(states, (list, tuple)) else None)
        if given is None or len(given) != self.N_STATES:
            raise ArgumentError(f"states must be a tuple of {self.N_STATES} tensor(s) of shape (batch, "
                                f"{self.units}), got {type(states).__name__}"
                                f"{'' if given is None else f' of {len(given)}'}.")
        given = [as_input(s) for s in given]
        for s in given:
            if tuple(s.shape) != (x.shape[0], self.units):
                raise ShapeError(f"each state must have shape (batch, units) = {(x.shape[0], self.units)}, "
                                 f"got {tuple(s.shape)}.")
        return x, given

    def project(self, x: Tensor) -> Tensor:
        """``x @ kernel + bias``: the inputs' part of every gate, for inputs (..., features) (a
        layer projects all its steps at once, outside the loop, then runs ``step``)."""
        y = matmul(x, self.kernel)
        return y if self.bias is None else add(y, self.bias)

    def forward(self, x: Any, states: Any) -> tuple[Tensor, tuple[Tensor, ...]]:
        """(output, new states) for the step input `x` (batch, features) and `states`."""
        x, given = self._step_args(x, states)
        return self.step(self.project(x), tuple(given))

    def step(self, projected: Tensor, states: tuple[Tensor, ...]) -> tuple[Tensor, tuple[Tensor, ...]]:
        """(output, new states) from the step's projected input (``project(x)``) and `states`."""
        raise NotImplementedError


class SimpleRNNCell(Cell):
    """``h = activation(x @ kernel + h @ recurrent_kernel + bias)`` (Keras's SimpleRNNCell,
    torch's RNN cell with its two biases summed); the output is h. States: ``(h,)``."""

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = initializers.glorot_uniform(),
                 recurrent_initializer: Any = initializers.orthogonal(),
                 bias_initializer: Any = initializers.zeros, in_features: int | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        super().__init__(units, activation, use_bias, kernel_initializer, recurrent_initializer,
                         bias_initializer, in_features, seed, key)
        self._build_now()

    def step(self, projected: Tensor, states: tuple[Tensor, ...]) -> tuple[Tensor, tuple[Tensor, ...]]:
        """(h, (h,)) from the projected step input and states ``(h_prev,)``."""
        y = add(projected, matmul(states[0], self.recurrent_kernel))
        h = y if self.activation is None else self.activation(y)
        return h, (h,)


class LSTMCell(Cell):
    """The LSTM step (Keras's LSTMCell; torch's LSTM with its two biases summed): gates
    ``i, f, o, c`` of ``x @ kernel + h @ recurrent_kernel + bias`` (in that order: Keras's and
    torch's is i, f, c, o);
    ``c = f * c_prev + i * activation(c_gate)``, ``h = o * activation(c)`` with i, f, o through
    `recurrent_activation`. States: ``(h, c)``; the output is h. ``unit_forget_bias`` starts the
    forget gate's bias at 1."""

    GATES = 4
    N_STATES = 2

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 use_bias: bool = True, kernel_initializer: Any = initializers.glorot_uniform(),
                 recurrent_initializer: Any = initializers.orthogonal(),
                 bias_initializer: Any = initializers.zeros, unit_forget_bias: bool = True,
                 in_features: int | None = None, seed: int | None = None, key: Tensor | None = None) -> None:
        self.recurrent_activation = args.activation(recurrent_activation, self)
        self.unit_forget_bias = args.flag(unit_forget_bias, self, "unit_forget_bias")
        bias_init = args.initializer(bias_initializer, self, "bias_initializer")
        super().__init__(units, activation, use_bias, kernel_initializer, recurrent_initializer,
                         UnitForgetBias(bias_init) if self.unit_forget_bias else bias_init, in_features, seed,
                         key)
        self._build_now()

    def step(self, projected: Tensor, states: tuple[Tensor, ...]) -> tuple[Tensor, tuple[Tensor, ...]]:
        """(h, (h, c)) from the projected step input and states ``(h_prev, c_prev)``."""
        h, c = states
        z = add(projected, matmul(h, self.recurrent_kernel))
        u = self.units
        s = _applied(self.recurrent_activation, z[..., :3 * u])  # (one call over the gates i, f, o)
        i, f, o, g = s[..., :u], s[..., u:2 * u], s[..., 2 * u:], z[..., 3 * u:]
        c = add(multiply(f, c), multiply(i, _applied(self.activation, g)))
        h = multiply(o, _applied(self.activation, c))
        return h, (h, c)


class GRUCell(Cell):
    """The GRU step as torch's GRU computes it (Keras's ``reset_after=True``: the reset gate
    applied after the recurrent matmul): ``[xz, xr, xh] = x @ kernel + bias``,
    ``[hz, hr, hh] = h @ recurrent_kernel + recurrent_bias``, ``z = sigmoid(xz + hz)``,
    ``r = sigmoid(xr + hr)``, ``n = activation(xh + r * hh)``, ``h = z * h_prev + (1 - z) * n``
    (gates in Keras's order z, r, h; torch's is r, z, n). States: ``(h,)``; the output is h."""

    GATES = 3

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 use_bias: bool = True, kernel_initializer: Any = initializers.glorot_uniform(),
                 recurrent_initializer: Any = initializers.orthogonal(),
                 bias_initializer: Any = initializers.zeros, in_features: int | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        self.recurrent_activation = args.activation(recurrent_activation, self)
        super().__init__(units, activation, use_bias, kernel_initializer, recurrent_initializer,
                         bias_initializer, in_features, seed, key)
        self._build_now()

    def build(self, input_shape: tuple[int | None, ...], dtype: Any = None) -> None:
        """As the other cells, and a recurrent_bias (3 * units,) (torch's b_hh) when use_bias."""
        bias_init = Initial.of(self).initializers["bias"]
        source = Initial.of(self).derived(3)
        super().build(input_shape, dtype)
        self.recurrent_bias: Variable | None = None
        if self.use_bias:
            initial = Initial(source, bias=bias_init)
            self.recurrent_bias = initial.variable("bias", self._bias_shape(), dtype)

    def step(self, projected: Tensor, states: tuple[Tensor, ...]) -> tuple[Tensor, tuple[Tensor, ...]]:
        """(h, (h,)) from the projected step input and states ``(h_prev,)``."""
        (h,), u = states, self.units
        rec = matmul(h, self.recurrent_kernel)
        if self.recurrent_bias is not None:
            rec = add(rec, self.recurrent_bias)
        zr = _applied(self.recurrent_activation, add(projected[..., :2 * u], rec[..., :2 * u]))
        z, r = zr[..., :u], zr[..., u:]
        n = _applied(self.activation, add(projected[..., 2 * u:], multiply(r, rec[..., 2 * u:])))
        h = add(n, multiply(z, subtract(h, n)))  # (z * h_prev + (1 - z) * n)
        return h, (h,)


def _applied(activation: Any, x: Tensor) -> Tensor:
    return x if activation is None else activation(x)

