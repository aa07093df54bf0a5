"""The demo: its training function on the real digits data, and the `tensorplug` command."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tensorplug as tp
from tensorplug import cli
from tensorplug.cli import demo as demo_cmd
from tensorplug.cli.digits_mlp import Training, load_digits_split, train


@pytest.fixture(scope="module")
def digits():
    return load_digits_split()


def test_the_split_is_fixed_and_standardized(digits) -> None:
    again = load_digits_split()
    assert digits.x_train.shape == (1438, 64) and digits.x_test.shape == (359, 64)
    assert digits.x_train.dtype == np.float32 and digits.y_train.dtype == np.int64
    np.testing.assert_array_equal(digits.y_test, again.y_test)
    np.testing.assert_allclose(digits.x_train.mean(axis=0), 0, atol=1e-5)
    # every digit is in the test set in about its share
    assert set(np.unique(digits.y_test)) == set(range(10))


def test_a_few_epochs_learn_far_above_chance(digits) -> None:
    result = train(epochs=3, seed=1, data=digits)
    assert result.test_accuracy > 0.8  # chance is 0.1
    assert result.epoch_losses[-1] < result.epoch_losses[0]
    assert len(result.epoch_seconds) == 3 and result.steps_per_epoch == 45
    rows = result.kernel_calls.rows()
    ran = {(kernel, backend) for kernel, backend, _, _ in rows}
    assert {("MatMul", "numpy"), ("Relu", "numpy")} <= ran
    sources = {source for _, _, source, _ in rows}
    assert sources == {"tensorplug-backend-numpy"}


def test_training_is_reproducible(digits) -> None:
    a, b = Training(digits, seed=3), Training(digits, seed=3)
    assert a.epoch() == pytest.approx(b.epoch(), rel=1e-6)
    np.testing.assert_allclose(a.model[0].kernel.numpy(), b.model[0].kernel.numpy(), rtol=1e-6)


@pytest.mark.slow
def test_thirty_epochs_reach_095(digits) -> None:
    result = train(epochs=30, data=digits, profile=False)  # (its speed: benchmarks/, never a timed test)
    assert result.kernel_calls is None
    assert result.test_accuracy >= 0.95


@pytest.mark.slow
def test_the_cnn_reaches_098_in_thirty_epochs(digits) -> None:
    result = train(epochs=30, data=digits, profile=False, jit=True, model="cnn",
                   learning_rate=demo_cmd.DEFAULT_LEARNING_RATES["cnn"])
    assert result.test_accuracy >= 0.98


@pytest.mark.slow
def test_a_saved_cnn_reloads_with_the_same_predictions_on_either_backend(digits, tmp_path) -> None:
    trained = Training(digits, seed=4, model="cnn", jit=True)
    trained.epoch()
    path = tmp_path / "cnn.safetensors"
    trained.save(str(path))
    want_logits = trained.model(tp.asarray(digits.x_test)).numpy()
    for backend in ("numpy", "jax"):
        with tp.backend_scope(backend):
            fresh = Training(digits, seed=9, model="cnn")  # other weights, replaced by the saved ones
        like = {"model": fresh.model, "optimizer": fresh.optimizer.state}
        loaded = tp.load(path, backend=backend, like=like)
        assert loaded["optimizer"] is not None
        assert all(v.backend == backend for v in fresh.model.variables())
        with tp.backend_scope(backend):
            got = fresh.model(tp.asarray(digits.x_test)).numpy()
        np.testing.assert_allclose(got, want_logits, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(got.argmax(-1), want_logits.argmax(-1))


def test_demo_trains_the_cnn_and_saves_it(capsys, tmp_path) -> None:
    path = tmp_path / "model.safetensors"
    assert cli.main(["demo", "--model", "cnn", "--epochs", "1", "--no-progress", "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "CNN (conv 3x3x16" in out and "Adam(lr=0.003)" in out and f"saved:               {path}" in out
    assert {"FusedConv2D", "MaxPool", "Conv2DBackpropFilter", "MaxPoolGrad"} <= set(out.split())
    saved = tp.load(path)["model"]["layers"]  # the model's variables by path: layers.<i>.kernel, ...
    assert {i: set(layer) for i, layer in enumerate(saved) if layer} == {
        1: {"kernel", "bias"}, 3: {"kernel", "bias"}, 6: {"kernel", "bias"}}


def test_demo_save_needs_safetensors_before_training(monkeypatch, capsys, tmp_path) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "safetensors" else real(name, *a))
    assert cli.main(["demo", "--epochs", "1", "--save", str(tmp_path / "m.safetensors")]) == 1
    captured = capsys.readouterr()
    assert "pip install 'tensorplug-core[save]'" in captured.err and "test accuracy" not in captured.out


def test_kernel_table_is_aligned() -> None:
    rows = [("MatMul", "numpy", "np-plugin", 1234), ("Add", "numpy", "np-plugin", 7)]

    class Info:
        distribution, version = "np-dist", "1.2"

    text = demo_cmd.format_kernel_table(rows, {"np-plugin": Info()})
    lines = text.splitlines()
    assert lines[0] == "Kernels run (1,241 calls, 2 kernels):"
    assert lines[1].split() == ["kernel", "backend", "registered", "by", "calls"]
    assert "np-plugin (np-dist 1.2)" in lines[3] and lines[3].endswith("1,234")
    assert len({len(line) for line in lines[1:]}) == 1


def test_no_subcommand_prints_help(capsys) -> None:
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "usage: tensorplug" in out and "demo" in out


def test_demo_without_scikit_learn_says_how_to_install(monkeypatch, capsys) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sklearn" else real(name, *a))
    assert cli.main(["demo", "--epochs", "1"]) == 1
    assert "pip install 'tensorplug-core[demo]'" in capsys.readouterr().err


def test_demo_with_an_unknown_backend_fails_cleanly(capsys) -> None:
    assert cli.main(["demo", "--backend", "no-such-backend"]) == 1
    err = capsys.readouterr().err
    assert "No backend named 'no-such-backend'" in err


def test_demo_runs_in_process(capsys) -> None:
    assert cli.main(["demo", "--epochs", "1", "--no-progress", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "test accuracy:" in out and "time per epoch:" in out
    assert "MatMul" in out and "tensorplug-backend-numpy" in out


def test_the_demo_without_jit_runs_op_by_op_and_learns_the_same(capsys) -> None:
    lines = {}
    for flag in ("--jit", "--no-jit"):
        assert cli.main(["demo", "--epochs", "1", "--no-progress", "--seed", "3", flag]) == 0
        out = capsys.readouterr().out
        lines[flag] = [line for line in out.splitlines() if line.startswith(("final training", "test acc"))]
        assert ("Kernels run (" in out) == (flag == "--no-jit")
    assert "train step: eager, op by op (--no-jit)" in out
    assert lines["--jit"] == lines["--no-jit"] and len(lines["--jit"]) == 2


@pytest.mark.slow
def test_console_script_runs_the_demo(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / ("tensorplug.exe" if os.name == "nt" else "tensorplug")
    assert script.exists(), f"the console script is not installed next to {sys.executable}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    proc = subprocess.run([str(script), "demo", "--epochs", "1"], capture_output=True, text=True,
                          cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    accuracy = float(proc.stdout.split("test accuracy:")[1].split()[0])
    assert accuracy > 0.5
    assert "Kernels traced into the compiled step" in proc.stdout and "registered by" in proc.stdout
    assert "train step: tp.jit, compiled by backend 'numpy'" in proc.stdout
    assert "epoch 1/1" in proc.stderr and "batch" in proc.stderr  # fit's bar (tqdm)
    assert tp.__version__ in proc.stdout
