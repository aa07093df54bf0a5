"""The demo's models trained with Adam on scikit-learn's bundled digits: a 64-128-10 ReLU MLP
(the default) and the small CNN of ``digits_cnn``.

Written the way a user writes tensorplug code: a ``tp.nn.Sequential`` of layers trained with
``model.fit``. The data, initial weights and batch order come from numpy with fixed seeds, so
the benchmarks can feed a hand-written numpy MLP exactly the same work.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import tensorplug as tp
from tensorplug.callbacks import Callback
from tensorplug.cli.digits_cnn import cnn
from tensorplug.optimizers import Adam
from tensorplug.profiler import KernelCalls, count_kernels

__all__ = ["Digits", "mlp", "MODELS", "LOSS", "ShuffledBatches", "Training", "TrainResult",
           "load_digits_split", "init_params", "epoch_batches", "train", "SPLIT_SEED", "SIZES"]

SPLIT_SEED = 0  # the train/test split never changes; --seed moves weights and batch order
TEST_FRACTION = 0.2
SIZES = (64, 128, 10)


@dataclass(frozen=True)
class Digits:
    """Standardized float32 features and int64 labels of the fixed split."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


def load_digits_split() -> Digits:
    """The 1797 8x8 digits, split 80/20 (stratified, fixed seed), standardized with the
    training set's mean and standard deviation. Needs scikit-learn (offline: the data ships
    inside it)."""
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(SPLIT_SEED)
    test_idx = []
    for label in np.unique(y):  # stratified: the same share of every digit in the test set
        idx = rng.permutation(np.flatnonzero(y == label))
        test_idx.append(idx[: int(round(len(idx) * TEST_FRACTION))])
    test = np.sort(np.concatenate(test_idx))
    train = np.setdiff1d(np.arange(len(y)), test)
    mean = x[train].mean(axis=0)
    std = x[train].std(axis=0)
    std[std == 0] = 1.0  # pixels that are always blank
    x = ((x - mean) / std).astype(np.float32)
    y = y.astype(np.int64)
    return Digits(x[train], y[train], x[test], y[test])


def init_params(seed: int) -> dict[str, np.ndarray]:
    """He-initialized weights and zero biases, float32, from numpy's generator."""
    rng = np.random.default_rng(seed)
    n_in, n_hidden, n_out = SIZES
    return {
        "w1": (rng.standard_normal((n_in, n_hidden)) * np.sqrt(2.0 / n_in)).astype(np.float32),
        "b1": np.zeros(n_hidden, np.float32),
        "w2": (rng.standard_normal((n_hidden, n_out)) * np.sqrt(2.0 / n_hidden)).astype(np.float32),
        "b2": np.zeros(n_out, np.float32),
    }


