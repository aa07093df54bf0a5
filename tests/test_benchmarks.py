"""The benchmark script runs (a smoke run: one round, two epochs, no torch); its figures are
for people, not asserted here (speed targets are met in benchmarks, never in timed tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # each runs a benchmark script in a subprocess (~10 s)


def test_the_numpy_benchmark_runs_and_reports_every_row(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--no-torch", "--rounds", "1",
         "--epochs", "2", "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    for row in ("tiny add", "tiny matmul", "tiny exp", "tiny sum", "value_and_grad", "MLP epoch",
                "a plugin's op through the public Dispatcher", "MLP epoch under tp.jit"):
        assert row in proc.stdout, row
    assert len(list(tmp_path.glob("bench-*.json"))) == 1


def test_the_array_api_benchmark_runs_and_reports_its_rows(tmp_path):
    """A smoke run of benchmarks/array_api_bench.py on its cheapest cases, both backends."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "array_api_bench.py"), "--rounds", "1", "--only", "shift",
         "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "numpy backend against numpy" in proc.stdout and "jax backend against jax.numpy" in proc.stdout
    assert proc.stdout.count("fft.fftshift ") == 2 and proc.stdout.count("fft.ifftshift ") == 2
    assert "results differ" not in proc.stdout
    assert len(list(tmp_path.glob("array-api-bench-*.json"))) == 1


def test_the_conv_benchmark_runs_and_reports_its_rows(tmp_path):
    """A smoke run of benchmarks/conv_bench.py: one round, the jax backend's rows (torch is
    not a test dependency)."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "conv_bench.py"), "--rounds", "1", "--no-torch",
         "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Conv2D forward " in proc.stdout and "Conv2D forward+backward" in proc.stdout
    assert "results differ" not in proc.stdout
    assert len(list(tmp_path.glob("conv-bench-*.json"))) == 1


def test_the_cnn_benchmark_runs_and_reports_its_rows(tmp_path):
    """A smoke run of benchmarks/cnn_bench.py: two epochs of the demo's CNN, tp.jit and eager
    (and torch's when it is installed), learning the same."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "cnn_bench.py"), "--quick", "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if "ms/epoch" in line]
    assert {"tp.jit", "eager"} <= {row[1] for row in rows}
    assert len({row[-1] for row in rows}) == 1  # one test accuracy: every framework trains the same model
    assert len(list(tmp_path.glob("cnn-bench-*.json"))) == 1


@pytest.mark.jax
def test_the_checkpoint_benchmark_runs_and_reports_its_rows(tmp_path):
    """A smoke run of benchmarks/checkpoint_bench.py: a small MLP, one round, both backends;
    its gradients equal the plain ones and its tape keeps fewer bytes."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "checkpoint_bench.py"), "--quick",
         "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("equal: True") == 2, proc.stdout
    for row in ("plain", "checkpointed", "value_and_grad, eager", "value_and_grad under tp.jit"):
        assert row in proc.stdout, row
    results = json.loads(next(tmp_path.glob("checkpoint-bench-*.json")).read_text())
    assert all(results[b]["memory"]["tape_bytes_ratio"] < 0.5 for b in ("numpy", "jax"))


def test_the_transforms_benchmark_runs_and_reports_its_rows(tmp_path):
    """A smoke run of benchmarks/transforms_bench.py: one round, per-example gradients (vmap
    and a loop, checked to agree before timing) and hvp on the numpy backend."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "transforms_bench.py"), "--rounds", "1", "--no-jax",
         "--no-torch", "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    for row in ("per-example grads, vmap(grad)", "per-example grads, loop of grads", "hvp",
                "under tp.jit: vmap(grad) vs grad"):
        assert row in proc.stdout, row
    assert len(list(tmp_path.glob("transforms-bench-*.json"))) == 1


def test_the_import_benchmark_runs_and_prints_both_medians_and_the_difference(tmp_path):
    """A smoke run of benchmarks/import_bench.py (one interpreter each); its figures are not asserted."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "import_bench.py"), "--runs", "1"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "import numpy" in proc.stdout and "import tensorplug" in proc.stdout
    assert "difference" in proc.stdout and "budget 50 ms" in proc.stdout


def test_the_models_benchmark_runs_and_reports_its_row(tmp_path):
    """A smoke run of benchmarks/models_bench.py: the module's step against the bare one."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "models_bench.py"), "--quick", "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "MLP step under tp.jit" in proc.stdout and "results differ" not in proc.stdout
    assert len(list(tmp_path.glob("models-bench-*.json"))) == 1


def test_the_torch_benchmark_runs_and_reports_its_rows(tmp_path):
    """A smoke run of benchmarks/torch_bench.py: the tiny ops and two epochs on the torch backend."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "torch_bench.py"), "--quick", "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    for row in ("tiny add", "tiny matmul", "MLP epoch, eager", "MLP epoch, tp.jit"):
        assert row in proc.stdout, row
    assert len(list(tmp_path.glob("torch-bench-*.json"))) == 1


def test_the_random_keys_benchmark_runs_and_reports_its_rows(tmp_path):
    """A smoke run of benchmarks/random_keys_bench.py: 10^4 numbers, three rounds."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "random_keys_bench.py"), "--quick",
         "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    for row in ("bits (uint32)", "uniform (float32)", "normal (float32)", "normal under tp.jit"):
        assert row in proc.stdout, row
    assert "results differ" not in proc.stdout
    assert len(list(tmp_path.glob("random-keys-bench-*.json"))) == 1


@pytest.mark.jax
def test_the_rnn_benchmark_runs_and_reports_its_rows(tmp_path):
    """A smoke run of benchmarks/rnn_bench.py: the forward rows, one round."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "rnn_bench.py"), "--quick", "--rounds", "1",
         "--results", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    for row in ("numpy: forward ", "numpy: tp.nn.LSTM layer", "jax: forward "):
        assert row in proc.stdout, row
    assert "results differ" not in proc.stdout
    assert len(list(tmp_path.glob("rnn-bench-*.json"))) == 1
