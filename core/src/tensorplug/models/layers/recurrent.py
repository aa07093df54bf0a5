"""The recurrent layers: ``RNN(cell)`` runs a cell (``tensorplug.models.layers.cells``) over
the time axis of batch-first inputs (batch, time, features) with ``tp.scan`` (so it compiles
under ``tp.jit`` and differentiates through the loop); ``SimpleRNN``, ``LSTM`` and ``GRU`` are
RNN over their cell, and ``Bidirectional`` runs a layer both ways, as Keras's."""

from __future__ import annotations

import copy
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families.control_flow.ops import scan
from tensorplug.families.creation.ops import zeros, zeros_like
from tensorplug.families.elementwise.ops import add, multiply, where
from tensorplug.families.manipulation.ops import concat, expand_dims, flip, moveaxis
from tensorplug.models import initializers
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers.cells import Cell, GRUCell, LSTMCell, SimpleRNNCell
from tensorplug.models.layers.inputs import Initial, as_input, expect_rank, expect_size
from tensorplug.models.module import Module

__all__ = ["GRU", "LSTM", "RNN", "Bidirectional", "SimpleRNN"]

MERGE_MODES = ("concat", "sum", "mul", "ave")


class RNN(Module):
    """`cell` run over axis 1 of inputs (batch, time, features) with ``tp.scan``, from zero
    states or ``initial_state=`` (a tuple of (batch, units) tensors, the cell's states).

    Returns the last output (batch, units), or every step's (batch, time, units) with
    ``return_sequences``; with ``return_state``, ``(output, *final_states)``. ``go_backwards``
    reads the steps last to first (its sequence comes out in that order, as Keras's).
    ``mask=`` (batch, time) bool at call: a step where it is False keeps the previous states and
    outputs zeros (the last output is then the last unmasked step's)."""

    def __init__(self, cell: Cell, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False) -> None:
        if not isinstance(cell, Cell):
            raise ArgumentError(f"RNN: cell must be a recurrent cell such as tp.nn.LSTMCell(8), got "
                                f"{type(cell).__name__}.")
        self.cell = cell
        self.return_sequences = args.flag(return_sequences, self, "return_sequences")
        self.return_state = args.flag(return_state, self, "return_state")
        self.go_backwards = args.flag(go_backwards, self, "go_backwards")
        self.built = bool(cell.built)

    def build(self, input_shape: tuple[int | None, ...], dtype: Any = None) -> None:
        """Build the cell for inputs of `input_shape` (batch, time, features)."""
        expect_rank(tuple(input_shape), 3, "batch, time, features")
        if not self.cell.built:
            self.cell.build((input_shape[0], input_shape[2]), dtype)

    def forward(self, x: Any, mask: Any = None, initial_state: Any = None) -> Any:
        """The last output, or the sequence (``return_sequences``), and the final states
        (``return_state``) of the cell run over the steps of `x` (batch, time, features)."""
        x = as_input(x)
        expect_rank(x.shape, 3, "batch, time, features")
        expect_size(x.shape, -1, self.cell.in_features or 0, "features")
        states = self._initial_states(initial_state, x.shape[0])
        cell = self.cell
        xs = cell.project(moveaxis(x, 1, 0))  # (every step's input part at once, outside the loop)
        masks = None if mask is None else _time_major_mask(mask, x.shape)
        if self.go_backwards:
            xs = flip(xs, axis=0)
            masks = None if masks is None else flip(masks, axis=0)

        def step(carry: tuple[Tensor, ...], p_t: Tensor) -> tuple[tuple[Tensor, ...], Tensor]:
            out, new = cell.step(p_t, carry)
            return new, out

        def masked_step(carry: tuple[Tensor, ...],
                        inp: tuple[Tensor, Tensor]) -> tuple[tuple[Tensor, ...], Tensor]:
            p_t, m_t = inp
            out, new = cell.step(p_t, carry)
            kept = tuple(where(m_t, n, c) for n, c in zip(new, carry))
            return kept, where(m_t, out, zeros_like(out))

        if masks is None:
            final, ys = scan(step, states, xs)
        else:
            final, ys = scan(masked_step, states, (xs, masks))
        output = moveaxis(ys, 0, 1) if self.return_sequences else final[0]
        return (output, *final) if self.return_state else output

    def _initial_states(self, given: Any, batch: int) -> tuple[Tensor, ...]:
        units, n = self.cell.units, len(self.cell.state_size)
        if given is None:
            return tuple(zeros((batch, units), dtype=self.cell.kernel.dtype) for _ in range(n))
        states = [given] if not isinstance(given, (list, tuple)) else list(given)
        if len(states) != n:
            raise ArgumentError(f"initial_state must hold {n} tensor(s) of shape (batch, units) = "
                                f"{(batch, units)} (the cell's states), got {len(states)}.")
        out = tuple(as_input(s) for s in states)
        for s in out:
            if tuple(s.shape) != (batch, units):
                raise ShapeError(f"initial_state: each state must have shape (batch, units) = "
                                 f"{(batch, units)}, got {tuple(s.shape)}.")
        return out


