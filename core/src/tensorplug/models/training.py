"""``fit``, ``evaluate`` and ``predict`` (``model.fit(...)`` and friends): the training loop.

It is plain code, meant to be read and copied into a custom loop: a batch goes through one
step (the forward pass, the loss, its gradient and the optimizer's update, under ``tp.jit`` by
default), the step's loss and outputs update the metrics, and the callbacks hear of it. A
compiled step keeps the mode it was traced in (as JAX bakes closed-over Python values in), so
the loop compiles one step for training and one for evaluation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.data import Dataset, as_batches
from tensorplug.errors import ArgumentError
from tensorplug.families._common.convert import asarray
from tensorplug.metrics import Mean, Metric
from tensorplug.models.callbacks import Callback, CallbackList, History, ProgressBar, TrainingRun
from tensorplug.models.summary import run_on_zeros
from tensorplug.models.training_setup import loss_function, metric_objects
from tensorplug.optimizers.optimizer import Optimizer
from tensorplug.transforms.jit.api import jit

__all__ = ["fit", "evaluate", "predict", "train_step", "eval_step"]

Step = Callable[..., Any]
Loss = Callable[[Any, Any], Tensor]


def train_step(model: Any, loss: Callable[[Any, Any], Tensor], optimizer: Optimizer,
               with_outputs: bool = True) -> Step:
    """``step(x, y) -> (loss, outputs)``: one optimizer update of the model's trainable
    variables on a batch, in the model's current mode (outputs None unless `with_outputs`:
    the metrics need them, a compiled step that returns them costs more)."""
    variables = model.trainable_variables()

    def step(x: Any, y: Any) -> tuple[Tensor, Any]:
        outputs: list[Any] = []

        def objective() -> Tensor:
            outputs.append(model(x))
            return loss(y, outputs[-1])

        value = optimizer.minimize(objective, variables)
        return value, (outputs[-1] if with_outputs else None)

    return step


def eval_step(model: Any, loss: Callable[[Any, Any], Tensor] | None) -> Step:
    """``step(x, y) -> (loss, outputs)`` (loss None without `loss`): the model on a batch."""

    def step(x: Any, y: Any) -> tuple[Tensor | None, Any]:
        outputs = model(x)
        return (None if loss is None else loss(y, outputs)), outputs

    return step


def fit(model: Any, x: Any, y: Any = None, *, loss: Any, optimizer: Optimizer, epochs: int = 1,
        batch_size: int = 32, shuffle: bool = True, seed: int = 0, validation_data: Any = None,
        metrics: Sequence[Any] = (), callbacks: Sequence[Callback] = (), jit_compile: bool = True,
        progress: bool = True) -> History:
    """Train `model` for `epochs` passes over the data and return the ``History`` (a list per
    epoch of the loss, each metric, and with `validation_data` their ``val_`` values).

    The data: arrays `x` and `y` (or trees of arrays), cut into batches of `batch_size`,
    shuffled each epoch from `seed` unless ``shuffle=False``; or a ``tp.data.Dataset`` or any
    iterable of ``(x, y)`` batches as `x` (then `y`, `batch_size` and `shuffle` are unused).
    `loss` is ``loss(y_true, y_pred) -> scalar`` or a name (``"sparse_softmax_cross_entropy"``,
    ``"mse"``, ...); `metrics` are ``tp.metrics`` objects or names (``"accuracy"`` follows the
    loss, as in Keras). The step runs under ``tp.jit`` unless ``jit_compile=False``; a progress
    bar shows each epoch unless ``progress=False``."""
    epochs = valid.integer(epochs, "fit", "epochs", minimum=1)
    loss_fn = loss_function(loss, "fit")
    if not isinstance(optimizer, Optimizer):
        raise ArgumentError(f"fit: optimizer must be a tp.optimizers optimizer (e.g. "
                            f"tp.optimizers.Adam(1e-3)), got {type(optimizer).__name__}.")
    train_data = _batches(x, y, batch_size, seed if valid.flag(shuffle, "fit", "shuffle") else None, "fit")
    valid_data = None if validation_data is None else _validation(validation_data, batch_size)
    run = TrainingRun(model, optimizer, epochs, _length(train_data))
    loss_mean, measured = Mean("loss"), metric_objects(metrics, loss, "fit")
    history = History()
    listeners = CallbackList([history, *callbacks, *([ProgressBar()] if progress else [])], run)

    modes = _modes(model)
    model.train()  # (evaluating on validation data switches to eval mode and back)
    _built(model, train_data)
    step, test = _steps(model, loss_fn, optimizer, jit_compile, with_outputs=bool(measured))
    listeners.train_begin()
    for epoch in range(epochs):
        listeners.epoch_begin(epoch)
        for m in (loss_mean, *measured):
            m.reset_state()
        batch = -1
        for batch, (xb, yb) in enumerate(_pairs(train_data, "fit")):
            value, outputs = step(*_inputs(jit_compile, xb, yb))
            _update(loss_mean, measured, value, yb, outputs)
            if listeners.hears_batches:
                listeners.batch_end(batch, _logs(loss_mean, measured))
        if batch < 0:
            raise ArgumentError(f"fit: the data gave no batch in epoch {epoch + 1}" + (
                ": a generator is used up after one pass; give a list of batches or a tp.data.Dataset, which "
                "are read again each epoch." if epoch else "; give at least one example."))
        logs = _logs(loss_mean, measured)
        if valid_data is not None:
            fresh = metric_objects(metrics, loss, "fit")
            scores = _evaluate(model, test, valid_data, loss_fn, fresh, jit_compile)
            logs.update({f"val_{k}": v for k, v in scores.items()})
        listeners.epoch_end(epoch, logs)
        if run.stop_training:
            break
    _restore(modes)
    listeners.train_end()
    return history


def evaluate(model: Any, x: Any, y: Any = None, *, loss: Any = None, metrics: Sequence[Any] = (),
             batch_size: int = 32, jit_compile: bool = True) -> dict[str, float]:
    """The loss (when `loss` is given) and each metric over the data (as ``fit`` takes it), in
    eval mode: ``{"loss": ..., "accuracy": ...}``. The model's mode is restored after."""
    loss_fn = None if loss is None else loss_function(loss, "evaluate")
    data = _batches(x, y, batch_size, None, "evaluate")
    test = _eval_step(model, loss_fn, jit_compile)
    return _evaluate(model, test, data, loss_fn, metric_objects(metrics, loss, "evaluate"), jit_compile)


