"""The torch backend (``tensorplug-backend-torch``) against raw torch, side by side, one thread.

    python benchmarks/torch_bench.py            (or: make bench; --rounds N, --epochs N, --quick)

Issue 36's targets: tiny ``add``, ``matmul``, ``exp`` and ``sum`` on the torch backend no more
than 1.5x raw torch on the same tensors (torch's own dispatch is the floor); the demo MLP's
epoch on the torch backend, eager, no more than torch eager's own epoch for the same model
(``benchmarks/run.py``'s ``TorchMLP``: same data, first weights and Adam), and under ``tp.jit``
no more than 0.7x of it. Interleaved rounds; the ratios are of the medians. Results are written
to benchmarks/results/.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as common  # noqa: E402
import tensorplug as tp  # noqa: E402
from run import TorchMLP  # noqa: E402  (the demo's MLP in plain torch)
from tensorplug.cli.digits_mlp import Training, load_digits_split  # noqa: E402

TINY_TARGET = 1.5
EAGER_TARGET = 1.0
JIT_TARGET = 0.7


def tiny(rounds: int, number: int) -> dict[str, tuple[float, float]]:
    """Per op: (raw torch, torch backend) seconds per call, medians of interleaved rounds."""
    a, b = torch.arange(4, dtype=torch.float32), torch.ones(4)
    m = torch.arange(16, dtype=torch.float32).reshape(4, 4)
    tp.set_backend("torch")  # (ops run on the active backend)
    ta, tb, tm = tp.asarray(a.numpy()), tp.asarray(b.numpy()), tp.asarray(m.numpy())
    cases: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
        "add": (lambda: torch.add(a, b), lambda: tp.add(ta, tb)),
        "matmul": (lambda: torch.matmul(m, m), lambda: tp.matmul(tm, tm)),
        "exp": (lambda: torch.exp(a), lambda: tp.exp(ta)),
        "sum": (lambda: torch.sum(a), lambda: tp.sum(ta)),
    }
    samples: dict[str, tuple[list[float], list[float]]] = {op: ([], []) for op in cases}
    for _ in range(rounds):
        for op, (peer, ours) in cases.items():
            samples[op][0].append(common.per_call(peer, number))
            samples[op][1].append(common.per_call(ours, number))
    return {op: (statistics.median(p), statistics.median(o)) for op, (p, o) in samples.items()}


def mlp(epochs: int, seed: int = 0, batch_size: int = 32) -> dict[str, float]:
    """Median seconds per epoch: torch eager, and the demo's model trained with fit on the
    torch backend, eager and under tp.jit."""
    data = load_digits_split()
    tp.set_backend("torch")
    eager, planned = (Training(data, seed=seed, batch_size=batch_size, jit=jit) for jit in (False, True))
    runners = {"torch eager": TorchMLP(data, seed, batch_size).epoch,
               "tensorplug on torch, eager": eager.epoch, "tensorplug on torch, tp.jit": planned.epoch}
    return common.epoch_medians(runners, epochs)


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__, "fewer rounds and epochs (a smoke run)", rounds=15)
    parser.add_argument("--epochs", type=int, default=None, help="MLP epochs per framework (default 10)")
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    rounds, epochs = args.rounds or (3 if args.quick else 15), args.epochs or (2 if args.quick else 10)
    torch.set_num_threads(1)
    command = common.command_line()
    common.print_header("tensorplug's torch backend against raw torch", command,
                        common.environment() + f"; torch {torch.__version__}, 1 thread")
    verdicts = []
    small = tiny(rounds, 200 if args.quick else 5000)
    print(f"  {'tiny op (4 float32; matmul 4x4)':34s} {'torch':>10s} {'tensorplug':>12s} {'ratio':>7s}")
    for op, (peer, ours) in small.items():
        ratio = ours / peer
        print(f"  {op:34s} {peer * 1e6:8.2f} us {ours * 1e6:10.2f} us {ratio:6.2f}x")
        verdicts.append(f"tiny {op} {ratio:.2f}x raw torch (target <= {TINY_TARGET}x): "
                        f"{'met' if ratio <= TINY_TARGET else 'NOT met'}")
    epochs_s = mlp(epochs)
    peer = epochs_s["torch eager"]
    print(f"\n  {'demo MLP epoch (digits, batch 32)':34s} {'ms':>10s} {'ratio':>12s}")
    for name, seconds in epochs_s.items():
        print(f"  {name:34s} {seconds * 1e3:10.2f} {seconds / peer:11.2f}x")
    targets = {"tensorplug on torch, eager": EAGER_TARGET, "tensorplug on torch, tp.jit": JIT_TARGET}
    for name, target in targets.items():
        ratio = epochs_s[name] / peer
        verdicts.append(f"MLP epoch, {name.removeprefix('tensorplug on torch, ')}: {ratio:.2f}x torch eager "
                        f"(target <= {target}x): {'met' if ratio <= target else 'NOT met'}")
    print()
    for v in verdicts:
        print("target: " + v)
    common.write_results(args.results, "torch-bench", {"command": command, "tiny": small, "mlp": epochs_s,
                                                       "verdicts": verdicts})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
