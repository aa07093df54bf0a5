"""``tp.callbacks``: what ``fit`` tells, and who listens: the history, a progress bar, early
stopping, checkpoints through ``tp.save``, learning-rate schedules and a CSV log (Keras's
callbacks, with its names and hooks).

A callback overrides the hooks it needs; ``self.run`` is the ``TrainingRun`` (the model, the
optimizer, the epochs, ``stop_training``) from the moment training begins."""

from __future__ import annotations

import csv
import importlib.util
import math
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.errors import ArgumentError

__all__ = ["Callback", "TrainingRun", "History", "ProgressBar", "EarlyStopping", "ModelCheckpoint",
           "LearningRateScheduler", "CSVLogger", "CallbackList"]

Logs = dict[str, float]


class TrainingRun:
    """One ``fit`` call as the callbacks see it; set ``stop_training = True`` to end it after the
    current epoch."""

    def __init__(self, model: Any, optimizer: Any, epochs: int, steps: int | None) -> None:
        self.model, self.optimizer, self.epochs, self.steps = model, optimizer, epochs, steps
        self.stop_training = False


class Callback:
    """The hooks ``fit`` calls, each doing nothing here; ``logs`` holds the loss and the metrics
    (at an epoch's end also the ``val_`` ones)."""

    run: TrainingRun

    def on_train_begin(self) -> None:
        """Before the first epoch."""

    def on_epoch_begin(self, epoch: int) -> None:
        """Before each epoch (counted from 0)."""

    def on_batch_end(self, batch: int, logs: Logs) -> None:
        """After each training step: the running means of the epoch so far."""

    def on_epoch_end(self, epoch: int, logs: Logs) -> None:
        """After each epoch (and its validation)."""

    def on_train_end(self) -> None:
        """After the last epoch (or an early stop)."""


class CallbackList:
    """The callbacks of one run, each told in turn."""

    def __init__(self, callbacks: Sequence[Callback], run: TrainingRun) -> None:
        for c in callbacks:
            if not isinstance(c, Callback):
                raise ArgumentError(f"fit: callbacks must be tp.callbacks.Callback objects, got a "
                                    f"{type(c).__name__}; subclass tp.callbacks.Callback.")
            c.run = run
        self.callbacks = list(callbacks)
        #: whether any callback listens to each batch (else fit need not gather the batch's logs)
        self.hears_batches = any(type(c).on_batch_end is not Callback.on_batch_end for c in callbacks)

    def train_begin(self) -> None:
        for c in self.callbacks:
            c.on_train_begin()

    def epoch_begin(self, epoch: int) -> None:
        for c in self.callbacks:
            c.on_epoch_begin(epoch)

    def batch_end(self, batch: int, logs: Logs) -> None:
        for c in self.callbacks:
            c.on_batch_end(batch, logs)

    def epoch_end(self, epoch: int, logs: Logs) -> None:
        for c in self.callbacks:
            c.on_epoch_end(epoch, logs)

    def train_end(self) -> None:
        for c in self.callbacks:
            c.on_train_end()


class History(Callback):
    """What ``fit`` returns: ``history["loss"]`` and each metric's list, one value per epoch."""

    def __init__(self) -> None:
        self.history: dict[str, list[float]] = {}
        self.epoch: list[int] = []

    def on_epoch_end(self, epoch: int, logs: Logs) -> None:
        """Append the epoch's logs."""
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)


class ProgressBar(Callback):
    """A bar per epoch that advances per batch, showing the loss and the metrics (tqdm; a line
    per epoch when tqdm is not installed)."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._tqdm = importlib.util.find_spec("tqdm") is not None

    def on_epoch_begin(self, epoch: int) -> None:
        """Open the epoch's bar."""
        if self._tqdm:
            from tqdm import tqdm  # (optional: the demo extra installs it)

            self._bar = tqdm(total=self.run.steps, desc=f"epoch {epoch + 1}/{self.run.epochs}", unit="batch",
                             dynamic_ncols=True, leave=True)

    def on_batch_end(self, batch: int, logs: Logs) -> None:
        """Advance the bar, showing the running loss and metrics."""
        if self._bar is not None:
            self._bar.set_postfix(_shown(logs), refresh=False)
            self._bar.update(1)

    def on_epoch_end(self, epoch: int, logs: Logs) -> None:
        """Close the bar with the epoch's values (or print them in a line)."""
        if self._bar is not None:
            self._bar.set_postfix(_shown(logs), refresh=True)
            self._bar.close()
            self._bar = None
        else:
            text = "  ".join(f"{k} {v}" for k, v in _shown(logs).items())
            print(f"epoch {epoch + 1}/{self.run.epochs}  {text}", flush=True)