def epoch_batches(n: int, batch_size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Index arrays of one epoch: a fresh permutation cut into batches (the last may be short)."""
    order = rng.permutation(n)
    for start in range(0, n, batch_size):
        yield order[start:start + batch_size]


class ShuffledBatches:
    """The training set in ``(x, y)`` batches, a fresh permutation of it from `rng` at each pass
    (``epoch_batches``): the order the benchmarks give their hand-written peers too."""

    def __init__(self, data: Digits, batch_size: int, rng: np.random.Generator) -> None:
        self.data, self.batch_size, self.rng = data, batch_size, rng

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        x, y = self.data.x_train, self.data.y_train
        for idx in epoch_batches(len(y), self.batch_size, self.rng):
            yield x[idx], y[idx]

    def __len__(self) -> int:
        return math.ceil(len(self.data.y_train) / self.batch_size)


@dataclass
class TrainResult:
    test_accuracy: float
    epoch_losses: list[float]
    epoch_seconds: list[float]
    backend: str
    kernel_calls: KernelCalls | None = None
    steps_per_epoch: int = 0


def mlp(seed: int) -> tp.nn.Sequential:
    """The 64-128-10 ReLU MLP, its first weights those of ``init_params(seed)``."""
    n_in, n_hidden, n_out = SIZES
    model = tp.nn.Sequential([tp.nn.Dense(n_hidden, activation="relu", in_features=n_in),
                              tp.nn.Dense(n_out, in_features=n_hidden)])
    p = init_params(seed)
    model.assign_variables({"layers.0.kernel": p["w1"], "layers.0.bias": p["b1"],
                            "layers.1.kernel": p["w2"], "layers.1.bias": p["b2"]})
    return model


#: the demo's models by name (``tensorplug demo --model NAME``): each takes a seed and gives a
#: tp.nn.Sequential
MODELS: dict[str, Callable[[int], tp.nn.Sequential]] = {"mlp": mlp, "cnn": cnn}
#: the loss: the mean cross-entropy of the model's logits against integer labels
LOSS = "sparse_softmax_cross_entropy"


class Training:
    """The demo's training run: model, Adam, and the batch order; ``epoch()`` is one pass over
    the training set (``model.fit`` for one epoch), ``test_accuracy()`` evaluates on the test set."""

    def __init__(self, data: Digits, seed: int = 0, batch_size: int = 32,
                 learning_rate: float = 1e-3, jit: bool = False, model: str = "mlp") -> None:
        self.data = data
        self.batch_size = batch_size
        self.model = MODELS[model](seed)
        self.optimizer = Adam(learning_rate)
        self.batches = ShuffledBatches(data, batch_size, np.random.default_rng(seed))
        self.steps_per_epoch = len(self.batches)
        # fit compiles the whole step (forward, backward, Adam) with tp.jit: into one XLA
        # computation on jax, into a plan of its kernel calls on numpy (see
        # tensorplug.transforms.jit.planner); the compiled step is kept for the next epoch
        self.jit = jit
        #: one step of a custom loop (``step(x, y)``) compiled with tp.jit, as fit compiles its own
        self.compiled_step = tp.jit(self.step)

    def step(self, x: Any, y: Any) -> tp.Tensor:
        """One Adam step on a batch, written out as a custom loop would; returns the batch's loss."""
        variables = self.model.trainable_variables()
        loss = lambda: tp.nn.sparse_softmax_cross_entropy(y, self.model(x))  # noqa: E731
        return self.optimizer.minimize(loss, variables)

    def fit(self, epochs: int, callbacks: list[Callback] | None = None,
            progress: bool = False) -> list[float]:
        """`epochs` passes over the shuffled training set; returns each epoch's mean batch loss."""
        history = self.model.fit(self.batches, loss=LOSS, optimizer=self.optimizer, epochs=epochs,
                                 jit_compile=self.jit, callbacks=callbacks or [], progress=progress,
                                 metrics=["accuracy"] if progress else [])
        return history.history["loss"]

    def epoch(self) -> float:
        """One pass over the shuffled training set; returns the mean batch loss."""
        return self.fit(1)[0]

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The model's class predictions for the rows of `x`."""
        return np.argmax(self.model.predict(x, batch_size=len(x), jit_compile=self.jit), axis=-1)

    def test_accuracy(self) -> float:
        return float(np.mean(self.predict(self.data.x_test) == self.data.y_test))

    def save(self, path: str) -> None:
        """The model's variables and the optimizer's state to one file (``tp.save``); or, for a
        path ending in ``.onnx``, the model as ONNX (``tp.export.onnx``, a dynamic batch axis)."""
        if path.endswith(".onnx"):
            tp.export.onnx(self.model, self.data.x_test[:1], path=path,
                           dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
            return
        tp.save(path, {"model": self.model, "optimizer": self.optimizer.state})


class _EpochTimes(Callback):
    """Each epoch's seconds, and a function told of each epoch's loss."""

    def __init__(self, on_epoch: Callable[[int, float], None] | None) -> None:
        self.seconds: list[float] = []
        self.on_epoch = on_epoch

    def on_epoch_begin(self, epoch: int) -> None:
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> None:
        self.seconds.append(time.perf_counter() - self.start)
        if self.on_epoch is not None:
            self.on_epoch(epoch, logs["loss"])


def train(epochs: int = 30, batch_size: int = 32, seed: int = 0, learning_rate: float = 1e-3,
          backend: str | None = None, data: Digits | None = None, profile: bool = True,
          on_epoch: Callable[[int, float], None] | None = None, jit: bool = False, model: str = "mlp",
          save: str | None = None, progress: bool = False) -> TrainResult:
    """Train the model and measure it: test accuracy, mean loss and seconds per epoch, and (when
    `profile`) the kernels that ran, per backend and registering plugin (with `jit` on a
    backend that compiles: the kernels traced into the compiled step). `on_epoch(epoch, loss)`
    is called after every epoch; `progress` shows fit's progress bar; `save` is a path to write
    the trained model and optimizer state to."""
    if backend is not None:
        tp.set_backend(backend)
    run = Training(load_digits_split() if data is None else data, seed, batch_size, learning_rate, jit=jit,
                   model=model)
    times = _EpochTimes(on_epoch)
    calls: KernelCalls | None
    with count_kernels() if profile else contextlib.nullcontext() as calls:
        losses = run.fit(epochs, callbacks=[times], progress=progress)
        acc = run.test_accuracy()
    if save is not None:
        run.save(save)
    return TrainResult(test_accuracy=acc, epoch_losses=losses, epoch_seconds=times.seconds,
                       backend=tp.get_backend(), kernel_calls=calls, steps_per_epoch=run.steps_per_epoch)
