"""tensorplug's speed against raw numpy (and torch, when it is installed), side by side.

    python benchmarks/run.py            (or: make bench)

Prints per-call medians and ratios to raw numpy for: a tiny ``add`` on 4 float32;
``value_and_grad`` of ``sum(exp(x*w+b))`` on 4 floats; one epoch of the demo's MLP (same data,
initial weights and batches) against a hand-written numpy MLP with manual backprop and Adam (the
floor), and torch eager. Frameworks are measured in interleaved rounds, so that load on the
machine hits them alike; absolute times move between runs, ratios hold better. Results are also
written to benchmarks/results/ (not kept in git).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy_mlp  # noqa: E402  (benchmarks/numpy_mlp.py: the hand-written floor)
import tensorplug as tp  # noqa: E402
from tensorplug.cli.digits_mlp import Training, epoch_batches, init_params, load_digits_split  # noqa: E402

try:
    import torch
except ImportError:  # torch is optional: its columns are left out
    torch = None  # type: ignore[assignment]

MLP_TARGET = 2.7  # the target: a tensorplug epoch costs at most 2.7x the numpy one


def per_call(fn: Callable[[], Any], number: int) -> float:
    """Seconds per call of one timeit round of `number` calls."""
    return timeit.Timer(fn).timeit(number) / number


def interleaved(cases: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """Median over `rounds` of each case's measurement; the cases take turns in each round."""
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, measure in cases.items():
            samples[name].append(measure())
    return {name: statistics.median(v) for name, v in samples.items()}


# -- tiny add -------------------------------------------------------------------------------------
def bench_add(rounds: int, number: int) -> dict[str, float]:
    a_np = np.arange(4, dtype=np.float32)
    b_np = np.ones(4, dtype=np.float32)
    a_tp, b_tp = tp.asarray(a_np), tp.asarray(b_np)
    cases = {
        "numpy": lambda: per_call(lambda: np.add(a_np, b_np), number),
        "tensorplug": lambda: per_call(lambda: tp.add(a_tp, b_tp), number),
        "tensorplug (x + y)": lambda: per_call(lambda: a_tp + b_tp, number),
    }
    if torch is not None:
        a_t, b_t = torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())
        cases["torch"] = lambda: per_call(lambda: torch.add(a_t, b_t), number)
    return interleaved(cases, rounds)


# -- value_and_grad of sum(exp(x*w+b)) ------------------------------------------------------------
def bench_value_and_grad(rounds: int, number: int) -> dict[str, float]:
    x_np = np.array([0.1, -0.2, 0.3, 0.4], np.float32)
    w_np = np.array([0.5, 0.6, -0.7, 0.8], np.float32)
    b_np = np.array([0.01, 0.02, 0.03, -0.04], np.float32)

    def numpy_vg() -> tuple[float, np.ndarray, np.ndarray]:
        e = np.exp(x_np * w_np + b_np)
        return e.sum(), e * x_np, e  # d/dw = e * x, d/db = e

    x_tp, w_tp, b_tp = tp.asarray(x_np), tp.asarray(w_np), tp.asarray(b_np)
    tp_vg = tp.value_and_grad(lambda w, b: tp.sum(tp.exp(x_tp * w + b)), argnums=(0, 1))
    check = tp_vg(w_tp, b_tp)
    ref = numpy_vg()
    np.testing.assert_allclose(float(check[0]), ref[0], rtol=1e-5)
    np.testing.assert_allclose(check[1][0].numpy(), ref[1], rtol=1e-5)
    cases = {
        "numpy": lambda: per_call(numpy_vg, number),
        "tensorplug": lambda: per_call(lambda: tp_vg(w_tp, b_tp), number),
    }
    if torch is not None:
        x_t = torch.from_numpy(x_np.copy())
        w_t = torch.from_numpy(w_np.copy()).requires_grad_()
        b_t = torch.from_numpy(b_np.copy()).requires_grad_()

        def torch_vg() -> Any:
            loss = torch.exp(x_t * w_t + b_t).sum()
            return loss, torch.autograd.grad(loss, (w_t, b_t))

        cases["torch"] = lambda: per_call(torch_vg, number)
    return interleaved(cases, rounds)