class EarlyStopping(Callback):
    """Stop when `monitor` has not improved by more than `min_delta` for `patience` epochs
    (``mode`` "min", "max", or "auto": "max" for accuracies, else "min"); with
    ``restore_best_weights`` the model's variables are set back to the best epoch's."""

    def __init__(self, monitor: str = "val_loss", patience: int = 0, min_delta: float = 0.0,
                 mode: str = "auto", restore_best_weights: bool = False) -> None:
        self.monitor = monitor
        self.patience = valid.integer(patience, "EarlyStopping", "patience", minimum=0)
        self.min_delta = abs(float(valid.number(min_delta, "EarlyStopping", "min_delta")))
        if mode not in ("auto", "min", "max"):
            raise ArgumentError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}.")
        self.higher_is_better = mode == "max" or (mode == "auto" and _higher_is_better(monitor))
        self.restore_best_weights = valid.flag(restore_best_weights, "EarlyStopping", "restore_best_weights")
        self.stopped_epoch: int | None = None
        self.best_values: list[Any] | None = None

    def on_train_begin(self) -> None:
        """Start from no best value."""
        self.best, self.wait, self.best_values = -math.inf if self.higher_is_better else math.inf, 0, None

    def on_epoch_end(self, epoch: int, logs: Logs) -> None:
        """Keep the best value (and weights); stop after `patience` epochs without one."""
        value = _monitored(logs, self.monitor, "EarlyStopping")
        if self.higher_is_better:
            better = value > self.best + self.min_delta
        else:
            better = value < self.best - self.min_delta
        if better:
            self.best, self.wait = value, 0
            if self.restore_best_weights:
                self.best_values = [v.numpy() for v in self.run.model.variables()]
            return
        self.wait += 1
        if self.wait > self.patience:
            self.run.stop_training, self.stopped_epoch = True, epoch
            if self.best_values is not None:
                for v, saved in zip(self.run.model.variables(), self.best_values):
                    v.assign(saved)


class ModelCheckpoint(Callback):
    """Save the model (``model.save``: every variable by path, ``tp.save``'s file) after each
    epoch, or only when `monitor` improved (``save_best_only``); `path` may hold ``{epoch}`` and
    any logged value (``"ckpt-{epoch:02d}-{val_loss:.3f}.safetensors"``)."""

    def __init__(self, path: str | os.PathLike[str], monitor: str = "val_loss", save_best_only: bool = False,
                 mode: str = "auto") -> None:
        self.path = os.fspath(path)
        self.monitor = monitor
        self.save_best_only = valid.flag(save_best_only, "ModelCheckpoint", "save_best_only")
        if mode not in ("auto", "min", "max"):
            raise ArgumentError(f"ModelCheckpoint: mode must be 'auto', 'min' or 'max', got {mode!r}.")
        self.higher_is_better = mode == "max" or (mode == "auto" and _higher_is_better(monitor))
        self.best = -math.inf if self.higher_is_better else math.inf
        self.saved: list[str] = []

    def on_epoch_end(self, epoch: int, logs: Logs) -> None:
        """Save the model (if it improved, with ``save_best_only``)."""
        if self.save_best_only:
            value = _monitored(logs, self.monitor, "ModelCheckpoint")
            if not (value > self.best if self.higher_is_better else value < self.best):
                return
            self.best = value
        try:
            path = self.path.format(epoch=epoch + 1, **logs)
        except (KeyError, IndexError, ValueError) as exc:
            raise ArgumentError(f"ModelCheckpoint: the path {self.path!r} names {exc}, which is neither "
                                f"'epoch' nor a logged value ({sorted(logs)}).") from None
        self.run.model.save(path)
        self.saved.append(path)


class LearningRateScheduler(Callback):
    """Set the optimizer's learning rate at each epoch's start to ``schedule(epoch, lr)`` (epoch
    from 0, lr the current rate)."""

    def __init__(self, schedule: Callable[[int, float], float]) -> None:
        if not callable(schedule):
            raise ArgumentError(f"LearningRateScheduler: schedule must be a function (epoch, lr) -> lr, got "
                                f"{type(schedule).__name__}.")
        self.schedule = schedule
        self.rates: list[float] = []

    def on_epoch_begin(self, epoch: int) -> None:
        """Set the learning rate for the epoch."""
        optimizer = self.run.optimizer
        rate = float(self.schedule(epoch, optimizer.current_learning_rate()))
        optimizer.learning_rate = rate
        self.rates.append(rate)


class CSVLogger(Callback):
    """A CSV file with a row per epoch: the epoch and every logged value (header first);
    ``append=True`` adds to an existing file."""

    def __init__(self, path: str | os.PathLike[str], append: bool = False) -> None:
        self.path = os.fspath(path)
        self.append = valid.flag(append, "CSVLogger", "append")
        self._keys: list[str] | None = None

    def on_train_begin(self) -> None:
        """Start the file anew (unless ``append``)."""
        if not self.append and os.path.exists(self.path):
            os.remove(self.path)
        self._keys = None

    def on_epoch_end(self, epoch: int, logs: Logs) -> None:
        """Write the epoch's row."""
        keys = self._keys or sorted(logs)
        new_file = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        with open(self.path, "a", newline="") as f:
            writer = csv.writer(f)
            if new_file:
                writer.writerow(["epoch", *keys])
            writer.writerow([epoch, *(repr(float(logs.get(k, np.nan))) for k in keys)])
        self._keys = keys


def _higher_is_better(monitor: str) -> bool:
    """Mode "auto": accuracies, precision and recall grow as the model learns; losses fall."""
    return any(word in monitor for word in ("acc", "precision", "recall"))


def _monitored(logs: Logs, monitor: str, who: str) -> float:
    if monitor not in logs:
        raise ArgumentError(f"{who}: monitor {monitor!r} is not logged; the logs hold {sorted(logs)} "
                            "(val_ values need fit's validation_data).")
    return float(logs[monitor])


def _shown(logs: Logs) -> dict[str, str]:
    return {k: f"{v:.4f}" for k, v in logs.items()}
