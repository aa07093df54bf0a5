"""tensorplug's speed against raw numpy (and torch, when it is installed), side by side.

    python benchmarks/run.py            (or: make bench)
    python benchmarks/run.py --only mlp (one group of rows: tiny, plugin, value_and_grad or mlp)

Prints per-call medians and ratios to raw numpy for: tiny ``add``, ``matmul``, ``exp`` and ``sum``
on 4 float32 (matmul: 4x4); an op a plugin defines through the public ``Dispatcher`` against the
same op in core; eager and under ``tp.jit`` (a replayed plan on numpy): ``value_and_grad`` of
``sum(exp(x*w+b))`` on 4 floats; one epoch of the demo's MLP (same data and initial weights; a
``tp.nn.Sequential`` trained with ``model.fit``, one ``fit`` call per epoch) against a hand-
written numpy MLP with manual backprop and Adam (the floor), and torch eager. Frameworks are
measured in interleaved rounds, so that load on the machine hits them alike; absolute times move
between runs, ratios hold better. Results are also written to benchmarks/results/ (not kept in
git)."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# numpy's BLAS (OpenBLAS, which tensorplug's numpy backend uses too) gets one thread, as torch
# does below: on a small machine a second core busy with something else otherwise moves the
# numpy, tensorplug and tp.jit columns from run to run. Set before numpy loads; a value given
# in the environment is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as common  # noqa: E402  (this folder's: what the benchmark scripts share)
import numpy_mlp  # noqa: E402  (benchmarks/numpy_mlp.py: the hand-written floor)
import tensorplug as tp  # noqa: E402
from tensorplug.cli.digits_mlp import Training, epoch_batches, init_params, load_digits_split  # noqa: E402

try:
    import torch
except ImportError:  # torch is optional: its columns are left out
    torch = None  # type: ignore[assignment]

GROUPS = ("tiny", "plugin", "value_and_grad", "mlp")  # the row groups --only picks from
MLP_TARGET = 2.4  # a tensorplug epoch costs at most 2.4x the hand-written numpy one
PLUGIN_OP_TARGET = 1.2  # a plugin's op through the public Dispatcher, against the same op in core
JIT_MLP_TARGET = 1.15  # the demo trained with model.fit under tp.jit on numpy (issue 33), against numpy
JIT_VG_TARGET = 4.0  # value_and_grad of sum(exp(x*w+b)) under tp.jit on numpy, against numpy


def interleaved(cases: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """Median over `rounds` of each case's measurement; the cases take turns in each round."""
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, measure in cases.items():
            samples[name].append(measure())
    return {name: statistics.median(v) for name, v in samples.items()}


# -- tiny ops -------------------------------------------------------------------------------------
TINY_OPS = ("add", "matmul", "exp", "sum")  # each no dearer, relative to numpy, than torch's


def bench_tiny_ops(rounds: int, number: int) -> dict[str, dict[str, float]]:
    """Per op: numpy, tensorplug (and torch) on 4 float32 (matmul: 4x4 by 4x4)."""
    a_np = np.arange(4, dtype=np.float32)
    b_np = np.ones(4, dtype=np.float32)
    m_np = np.arange(16, dtype=np.float32).reshape(4, 4)
    a_tp, b_tp, m_tp = tp.asarray(a_np), tp.asarray(b_np), tp.asarray(m_np)
    calls: dict[str, dict[str, Callable[[], Any]]] = {
        "add": {"numpy": lambda: np.add(a_np, b_np), "tensorplug": lambda: tp.add(a_tp, b_tp),
                "tensorplug (x + y)": lambda: a_tp + b_tp},
        "matmul": {"numpy": lambda: np.matmul(m_np, m_np), "tensorplug": lambda: tp.matmul(m_tp, m_tp)},
        "exp": {"numpy": lambda: np.exp(a_np), "tensorplug": lambda: tp.exp(a_tp)},
        "sum": {"numpy": lambda: np.sum(a_np), "tensorplug": lambda: tp.sum(a_tp)},
    }
    if torch is not None:
        a_t, b_t, m_t = (torch.from_numpy(v.copy()) for v in (a_np, b_np, m_np))
        calls["add"]["torch"] = lambda: torch.add(a_t, b_t)
        calls["matmul"]["torch"] = lambda: torch.matmul(m_t, m_t)
        calls["exp"]["torch"] = lambda: torch.exp(a_t)
        calls["sum"]["torch"] = lambda: torch.sum(a_t)
    return {op: interleaved({name: (lambda f=f: common.per_call(f, number)) for name, f in fns.items()},
                            rounds)
            for op, fns in calls.items()}