# -- the demo's MLP epoch -------------------------------------------------------------------------
class TorchMLP:
    """The demo's MLP in torch eager: same initial weights, batches and Adam (torch's Adam puts
    epsilon where TF.js does)."""

    def __init__(self, data: Any, seed: int, batch_size: int) -> None:
        self.params = [torch.from_numpy(v.copy()).requires_grad_() for v in init_params(seed).values()]
        self.opt = torch.optim.Adam(self.params, lr=1e-3, betas=(0.9, 0.999), eps=1e-7)
        self.x = torch.from_numpy(data.x_train)
        self.y = torch.from_numpy(data.y_train)
        self.x_test, self.y_test = torch.from_numpy(data.x_test), torch.from_numpy(data.y_test)
        self.rng = np.random.default_rng(seed)
        self.batch_size = batch_size

    def logits(self, x: Any) -> Any:
        w1, b1, w2, b2 = self.params
        return torch.relu(x @ w1 + b1) @ w2 + b2

    def epoch(self) -> float:
        losses = []
        for idx in epoch_batches(len(self.y), self.batch_size, self.rng):
            i = torch.from_numpy(idx)
            self.opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(self.logits(self.x[i]), self.y[i])
            loss.backward()
            self.opt.step()
            losses.append(loss.item())
        return float(np.mean(losses))

    def accuracy(self) -> float:
        with torch.no_grad():
            return float((self.logits(self.x_test).argmax(dim=1) == self.y_test).float().mean())


def bench_mlp(epochs: int, seed: int = 0, batch_size: int = 32) -> tuple[dict[str, float], dict[str, float]]:
    """Train each framework for `epochs`, one epoch each in turn; median seconds per epoch (the
    first epoch, a warm-up, excluded) and test accuracy at the end."""
    data = load_digits_split()
    floor = numpy_mlp.NumpyMLP(seed)
    floor_rng = np.random.default_rng(seed)
    demo = Training(data, seed=seed, batch_size=batch_size)
    runners: dict[str, Callable[[], Any]] = {
        "numpy": lambda: numpy_mlp.run_epoch(floor, data, batch_size, floor_rng),
        "tensorplug": demo.epoch,
    }
    accuracies: dict[str, Callable[[], float]] = {
        "numpy": lambda: numpy_mlp.accuracy(floor, data),
        "tensorplug": demo.test_accuracy,
    }
    if torch is not None:
        torch_mlp = TorchMLP(data, seed, batch_size)
        runners["torch"] = torch_mlp.epoch
        accuracies["torch"] = torch_mlp.accuracy
    samples: dict[str, list[float]] = {name: [] for name in runners}
    for epoch in range(epochs):
        for name, run in runners.items():
            start = time.perf_counter()
            run()
            if epoch:
                samples[name].append(time.perf_counter() - start)
    times = {name: statistics.median(v) for name, v in samples.items()}
    return times, {name: acc() for name, acc in accuracies.items()}


# -- import ---------------------------------------------------------------------------------------
def bench_import() -> dict[str, Any]:
    code = ("import sys, time; t = time.perf_counter(); import tensorplug; "
            "t = time.perf_counter() - t; "
            "print(t, [m for m in sys.modules if m.startswith('tensorplug_')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, plugins = out.stdout.split(" ", 1)
    return {"seconds": float(seconds), "plugin_modules": eval(plugins)}  # noqa: S307 (our own output)


# -- report ---------------------------------------------------------------------------------------
def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e3:.2f} ms"


