"""Reference values of the shape-manipulation kernels: Reshape, Transpose, BroadcastTo, Concat,
Stack, Pad, Roll. Each is tried on every dtype with a table of (input shapes, attributes), 0-d and
empty inputs included, and refuses a table of bad ones."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import float32, int32
from tensorplug.errors import DTypeError, ShapeError, TensorplugError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, accepted, sample
from tensorplug.testing.references._base import reference

Shapes = Sequence[tuple[int, ...]]
#: rows of (input shapes, attrs)
Table = Sequence[tuple[Shapes, dict[str, Any]]]
#: rows of (input shapes, attrs, the error expected, why the inputs are bad)
BadTable = Sequence[tuple[Shapes, dict[str, Any], type[TensorplugError], str]]


def table_cases(table: Table) -> Callable[[KernelSpec], list[Case]]:
    """Every dtype the spec accepts (for its first input; variadic inputs share it) x rows
    of (input shapes, attrs)."""
    def cases(spec: KernelSpec) -> list[Case]:
        out = []
        for d in accepted(spec, spec.inputs[0]):
            for i, (shapes, attrs) in enumerate(table):
                arrays = tuple(sample(s, d, key=(spec.name, i, k)) for k, s in enumerate(shapes))
                out.append(Case(arrays, attrs))
        return out
    return cases


def table_bad(table: BadTable) -> Callable[[KernelSpec], list[BadCase]]:
    """Rows of (input shapes, attrs, error type, why) on float32 inputs."""
    def cases(spec: KernelSpec) -> list[BadCase]:
        return [BadCase(tuple(sample(s, float32, key=k) for k, s in enumerate(shapes)), attrs,
                        error=error, why=why) for shapes, attrs, error, why in table]
    return cases


_RESHAPE: Table = [
    ([(2, 3)], {"shape": (3, 2)}), ([(2, 3)], {"shape": (-1,)}), ([(6,)], {"shape": (1, 2, 3)}),
    ([(2, 3)], {"shape": (3, -1)}), ([()], {"shape": (1,)}), ([(1,)], {"shape": ()}),
    ([(0, 3)], {"shape": (3, 0)}), ([(0,)], {"shape": (2, 0)}),
]
_RESHAPE_BAD: BadTable = [([(2, 3)], {"shape": (4,)}, ShapeError, "a shape of another size"),
                ([(2, 3)], {"shape": (-1, -1)}, ShapeError, "two -1 entries"),
                ([(2, 3)], {"shape": (-2, 3)}, ShapeError, "a negative size")]
reference("Reshape", table_cases(_RESHAPE), table_bad(_RESHAPE_BAD))(np.reshape)

_TRANSPOSE: Table = [
    ([(2, 3)], {"perm": (1, 0)}), ([(2, 3, 4)], {"perm": (2, 0, 1)}), ([(2, 3, 4)], {"perm": (0, 1, 2)}),
    ([()], {"perm": ()}), ([(0, 2)], {"perm": (1, 0)}), ([(2, 3)], {"perm": (-1, 0)}),
    ([(1, 3, 1)], {"perm": (2, 1, 0)}), ([(1,)], {"perm": (0,)}),
]
_TRANSPOSE_BAD: BadTable = [([(2, 3)], {"perm": (0, 0)}, ShapeError, "a repeated axis"),
                  ([(2, 3)], {"perm": (0,)}, ShapeError, "too few axes"),
                  ([(2, 3)], {"perm": (0, 2)}, ShapeError, "an axis out of range")]
reference("Transpose", table_cases(_TRANSPOSE), table_bad(_TRANSPOSE_BAD))(
    lambda x, perm: np.transpose(x, perm))

_BROADCAST_TO: Table = [
    ([(3,)], {"shape": (2, 3)}), ([()], {"shape": (2, 2)}), ([(1, 3)], {"shape": (2, 1, 3)}),
    ([(2, 1)], {"shape": (2, 0)}), ([(3,)], {"shape": (3,)}), ([()], {"shape": ()}),
    ([(1,)], {"shape": (0,)}), ([(0,)], {"shape": (2, 0)}),
]
_BROADCAST_TO_BAD: BadTable = [([(3,)], {"shape": (4,)}, ShapeError, "a size that does not stretch"),
                     ([(2, 3)], {"shape": (3,)}, ShapeError, "fewer dimensions than the input")]
reference("BroadcastTo", table_cases(_BROADCAST_TO), table_bad(_BROADCAST_TO_BAD))(
    lambda x, shape: np.broadcast_to(x, shape))

_CONCAT: Table = [
    ([(2, 3), (1, 3)], {"axis": 0}), ([(2, 1), (2, 2), (2, 0)], {"axis": 1}),
    ([(2, 1), (2, 2)], {"axis": -1}), ([(3,)], {"axis": 0}), ([(0, 2), (0, 2)], {"axis": 0}),
    ([(1,), (1,)], {"axis": 0}),
]
_CONCAT_BAD: BadTable = [([(), ()], {"axis": 0}, ShapeError, "0-d inputs"),
               ([(2, 3), (2, 4)], {"axis": 0}, ShapeError, "sizes that differ outside the axis"),
               ([(2, 3), (2, 3)], {"axis": 2}, ShapeError, "an axis out of range")]


def _concat_mixed(spec: KernelSpec) -> list[BadCase]:
    return [*table_bad(_CONCAT_BAD)(spec),
            BadCase((sample((2,), float32), sample((2,), int32)), {"axis": 0}, error=DTypeError,
                    why="inputs of different dtypes")]


reference("Concat", table_cases(_CONCAT), _concat_mixed)(lambda *xs, axis: np.concatenate(xs, axis))

_STACK: Table = [
    ([(2, 3), (2, 3)], {"axis": 0}), ([(2, 3), (2, 3), (2, 3)], {"axis": 2}),
    ([(2, 3), (2, 3)], {"axis": -1}), ([(), ()], {"axis": 0}), ([(0,), (0,), (0,)], {"axis": 1}),
    ([(1,)], {"axis": 0}),
]
_STACK_BAD: BadTable = [([(2, 3), (3, 2)], {"axis": 0}, ShapeError, "inputs of different shapes"),
              ([(2, 3), (2, 3)], {"axis": 3}, ShapeError, "an axis out of range")]
reference("Stack", table_cases(_STACK), table_bad(_STACK_BAD))(lambda *xs, axis: np.stack(xs, axis))

_PAD: Table = [
    ([(2, 3)], {"pad_width": ((1, 0), (2, 1))}),
    ([(2, 3)], {"pad_width": ((1, 1), (0, 0)), "constant_value": 2.0}),
    ([()], {"pad_width": ()}), ([(0, 2)], {"pad_width": ((1, 1), (0, 0))}),
    ([(3,)], {"pad_width": ((0, 0),)}),
    ([(1,)], {"pad_width": ((2, 3),), "constant_value": 1.0}),
]
_PAD_BAD: BadTable = [([(2, 3)], {"pad_width": ((1, 1),)}, ShapeError, "one pair for a 2-d input"),
            ([(3,)], {"pad_width": ((-1, 0),)}, ShapeError, "a negative width")]


@reference("Pad", table_cases(_PAD), table_bad(_PAD_BAD))
def _pad(x: np.ndarray, pad_width: Any, constant_value: float) -> np.ndarray:
    if x.ndim == 0:
        return x.copy()
    return np.pad(x, pad_width, constant_values=np.asarray(constant_value).astype(x.dtype))


_ROLL: Table = [
    ([(5,)], {"shift": (2,), "axis": (0,)}), ([(2, 3)], {"shift": (-1, 4), "axis": (0, 1)}),
    ([(2, 3, 4)], {"shift": (1,), "axis": (2, 0)}), ([(2, 3)], {"shift": (7,), "axis": (-1,)}),
    ([(2, 3)], {"shift": (1, 1), "axis": (1, 1)}), ([(0, 3)], {"shift": (1, 1), "axis": (0, 1)}),
    ([()], {"shift": (), "axis": ()}), ([(3,)], {"shift": (0,), "axis": (0,)}),
    ([(1, 1)], {"shift": (3,), "axis": (1,)}),
]
_ROLL_BAD: BadTable = [([(2, 3)], {"shift": (1, 2), "axis": (0,)}, ShapeError, "two shifts for one axis"),
             ([(2, 3)], {"shift": (1,), "axis": (2,)}, ShapeError, "an axis out of range"),
             ([()], {"shift": (1,), "axis": (0,)}, ShapeError, "an axis of a 0-d input")]


@reference("Roll", table_cases(_ROLL), table_bad(_ROLL_BAD))
def _roll(x: np.ndarray, shift: tuple[int, ...], axis: tuple[int, ...]) -> np.ndarray:
    return np.roll(x, shift, axis) if axis else x.copy()


__all__ = ["Table", "BadTable", "table_cases", "table_bad"]
