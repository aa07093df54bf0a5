"""model.fit / evaluate / predict and the callbacks, on a small classifier of three blobs, on both
backends: it learns, tp.jit and eager agree step for step, the callbacks do what they say."""

from __future__ import annotations

import csv

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.callbacks import (
    Callback,
    CSVLogger,
    EarlyStopping,
    LearningRateScheduler,
    ModelCheckpoint,
)
from tensorplug.errors import ArgumentError


class Classifier(tp.nn.Module):
    """2 -> 8 (tanh) -> 3, its first values from a fixed numpy seed."""

    def __init__(self, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.w1 = tp.Variable(rng.normal(size=(2, 8)).astype(np.float32))
        self.b1 = tp.Variable(np.zeros(8, np.float32))
        self.w2 = tp.Variable(rng.normal(size=(8, 3)).astype(np.float32) * 0.5)
        self.b2 = tp.Variable(np.zeros(3, np.float32))

    def forward(self, x):
        return tp.tanh(x @ self.w1 + self.b1) @ self.w2 + self.b2


def blobs(n: int = 96, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    centers = np.array([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
    return (centers[y] + rng.normal(scale=0.4, size=(n, 2))).astype(np.float32), y.astype(np.int64)


X, Y = blobs()
LOSS = "sparse_softmax_cross_entropy"


def test_fit_learns_and_evaluate_and_predict_agree(backend):
    model = Classifier()
    history = model.fit(X, Y, loss=LOSS, optimizer=tp.optimizers.Adam(0.05), epochs=8, batch_size=16,
                        metrics=["accuracy"], validation_data=blobs(30, seed=2), progress=False)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert history.epoch == list(range(8)) and len(history.history["loss"]) == 8
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert history.history["val_accuracy"][-1] > 0.9
    scores = model.evaluate(X, Y, loss=LOSS, metrics=["accuracy"])
    predicted = model.predict(X, batch_size=40)
    assert predicted.shape == (96, 3)
    np.testing.assert_allclose(scores["accuracy"], np.mean(predicted.argmax(-1) == Y))
    expected_loss = tp.nn.sparse_softmax_cross_entropy(Y, tp.asarray(predicted))
    np.testing.assert_allclose(scores["loss"], float(expected_loss), rtol=1e-5)
    assert model.training  # (fit, evaluate and predict leave the mode as they found it)


def test_the_compiled_loop_matches_the_eager_one(backend):
    runs = []
    for jit_compile in (True, False):
        model = Classifier()
        h = model.fit(X, Y, loss=LOSS, optimizer=tp.optimizers.SGD(0.1), epochs=3, batch_size=32,
                      jit_compile=jit_compile, progress=False,
                      callbacks=[LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))])
        runs.append((h.history["loss"], model.w1.numpy()))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-5)
    np.testing.assert_allclose(runs[0][1], runs[1][1], rtol=1e-5, atol=1e-6)


def test_a_dataset_or_an_iterable_of_batches_feeds_fit():
    model = Classifier()
    batches = [(X[i:i + 32], Y[i:i + 32]) for i in range(0, 96, 32)]
    h = model.fit(batches, loss=LOSS, optimizer=tp.optimizers.Adam(0.05), epochs=2, progress=False)
    assert len(h.history["loss"]) == 2
    ds = tp.data.Dataset.from_tensor_slices((X, Y)).batch(24)
    h = model.fit(ds, loss=tp.nn.sparse_softmax_cross_entropy, optimizer=tp.optimizers.Adam(0.05), epochs=2,
                  metrics=["accuracy"], progress=False)
    assert "accuracy" in h.history


class Weights(Callback):
    def __init__(self) -> None:
        self.per_epoch = []

    def on_epoch_end(self, epoch, logs):
        self.per_epoch.append(self.run.model.w1.numpy().copy())


def test_early_stopping_stops_and_restores_the_best_weights():
    model, seen = Classifier(), Weights()
    stop = EarlyStopping(monitor="loss", patience=1, min_delta=1e9, restore_best_weights=True)
    h = model.fit(X, Y, loss=LOSS, optimizer=tp.optimizers.Adam(0.05), epochs=10, callbacks=[seen, stop],
                  progress=False)
    assert len(h.history["loss"]) == 3 and stop.stopped_epoch == 2
    np.testing.assert_array_equal(model.w1.numpy(), seen.per_epoch[0])
    with pytest.raises(ArgumentError, match=r"monitor 'val_loss' is not logged.*validation_data"):
        Classifier().fit(X, Y, loss=LOSS, optimizer=tp.optimizers.Adam(0.05), callbacks=[EarlyStopping()],
                         progress=False)


def test_checkpoints_and_the_csv_log(tmp_path):
    pytest.importorskip("safetensors")
    model = Classifier()
    ckpt = ModelCheckpoint(tmp_path / "ckpt-{epoch}-{loss:.2f}.safetensors", monitor="loss",
                           save_best_only=True)
    log = CSVLogger(tmp_path / "log.csv")
    h = model.fit(X, Y, loss=LOSS, optimizer=tp.optimizers.Adam(0.05), epochs=3, metrics=["accuracy"],
                  callbacks=[ckpt, log], progress=False)
    assert len(ckpt.saved) == 3 and ckpt.saved[0].endswith(f"ckpt-1-{h.history['loss'][0]:.2f}.safetensors")
    restored = Classifier(seed=5).load(ckpt.saved[-1])
    np.testing.assert_array_equal(restored.w2.numpy(), model.w2.numpy())
    rows = list(csv.reader((tmp_path / "log.csv").read_text().splitlines()))
    assert rows[0] == ["epoch", "accuracy", "loss"] and len(rows) == 4
    assert float(rows[3][2]) == pytest.approx(h.history["loss"][2])


def test_the_progress_bar_shows_each_epoch(capsys):
    Classifier().fit(X, Y, loss=LOSS, optimizer=tp.optimizers.Adam(0.05), epochs=2, metrics=["accuracy"])
    err = capsys.readouterr().err
    assert "epoch 1/2" in err and "epoch 2/2" in err and "accuracy=" in err and "loss=" in err


def test_bad_arguments_say_what_to_give():
    model = Classifier()
    adam = tp.optimizers.Adam(0.01)
    with pytest.raises(ArgumentError, match=r"unknown loss 'sparse_softmax_crossentropy'.*Did you mean "
                                            r"'sparse_softmax_cross_entropy'"):
        model.fit(X, Y, loss="sparse_softmax_crossentropy", optimizer=adam)
    with pytest.raises(ArgumentError, match=r"'sparse_categorical_crossentropy' is Keras's name.*logits"):
        model.fit(X, Y, loss="sparse_categorical_crossentropy", optimizer=adam)
    with pytest.raises(ArgumentError, match=r"optimizer must be a tp.optimizers optimizer"):
        model.fit(X, Y, loss=LOSS, optimizer="adam")
    with pytest.raises(tp.TensorplugError, match=r"epochs"):
        model.fit(X, Y, loss=LOSS, optimizer=adam, epochs=0)
    with pytest.raises(ArgumentError, match=r"each batch must be an \(x, y\) pair"):
        model.fit([X[:10]], loss=LOSS, optimizer=adam, progress=False)


@pytest.mark.parametrize("y_true, y_pred, expected", [
    ([0, 2], [[0.9, 0.0, 0.1], [0.1, 0.2, 0.7]], 1.0),             # integer labels: sparse categorical
    ([[1, 0], [1, 0]], [[0.8, 0.2], [0.3, 0.7]], 0.5),             # one-hot labels: categorical
    ([1, 0, 1], [0.9, 0.2, 0.4], 2 / 3),                           # one probability each: binary
])
def test_accuracy_without_a_loss_follows_the_shapes(y_true, y_pred, expected):
    from tensorplug.models.training_setup import metric_objects

    (metric,) = metric_objects(["accuracy"], None, "evaluate")
    metric.update_state(np.array(y_true), np.array(y_pred))
    assert metric.name == "accuracy" and metric.result() == pytest.approx(expected)