def row(label: str, base: float, values: dict[str, float], columns: list[str]) -> str:
    cells = [f"{label:<34}", f"{fmt_time(base):>10}"]
    for col in columns:
        v = values.get(col)
        cells.append(f"{'-' if v is None else f'{fmt_time(v)} ({v / base:.1f}x)':>20}")
    return "  ".join(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and epochs (a smoke run)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds per micro-benchmark")
    parser.add_argument("--epochs", type=int, default=None, help="MLP epochs per framework (default 30)")
    parser.add_argument("--no-torch", action="store_true", help="leave torch out even if installed")
    parser.add_argument("--results", type=Path, default=HERE / "results",
                        help="directory for the JSON results (default: benchmarks/results)")
    args = parser.parse_args(argv)
    global torch
    if args.no_torch:
        torch = None  # type: ignore[assignment]
    rounds = args.rounds or (3 if args.quick else 15)
    number = 2000 if args.quick else 20000
    epochs = args.epochs or (3 if args.quick else 30)
    if torch is not None:
        torch.set_num_threads(1)

    command = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
    torch_text = f"torch {torch.__version__} (1 thread)" if torch is not None else "torch not installed"
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    print("tensorplug benchmarks")
    print(f"command: {command}")
    print(f"python {platform.python_version()}, numpy {np.__version__}, {torch_text}; tensorplug "
          f"{tp.__version__} on backend '{tp.get_backend()}'; {os.cpu_count()} CPUs, {platform.system()} "
          f"{platform.machine()}")
    print(f"OPENBLAS_CORETYPE={coretype!r} (may be set on this machine; left as found)"
          if coretype else "OPENBLAS_CORETYPE is not set (it may be on some machines; left as found)")
    print(f"medians of {rounds} interleaved rounds ({number} calls each) and of {epochs - 1} epochs "
          "after a warm-up one; ratios are to raw numpy, lower is better")
    print()

    imp = bench_import()
    add = bench_add(rounds, number)
    vg = bench_value_and_grad(rounds, max(number // 10, 200))
    mlp, acc = bench_mlp(epochs)

    columns = ["tensorplug"] + (["torch"] if torch is not None else [])
    print(f"{'benchmark':<34}  {'numpy':>10}  " + "  ".join(f"{c:>20}" for c in columns))
    print(row("tiny add, 4 x float32", add["numpy"], add, columns))
    print(row("  the same with the + operator", add["numpy"],
              {"tensorplug": add["tensorplug (x + y)"]}, ["tensorplug"]))
    print(row("value_and_grad sum(exp(x*w+b)), 4", vg["numpy"], vg, columns))
    print(row("MLP epoch (digits, batch 32)", mlp["numpy"], mlp, columns))
    print(f"{'  test accuracy after ' + str(epochs) + ' epochs':<34}  {acc['numpy']:>10.4f}  "
          + "  ".join(f"{acc[c]:>20.4f}" for c in columns))
    print()
    print(f"import tensorplug: {imp['seconds'] * 1e3:.0f} ms, plugin modules imported: "
          f"{imp['plugin_modules'] or 'none'}")
    add_ratio = add["tensorplug"] / add["numpy"]
    mlp_ratio = mlp["tensorplug"] / mlp["numpy"]
    verdicts = [f"MLP epoch {mlp_ratio:.2f}x numpy (target <= {MLP_TARGET}x): "
                f"{'met' if mlp_ratio <= MLP_TARGET else 'NOT met'}"]
    if torch is not None:
        torch_ratio = add["torch"] / add["numpy"]
        verdicts.insert(0, f"tiny add {add_ratio:.2f}x numpy vs torch's {torch_ratio:.2f}x (target: no more "
                           f"than torch's): {'met' if add_ratio <= torch_ratio else 'NOT met'}")
    for v in verdicts:
        print("target: " + v)

    args.results.mkdir(parents=True, exist_ok=True)
    out = args.results / time.strftime("bench-%Y%m%d-%H%M%S.json")
    out.write_text(json.dumps({
        "command": command, "numpy": np.__version__, "torch": torch.__version__ if torch else None,
        "tensorplug": tp.__version__, "openblas_coretype": coretype, "rounds": rounds, "epochs": epochs,
        "seconds": {"add": add, "value_and_grad": vg, "mlp_epoch": mlp}, "accuracy": acc, "import": imp,
    }, indent=2))
    print(f"results written to {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