def predict(model: Any, x: Any, *, batch_size: int = 32, jit_compile: bool = True) -> Any:
    """The model's outputs for `x` (an array, a tree of arrays, or an iterable of input batches),
    batch by batch in eval mode, joined along axis 0 as numpy arrays."""
    data = as_batches(x if isinstance(x, Dataset) or not _is_array_tree(x) else
                      Dataset.from_tensor_slices(x).batch(valid.integer(batch_size, "predict", "batch_size",
                                                                        minimum=1)))
    forward = _eval_step(model, None, jit_compile)
    modes = _modes(model)
    model.eval()
    try:
        outputs = [_numpy(forward(*_inputs(jit_compile, xb, None))[1]) for xb in data]
    finally:
        _restore(modes)
    if not outputs:
        raise ArgumentError("predict: the data holds no batch; give at least one example.")
    return np.concatenate(outputs, axis=0)


# -- the loop's parts --------------------------------------------------------------------------
def _evaluate(model: Any, test: Step, data: Iterable[Any], loss: Any, measured: list[Metric],
              jit_compile: bool) -> dict[str, float]:
    loss_mean = Mean("loss")
    modes = _modes(model)
    model.eval()
    try:
        for xb, yb in _pairs(data, "evaluate"):
            value, outputs = test(*_inputs(jit_compile, xb, yb))
            _update(loss_mean if loss is not None else None, measured, value, yb, outputs)
    finally:
        _restore(modes)
    return _logs(loss_mean if loss is not None else None, measured)


def _update(loss_mean: Mean | None, measured: list[Metric], value: Any, y: Any, outputs: Any) -> None:
    if loss_mean is not None:
        loss_mean.update_state(float(value), len(y) if hasattr(y, "__len__") else 1)  # (by batch size)
    for metric in measured:
        metric.update_state(y, outputs)


def _logs(loss_mean: Mean | None, measured: list[Metric]) -> dict[str, float]:
    logs = {} if loss_mean is None else {"loss": loss_mean.result()}
    logs.update({m.name: m.result() for m in measured})
    return logs


