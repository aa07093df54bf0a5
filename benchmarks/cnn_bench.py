"""One epoch of the CNN demo (``tensorplug demo --model cnn``) on the numpy backend against the
same model in torch eager, one thread each.

    python benchmarks/cnn_bench.py            (or: make bench; --epochs N, --quick)

Issues 15 and 33's target: the demo's epoch (``model.fit`` of a ``tp.nn.Sequential``, its step
under ``tp.jit``, a replayed plan on numpy) costs no more than torch eager's. Same data, initial
weights, batch order, Adam and model: conv 3x3x16, relu, max pool 2x2 stride 1 ('SAME'), conv
3x3x32, relu, max pool 2x2 stride 2, dense 10 (torch in its own NCHW layout, its features
flattened in tensorplug's channels-last order). tensorplug eager is shown too. The frameworks take
turns, one epoch each, so that load on the machine hits them alike; the first epoch (a warm-up,
and the trace for tp.jit) is left out of the medians. Results are written to benchmarks/results/
(not kept in git)."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one BLAS thread, as torch below

import numpy as np  # noqa: E402

import tensorplug as tp  # noqa: E402
from tensorplug.cli.demo import DEFAULT_LEARNING_RATES  # noqa: E402
from tensorplug.cli.digits_cnn import init_cnn_params  # noqa: E402
from tensorplug.cli.digits_mlp import Digits, Training, load_digits_split  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as common  # noqa: E402  (this folder's: what the benchmark scripts share)
from run import TorchMLP, torch  # noqa: E402  (benchmarks/run.py: the MLP's torch loop)

TARGET = 1.0  # the demo's CNN epoch (tp.jit on numpy) against torch eager's
LEARNING_RATE = DEFAULT_LEARNING_RATES["cnn"]


class TorchCNN(TorchMLP):
    """The demo's CNN in torch eager: the same initial weights (HWIO kernels as OIHW), batches
    and Adam (torch's Adam puts epsilon where TF.js does); epochs and accuracy as run.py's MLP."""

    def __init__(self, data: Digits, seed: int, batch_size: int) -> None:
        p = init_cnn_params(seed)
        arrays = [p["conv1"].transpose(3, 2, 0, 1), p["bias1"], p["conv2"].transpose(3, 2, 0, 1), p["bias2"],
                  p["dense"], p["bias3"]]
        self.params = [torch.from_numpy(np.ascontiguousarray(a)).requires_grad_() for a in arrays]
        self.opt = torch.optim.Adam(self.params, lr=LEARNING_RATE, betas=(0.9, 0.999), eps=1e-7)
        self.x = torch.from_numpy(data.x_train).reshape(-1, 1, 8, 8)
        self.y = torch.from_numpy(data.y_train)
        self.x_test = torch.from_numpy(data.x_test).reshape(-1, 1, 8, 8)
        self.y_test = torch.from_numpy(data.y_test)
        self.rng = np.random.default_rng(seed)
        self.batch_size = batch_size

    def logits(self, x: Any) -> Any:
        f = torch.nn.functional
        k1, b1, k2, b2, w, b = self.params
        h = f.relu(f.conv2d(x, k1, b1, padding=1))
        h = f.max_pool2d(f.pad(h, (0, 1, 0, 1), value=-float("inf")), 2, stride=1)  # 'SAME', stride 1
        h = f.max_pool2d(f.relu(f.conv2d(h, k2, b2, padding=1)), 2, stride=2)
        return h.permute(0, 2, 3, 1).reshape(h.shape[0], -1) @ w + b  # channels-last features


def bench(epochs: int, seed: int = 0, batch_size: int = 32) -> tuple[dict[str, float], dict[str, float]]:
    """Median seconds per epoch (the first left out) and test accuracy at the end, per framework."""
    data = load_digits_split()
    demo = Training(data, seed, batch_size, LEARNING_RATE, jit=True, model="cnn")
    eager = Training(data, seed, batch_size, LEARNING_RATE, jit=False, model="cnn")
    runners: dict[str, Callable[[], Any]] = {"tensorplug tp.jit": demo.epoch, "tensorplug eager": eager.epoch}
    accuracies: dict[str, Callable[[], float]] = {"tensorplug tp.jit": demo.test_accuracy,
                                                  "tensorplug eager": eager.test_accuracy}
    if torch is not None:
        peer = TorchCNN(data, seed, batch_size)
        runners["torch eager"] = peer.epoch
        accuracies["torch eager"] = peer.accuracy
    return common.epoch_medians(runners, epochs), {name: acc() for name, acc in accuracies.items()}


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__, "two epochs (a smoke run)")
    parser.add_argument("--epochs", type=int, default=None, help="epochs per framework (default 6)")
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    epochs = args.epochs or (2 if args.quick else 6)
    tp.set_backend("numpy")
    if torch is not None:
        torch.set_num_threads(1)
    command = common.command_line()
    common.print_header("tensorplug CNN demo epoch (numpy backend) against torch eager", command)
    print(f"python {platform.python_version()}, numpy {np.__version__}, tensorplug {tp.__version__}, "
          f"torch {torch.__version__ if torch is not None else 'not installed'}; one thread each; "
          f"medians of {epochs - 1} epochs")
    times, accuracies = bench(epochs)
    peer = times.get("torch eager")
    for name, seconds in times.items():
        ratio = f"{seconds / peer:5.2f}x torch" if peer else ""
        print(f"  {name:<18} {seconds * 1e3:9.1f} ms/epoch  {ratio}  test accuracy {accuracies[name]:.4f}")
    verdict = "n/a (torch not installed)"
    if peer:
        ratio = times["tensorplug tp.jit"] / peer
        verdict = f"{ratio:.2f}x, {'OK' if ratio <= TARGET else 'NOT MET'} (target <= {TARGET}x)"
    print(f"the demo's epoch (tp.jit) against torch eager: {verdict}")
    common.write_results(args.results, "cnn-bench", {"command": command, "seconds_per_epoch": times,
                                                     "accuracy": accuracies, "target": TARGET})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
