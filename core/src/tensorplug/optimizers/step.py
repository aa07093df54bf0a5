"""What an optimizer's update rule reads: its settings (``Hyperparameter``, kept in the state)
and one step's values (``Step``: the step number, the per-step scalars as tensors or numbers)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tensorplug.backends.lifecycle import backend_scope
from tensorplug.core.context import jit_trace_var, state
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import float64
from tensorplug.families._common.convert import asarray

if TYPE_CHECKING:
    from tensorplug.optimizers.optimizer import Optimizer

__all__ = ["Hyperparameter", "Step", "on_backend"]


class Hyperparameter:
    """A setting of an optimizer, kept in its state's ``hyperparameters`` under the attribute's
    name: declare it on the class (``beta1 = Hyperparameter()``) and pass its value to
    ``Optimizer.__init__``; ``opt.beta1`` reads it, ``opt.beta1 = 0.5`` makes a new state with
    it (a compiled step sees it at its next call, compiling again). `convert` normalizes a new
    value (default: float)."""

    def __init__(self, convert: Callable[[Any], Any] = float) -> None:
        self.convert = convert
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, optimizer: Optimizer | None, owner: type | None = None) -> Any:
        if optimizer is None:
            return self
        return optimizer.state.hyperparameters[self.name]

    def __set__(self, optimizer: Optimizer, value: Any) -> None:
        optimizer._set_hyperparameters({self.name: self.convert(value)})


class Step:
    """One step of an optimizer: what its update rule reads.

    ``number``: the step's number (counting from 1), an int64 scalar tensor; ``hyperparameters``:
    the state's; ``scalars(like)``: the optimizer's ``_scalars`` as scalar tensors of `like`'s
    dtype (computed with ops once per step, cast once per dtype); ``numbers()``: the same as
    Python numbers, for a fused kernel in an eager step: only where the step's values can be read
    on the host, i.e. not in a traced step; ``kernel_scalars(like, *names)``: scalar tensors for
    a fused kernel's inputs, in an eager step and a traced one alike.
    """

    __slots__ = ("optimizer", "number", "hyperparameters", "_tensors", "_by_dtype", "_numbers",
                 "_host_by_dtype")

    def __init__(self, optimizer: Optimizer, number: Tensor, hyperparameters: Mapping[str, Any]) -> None:
        self.optimizer = optimizer
        self.number = number
        self.hyperparameters = hyperparameters
        self._tensors: dict[str, Any] | None = None
        self._by_dtype: dict[Any, dict[str, Tensor]] = {}
        self._numbers: dict[str, float] | None = None
        self._host_by_dtype: dict[Any, tuple[Tensor, ...]] = {}

    def scalars(self, like: Tensor) -> dict[str, Tensor]:
        """The optimizer's step scalars as scalar tensors of `like`'s dtype and backend."""
        key = (like._dtype, like._backend)
        scalars = self._by_dtype.get(key)
        if scalars is None:
            if self._tensors is None:
                with on_backend(self.number):
                    number = self.number.astype(float64)
                    self._tensors = self.optimizer._scalars(
                        number, self._learning_rate(number), self.hyperparameters)
            scalars = self._by_dtype[key] = {k: _asarray(v, like._dtype) for k, v in self._tensors.items()}
        return scalars

    def kernel_scalars(self, like: Tensor, *names: str) -> tuple[Tensor, ...]:
        """The step scalars `names` as scalar tensors of `like`'s dtype and backend, for a fused
        kernel's inputs: in a traced step (tp.jit) those of ``scalars(like)``; in an eager one
        made from ``numbers()`` (host floats rounded once to the dtype: no ops), once per dtype."""
        if jit_trace_var.get() is not None:
            traced = self.scalars(like)
            return tuple([traced[n] for n in names])
        key = (like._dtype, like._backend, names)
        made = self._host_by_dtype.get(key)
        if made is None:
            numbers = self.numbers()
            made = self._host_by_dtype[key] = tuple([_asarray(numbers[n], like._dtype) for n in names])
        return made

    def numbers(self) -> dict[str, float]:
        """The optimizer's step scalars as Python floats; reads the step number on the host, so
        not inside a traced step."""
        if self._numbers is None:
            lr = self.hyperparameters["learning_rate"]
            learning_rate = float(self._learning_rate(self.number.astype(float64)) if callable(lr) else lr)
            self._numbers = self.optimizer._scalars(int(self.number), learning_rate, self.hyperparameters)
        return self._numbers

    def _learning_rate(self, number: Tensor) -> Any:
        lr = self.hyperparameters["learning_rate"]
        return lr(number) if callable(lr) else lr


class on_backend:
    """Run the block on the backend holding `t` (a no-op when it is the active one)."""

    __slots__ = ("_t", "_scope")

    def __init__(self, t: Tensor) -> None:
        self._t = t
        self._scope: Any = None

    def __enter__(self) -> None:
        if state.backend is not self._t._backend:
            self._scope = backend_scope(self._t.backend)
            self._scope.__enter__()

    def __exit__(self, *exc: Any) -> None:
        if self._scope is not None:
            self._scope.__exit__(*exc)


def _asarray(x: Any, dtype: Any = None) -> Tensor:
    return asarray(x, dtype=dtype)