def _time_major_mask(mask: Any, shape: tuple[int, ...]) -> Tensor:
    """A (batch, time) bool mask as (time, batch, 1), for the scan's steps."""
    m = as_input(mask)
    if m.dtype != bool_:
        raise DTypeError(f"mask must be bool (True where a step is real, False where it is padding), got "
                         f"{m.dtype.name}; pass mask=ids != 0, say.")
    if tuple(m.shape) != tuple(shape[:2]):
        raise ShapeError(f"mask must have shape (batch, time) = {tuple(shape[:2])}, got {tuple(m.shape)}.")
    return expand_dims(moveaxis(m, 1, 0), -1)


class SimpleRNN(RNN):
    """``RNN(SimpleRNNCell(units, ...))``: see both for the arguments."""

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = initializers.glorot_uniform(),
                 recurrent_initializer: Any = initializers.orthogonal(),
                 bias_initializer: Any = initializers.zeros, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False, seed: int | None = None,
                 key: Tensor | None = None) -> None:
        super().__init__(SimpleRNNCell(units, activation, use_bias, kernel_initializer, recurrent_initializer,
                                       bias_initializer, seed=seed, key=key),
                         return_sequences, return_state, go_backwards)


class LSTM(RNN):
    """``RNN(LSTMCell(units, ...))``: see both for the arguments."""

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 use_bias: bool = True, kernel_initializer: Any = initializers.glorot_uniform(),
                 recurrent_initializer: Any = initializers.orthogonal(),
                 bias_initializer: Any = initializers.zeros, unit_forget_bias: bool = True,
                 return_sequences: bool = False, return_state: bool = False, go_backwards: bool = False,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        super().__init__(LSTMCell(units, activation, recurrent_activation, use_bias, kernel_initializer,
                                  recurrent_initializer, bias_initializer, unit_forget_bias, seed=seed,
                                  key=key),
                         return_sequences, return_state, go_backwards)


class GRU(RNN):
    """``RNN(GRUCell(units, ...))`` (torch's formulation, Keras's ``reset_after=True``): see both
    for the arguments."""

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 use_bias: bool = True, kernel_initializer: Any = initializers.glorot_uniform(),
                 recurrent_initializer: Any = initializers.orthogonal(),
                 bias_initializer: Any = initializers.zeros, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False, seed: int | None = None,
                 key: Tensor | None = None) -> None:
        super().__init__(GRUCell(units, activation, recurrent_activation, use_bias, kernel_initializer,
                                 recurrent_initializer, bias_initializer, seed=seed, key=key),
                         return_sequences, return_state, go_backwards)


class Bidirectional(Module):
    """`layer` (an RNN, not built yet) run forward and a copy of it (its own initial weights)
    run backward over the steps, their outputs merged by `merge_mode`: "concat" (on the last
    axis), "sum", "mul" or "ave". With ``return_sequences`` the backward sequence is put back in
    time order first. ``initial_state=`` takes the forward layer's states then the backward
    one's; ``return_state`` gives ``(output, *forward_states, *backward_states)``."""

    def __init__(self, layer: RNN, merge_mode: str = "concat", seed: int | None = None,
                 key: Tensor | None = None) -> None:
        if not isinstance(layer, RNN):
            raise ArgumentError(f"Bidirectional: layer must be a recurrent layer (tp.nn.LSTM, GRU, SimpleRNN "
                                f"or RNN), got {type(layer).__name__}.")
        if layer.cell.built:
            raise ArgumentError("Bidirectional: layer must not be built yet (its copy running backward gets "
                                "weights of its own); pass a new layer, e.g. Bidirectional(tp.nn.LSTM(8)).")
        if not isinstance(merge_mode, str) or merge_mode not in MERGE_MODES:
            raise ShapeError(f"Bidirectional: merge_mode must be one of {', '.join(map(repr, MERGE_MODES))}, "
                             f"got {merge_mode!r}.")
        self.merge_mode = merge_mode
        backward = copy.deepcopy(layer)
        backward.go_backwards = not layer.go_backwards
        initial = Initial.of(backward.cell)
        backward.cell._initial = Initial(args.seed_or_key(seed, key, self), **initial.initializers)
        self.forward_layer = layer
        self.backward_layer = backward

    def forward(self, x: Any, mask: Any = None, initial_state: Any = None) -> Any:
        """Both layers' results on `x` (batch, time, features), merged (see the class)."""
        fw_init = bw_init = None
        if initial_state is not None:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            n = len(self.forward_layer.cell.state_size)
            if len(states) != 2 * n:
                raise ArgumentError(f"initial_state must hold {2 * n} tensors (the forward layer's {n} "
                                    f"states, then the backward layer's), got {len(states)}.")
            fw_init, bw_init = states[:n], states[n:]
        fw = self.forward_layer(x, mask=mask, initial_state=fw_init)
        bw = self.backward_layer(x, mask=mask, initial_state=bw_init)
        fw_out, fw_states = (fw[0], fw[1:]) if self.forward_layer.return_state else (fw, ())
        bw_out, bw_states = (bw[0], bw[1:]) if self.backward_layer.return_state else (bw, ())
        if self.forward_layer.return_sequences:
            bw_out = flip(bw_out, axis=1)
        out = _merge(self.merge_mode, fw_out, bw_out)
        return (out, *fw_states, *bw_states) if self.forward_layer.return_state else out


def _merge(mode: str, a: Tensor, b: Tensor) -> Tensor:
    if mode == "concat":
        return concat([a, b], axis=-1)
    if mode == "sum":
        return add(a, b)
    if mode == "mul":
        return multiply(a, b)
    return multiply(add(a, b), 0.5)