# -- an op of a plugin against the same op in core --------------------------------------------
def bench_plugin_op(rounds: int, number: int) -> dict[str, float]:
    """``tp.exp`` against an op written as a plugin writes one (public API only): its own kernel
    spec, the numpy backend's Exp kernel registered under it, and a ``Dispatcher``."""
    from tensorplug.extend import (
        Dispatcher,
        KernelConfig,
        KernelSpec,
        get_kernel,
        register_kernel,
        register_kernel_spec,
    )

    core = get_kernel("Exp", tp.get_backend())
    register_kernel_spec(KernelSpec("PluginExp", ("x",), lambda infos, attrs: [infos[0]],
                                    input_dtypes={"x": (tp.float32, tp.float64)}))
    register_kernel(KernelConfig("PluginExp", core.backend_name, core.kernel_func, direct=core.direct))
    run = Dispatcher("PluginExp").unary

    def plugin_exp(x: Any) -> tp.Tensor:
        if not (isinstance(x, tp.Tensor) and x.dtype.kind == "float"):
            x = tp.astype(tp.asarray(x), tp.float32)
        return run(x)

    a = tp.asarray(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(plugin_exp(a).numpy(), tp.exp(a).numpy())
    return interleaved({"core op": lambda: common.per_call(lambda: tp.exp(a), number),
                        "plugin op": lambda: common.per_call(lambda: plugin_exp(a), number)}, rounds)


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
    tp_vg_jit = tp.jit(tp_vg)
    jitted = tp_vg_jit(w_tp, b_tp)
    assert float(jitted[0]) == float(check[0]) and jitted[1][0].tolist() == check[1][0].tolist()
    cases = {
        "numpy": lambda: common.per_call(numpy_vg, number),
        "tensorplug": lambda: common.per_call(lambda: tp_vg(w_tp, b_tp), number),
        "tensorplug tp.jit": lambda: common.per_call(lambda: tp_vg_jit(w_tp, b_tp), number),
    }
    if torch is not None:
        x_t = torch.from_numpy(x_np.copy())
        w_t = torch.from_numpy(w_np.copy()).requires_grad_()
        b_t = torch.from_numpy(b_np.copy()).requires_grad_()

        def torch_vg() -> Any:
            loss = torch.exp(x_t * w_t + b_t).sum()
            return loss, torch.autograd.grad(loss, (w_t, b_t))

        cases["torch"] = lambda: common.per_call(torch_vg, number)
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
    planned = Training(data, seed=seed, batch_size=batch_size, jit=True)
    runners: dict[str, Callable[[], Any]] = {
        "numpy": lambda: numpy_mlp.run_epoch(floor, data, batch_size, floor_rng),
        "tensorplug": demo.epoch,
        "tensorplug tp.jit": planned.epoch,
    }
    accuracies: dict[str, Callable[[], float]] = {
        "numpy": lambda: numpy_mlp.accuracy(floor, data),
        "tensorplug": demo.test_accuracy,
        "tensorplug tp.jit": planned.test_accuracy,
    }
    if torch is not None:
        torch_mlp = TorchMLP(data, seed, batch_size)
        runners["torch"] = torch_mlp.epoch
        accuracies["torch"] = torch_mlp.accuracy
    return common.epoch_medians(runners, epochs), {name: acc() for name, acc in accuracies.items()}


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
    parser = common.argument_parser(__doc__, "fewer rounds and epochs (a smoke run)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds per micro-benchmark")
    parser.add_argument("--epochs", type=int, default=None, help="MLP epochs per framework (default 30)")
    parser.add_argument("--only", choices=GROUPS, action="append",
                        help="run only this group of rows (repeat for several; default: all)")
    parser.add_argument("--no-torch", action="store_true", help="leave torch out even if installed")
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    global torch
    if args.no_torch:
        torch = None  # type: ignore[assignment]
    rounds = args.rounds or (3 if args.quick else 15)
    number = 2000 if args.quick else 20000
    epochs = args.epochs or (3 if args.quick else 30)
    if torch is not None:
        torch.set_num_threads(1)

    command = common.command_line()
    torch_text = f"torch {torch.__version__} (1 thread)" if torch is not None else "torch not installed"
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    common.print_header("tensorplug benchmarks", command)
    print(f"python {platform.python_version()}, numpy {np.__version__}, {torch_text}; tensorplug "
          f"{tp.__version__} on backend '{tp.get_backend()}'; {os.cpu_count()} CPUs, {platform.system()} "
          f"{platform.machine()}")
    print(f"numpy's BLAS: OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    print(f"OPENBLAS_CORETYPE={coretype!r} (may be set on this machine; left as found)"
          if coretype else "OPENBLAS_CORETYPE is not set (it may be on some machines; left as found)")
    print(f"medians of {rounds} interleaved rounds ({number} calls each) and of {epochs - 1} epochs "
          "after a warm-up one; ratios are to raw numpy, lower is better")
    print()

    groups = set(args.only or GROUPS)
    imp = bench_import()
    tiny = bench_tiny_ops(rounds, number) if "tiny" in groups else {}
    plugin = bench_plugin_op(rounds, number) if "plugin" in groups else {}
    vg = bench_value_and_grad(rounds, max(number // 10, 200)) if "value_and_grad" in groups else {}
    mlp, acc = bench_mlp(epochs) if "mlp" in groups else ({}, {})

    columns = ["tensorplug"] + (["torch"] if torch is not None else [])
    jit_columns = ["tensorplug", "tensorplug tp.jit"] + (["torch"] if torch is not None else [])
    verdicts = []
    if tiny:
        print(f"{'benchmark':<34}  {'numpy':>10}  " + "  ".join(f"{c:>20}" for c in columns))
        for op in TINY_OPS:
            shape = "4x4 @ 4x4" if op == "matmul" else "4"
            print(row(f"tiny {op}, {shape} float32", tiny[op]["numpy"], tiny[op], columns))
            if op == "add":
                print(row("  the same with the + operator", tiny["add"]["numpy"],
                          {"tensorplug": tiny["add"]["tensorplug (x + y)"]}, ["tensorplug"]))
        print()
        if torch is not None:
            for op in TINY_OPS:
                ours, theirs = (tiny[op][k] / tiny[op]["numpy"] for k in ("tensorplug", "torch"))
                verdicts.append(f"tiny {op} {ours:.2f}x numpy vs torch's {theirs:.2f}x (target: no more "
                                f"than torch's): {'met' if ours <= theirs else 'NOT met'}")
    if vg or mlp:
        print(f"{'benchmark':<34}  {'numpy':>10}  " + "  ".join(f"{c:>20}" for c in jit_columns))
    if vg:
        print(row("value_and_grad sum(exp(x*w+b)), 4", vg["numpy"], vg, jit_columns))
    if mlp:
        print(row("MLP epoch (digits, batch 32)", mlp["numpy"], mlp, jit_columns))
        print(f"{'  test accuracy after ' + str(epochs) + ' epochs':<34}  {acc['numpy']:>10.4f}  "
              + "  ".join(f"{acc[c]:>20.4f}" for c in jit_columns))
        mlp_ratio = mlp["tensorplug"] / mlp["numpy"]
        jit_mlp_ratio = mlp["tensorplug tp.jit"] / mlp["numpy"]
        verdicts += [f"MLP epoch {mlp_ratio:.2f}x numpy (target <= {MLP_TARGET}x): "
                     f"{'met' if mlp_ratio <= MLP_TARGET else 'NOT met'}",
                     f"MLP epoch under tp.jit {jit_mlp_ratio:.2f}x numpy (target <= {JIT_MLP_TARGET}x): "
                     f"{'met' if jit_mlp_ratio <= JIT_MLP_TARGET else 'NOT met'}"]
    if vg:
        jit_vg_ratio = vg["tensorplug tp.jit"] / vg["numpy"]
        verdicts.append(f"value_and_grad under tp.jit {jit_vg_ratio:.2f}x numpy (target <= "
                        f"{JIT_VG_TARGET}x): {'met' if jit_vg_ratio <= JIT_VG_TARGET else 'NOT met'}")
    print()
    print(f"import tensorplug: {imp['seconds'] * 1e3:.0f} ms, plugin modules imported: "
          f"{imp['plugin_modules'] or 'none'}")
    if plugin:
        print(f"a plugin's op through the public Dispatcher: {fmt_time(plugin['plugin op'])} against "
              f"{fmt_time(plugin['core op'])} for tp.exp")
        plugin_ratio = plugin["plugin op"] / plugin["core op"]
        verdicts.append(f"plugin op {plugin_ratio:.2f}x the core op (target <= {PLUGIN_OP_TARGET}x): "
                        f"{'met' if plugin_ratio <= PLUGIN_OP_TARGET else 'NOT met'}")
    for v in verdicts:
        print("target: " + v)

    common.write_results(args.results, "bench", {
        "command": command, "numpy": np.__version__, "torch": torch.__version__ if torch else None,
        "tensorplug": tp.__version__, "openblas_coretype": coretype, "rounds": rounds, "epochs": epochs,
        "seconds": {**tiny, "plugin_op": plugin, "value_and_grad": vg, "mlp_epoch": mlp},
        "accuracy": acc, "import": imp,
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