def _kept(model: Any, key: tuple[Any, ...], make: Callable[[], Step]) -> Step:
    """The step `make` gives, made (and compiled) once per `key` and kept on the model, as Keras
    keeps a model's train and test functions: ``fit(epochs=1)`` in a loop, or ``predict`` after
    each epoch, traces once. (A static attribute: not a child of the model's tree.)"""
    kept = model.__dict__.setdefault("_kept_steps", {})
    if key not in kept:
        kept[key] = make()
    return kept[key]


def _steps(model: Any, loss: Loss, optimizer: Optimizer, jit_compile: bool,
           with_outputs: bool) -> tuple[Step, Step]:
    """The train step of `model` with `loss` and `optimizer` (one per set of trainable
    variables: freezing a layer makes another), and its eval step."""
    variables = tuple(id(v) for v in model.trainable_variables())
    make = lambda: train_step(model, loss, optimizer, with_outputs)  # noqa: E731
    step = _kept(model, ("train", loss, optimizer, variables, jit_compile, with_outputs),
                 (lambda: jit(make())) if jit_compile else make)
    return step, _eval_step(model, loss, jit_compile)


def _eval_step(model: Any, loss: Loss | None, jit_compile: bool) -> Step:
    """The eval step of `model` with `loss` (its callers run it in eval mode: a compiled one is
    traced so)."""
    make = lambda: eval_step(model, loss)  # noqa: E731
    return _kept(model, ("eval", loss, jit_compile), (lambda: jit(make())) if jit_compile else make)


def _built(model: Any, data: Iterable[Any]) -> None:
    """Build the model's variables (from the first batch's shape) before a step is compiled."""
    if all(m.built for m in model.modules()):
        return
    first = next(iter(_pairs(data, "fit")), None)
    if first is None:
        raise ArgumentError("fit: the data holds no batch; give at least one example.")
    xb = np.asarray(first[0]) if not isinstance(first[0], Tensor) else first[0]
    run_on_zeros(model, (None, *xb.shape[1:]), xb.dtype)


def _batches(x: Any, y: Any, batch_size: int, seed: int | None, op: str) -> Iterable[Any]:
    if y is None:
        if isinstance(x, list) and x and all(isinstance(b, tuple) and len(b) == 2 for b in x):
            return x  # (a list of (x, y) batches)
        return as_batches(x)
    size = valid.integer(batch_size, op, "batch_size", minimum=1)
    data = Dataset.from_tensor_slices((x, y))
    return (data.shuffle(seed) if seed is not None else data).batch(size)


def _validation(data: Any, batch_size: int) -> Iterable[Any]:
    if isinstance(data, tuple) and len(data) == 2 and _is_array_tree(data[0]):
        return _batches(data[0], data[1], batch_size, None, "fit")
    return as_batches(data)


def _pairs(data: Iterable[Any], op: str) -> Iterable[tuple[Any, Any]]:
    for batch in data:
        if not (isinstance(batch, (tuple, list)) and len(batch) == 2):
            raise ArgumentError(f"{op}: each batch must be an (x, y) pair, got a {type(batch).__name__}"
                                f"{f' of {len(batch)}' if isinstance(batch, (tuple, list)) else ''}; give "
                                "x and y as arrays, or a dataset of (x, y) pairs.")
        yield batch[0], batch[1]


def _inputs(jit_compile: bool, x: Any, y: Any) -> tuple[Any, Any]:
    """A batch as the step takes it: numpy as it is under tp.jit (it converts), else tensors."""
    if jit_compile:
        return x, y
    return _tensors(x), (None if y is None else _tensors(y))


def _tensors(tree: Any) -> Any:
    return tree if isinstance(tree, Tensor) else asarray(tree) if isinstance(tree, np.ndarray) else tree


def _numpy(out: Any) -> np.ndarray:
    return out.numpy() if isinstance(out, Tensor) else np.asarray(out)


def _is_array_tree(x: Any) -> bool:
    """Arrays (or a dict or tuple of them) to cut into batches, not an iterable of batches."""
    if isinstance(x, (np.ndarray, Tensor)):
        return True
    items = x.values() if isinstance(x, dict) else x if isinstance(x, tuple) else None
    return items is not None and all(isinstance(i, (np.ndarray, Tensor)) for i in items)


def _length(data: Iterable[Any]) -> int | None:
    try:
        return len(data)  # type: ignore[arg-type]
    except TypeError:
        return None


def _modes(model: Any) -> list[tuple[Any, bool]]:
    return [(m, m.training) for m in model.modules()]


def _restore(modes: list[tuple[Any, bool]]) -> None:
    for m, mode in modes:
        m.training = mode

