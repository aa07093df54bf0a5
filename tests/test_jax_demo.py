"""The demo on the jax backend: ``tensorplug demo --backend jax`` trains with a step compiled
by tp.jit and reaches the numpy backend's accuracy."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug import cli
from tensorplug.cli.digits_mlp import Training, load_digits_split, train


@pytest.fixture(scope="module")
def digits():
    return load_digits_split()


def test_thirty_jitted_epochs_on_jax_reach_095(digits):
    result = train(epochs=30, data=digits, backend="jax", jit=True, profile=False)
    assert result.backend == "jax"
    assert result.test_accuracy >= 0.95
    assert result.epoch_losses[-1] < 0.05


def test_the_jitted_step_trains_as_the_eager_one(digits):
    tp.set_backend("jax")
    eager, jitted = Training(digits, seed=4), Training(digits, seed=4, jit=True)
    for _ in range(2):
        assert jitted.epoch() == pytest.approx(eager.epoch(), rel=1e-4)
    np.testing.assert_allclose(jitted.model[1].kernel.numpy(), eager.model[1].kernel.numpy(),
                               rtol=1e-3, atol=1e-5)
    assert jitted.optimizer.iterations == eager.optimizer.iterations == 90


def test_on_numpy_the_jitted_demo_step_is_the_eager_one(digits):
    eager, jitted = Training(digits, seed=2), Training(digits, seed=2, jit=True)
    assert jitted.epoch() == eager.epoch()  # tp.jit replays a plan of the eager step's kernels


def test_the_demo_command_on_jax(capsys):
    assert cli.main(["demo", "--backend", "jax", "--epochs", "1", "--no-progress", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "train step: tp.jit, compiled by backend 'jax'" in out
    assert "Kernels traced into the compiled step" in out and "tensorplug-backend-jax" in out
    assert float(out.split("test accuracy:")[1].split()[0]) > 0.5
