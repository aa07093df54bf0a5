"""``tensorplug demo``: train the 64-128-10 MLP (or, with ``--model cnn``, a small CNN) on the
digits and show what ran where."""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from typing import Any

import tensorplug as tp
from tensorplug.cli.digits_mlp import load_digits_split, train
from tensorplug.extend import Backend, list_plugins, start_backend

__all__ = ["add_parser", "run", "format_kernel_table"]

INSTALL_HINT = "pip install 'tensorplug-core[demo]'"
DEFAULT_LEARNING_RATES = {"mlp": 1e-3, "cnn": 3e-3}
MODEL_TITLES = {"mlp": "64-128-10 ReLU MLP",
                "cnn": "CNN (conv 3x3x16, relu, pool, conv 3x3x32, relu, pool, dense 10)"}


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "demo", help="train a small MLP (or CNN) on the digits data and show which kernels ran where",
        description="Train a 64-128-10 ReLU MLP (or, with --model cnn, two 3x3 convolutions with "
                    "ReLU and 2x2 max pooling, then a dense layer) with Adam on scikit-learn's "
                    "bundled digits data (offline; fixed split), then print the test accuracy, the "
                    "time per epoch and which kernels ran on which backend, registered by which plugin.",
    )
    p.add_argument("--model", choices=sorted(MODEL_TITLES), default="mlp",
                   help="mlp (default) or cnn (8x8 images: conv, relu, pool, conv, relu, pool, dense)")
    p.add_argument("--epochs", type=_positive, default=30, help="training epochs (default: 30)")
    p.add_argument("--batch-size", type=_positive, default=32, help="batch size (default: 32)")
    p.add_argument("--seed", type=int, default=0, help="seed of weights and batch order (default: 0)")
    p.add_argument("--backend", default=None,
                   help="backend to run on (default: the highest-priority installed one)")
    p.add_argument("--learning-rate", type=float, default=None,
                   help="Adam's learning rate (default: 0.001 for the MLP, 0.003 for the CNN)")
    p.add_argument("--jit", action=argparse.BooleanOptionalAction, default=True,
                   help="compile the training step with tp.jit (the default; --no-jit runs it op by op)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--save", metavar="PATH", default=None,
                   help="write the trained model and Adam's state to PATH (tp.save; reload with tp.load); "
                        "a PATH ending in .onnx gets the model as ONNX (tp.export.onnx)")
    p.set_defaults(handler=run)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("sklearn") is None:
        print("tensorplug demo needs scikit-learn (for the digits data). Install the demo extras:\n"
              f"    {INSTALL_HINT}", file=sys.stderr)
        return 1

    onnx_file = args.save is not None and args.save.endswith(".onnx")
    if onnx_file and importlib.util.find_spec("onnx") is None:
        print("tensorplug demo: --save to a .onnx path writes ONNX, which needs the onnx package; install it "
              "before training:\n    pip install 'tensorplug-core[onnx]'", file=sys.stderr)
        return 1
    if args.save is not None and not onnx_file and importlib.util.find_spec("safetensors") is None:
        print("tensorplug demo: --save writes a tp.save file, which needs safetensors; install it before "
              "training:\n    pip install 'tensorplug-core[save]'", file=sys.stderr)
        return 1
    if args.backend is not None:
        try:
            tp.set_backend(args.backend)
        except tp.TensorplugError as exc:
            print(f"tensorplug demo: {exc}", file=sys.stderr)
            return 1
    data = load_digits_split()
    backend = tp.get_backend()
    if args.learning_rate is None:
        args.learning_rate = DEFAULT_LEARNING_RATES[args.model]
    print(f"tensorplug {tp.__version__}: {MODEL_TITLES[args.model]}, Adam(lr={args.learning_rate}), digits "
          f"{len(data.y_train)} train / {len(data.y_test)} test, batch {args.batch_size}, "
          f"seed {args.seed}, backend '{backend}'")

    compiles = args.jit and _compiles(backend)
    if not args.jit:
        print("train step: eager, op by op (--no-jit)")
    else:
        print("train step: tp.jit, " + (f"compiled by backend '{backend}'" if compiles else
                                         f"run eagerly (backend '{backend}' does not compile)"))
    try:
        result = train(epochs=args.epochs, batch_size=args.batch_size, seed=args.seed,
                       learning_rate=args.learning_rate, data=data, jit=args.jit, model=args.model,
                       save=args.save, progress=not args.no_progress)
    except tp.TensorplugError as exc:  # (--save: an unwritable path)
        print(f"tensorplug demo: {exc}", file=sys.stderr)
        return 1

    ms = [s * 1e3 for s in result.epoch_seconds]
    print(f"final training loss: {result.epoch_losses[-1]:.4f}")
    print(f"test accuracy:       {result.test_accuracy:.4f}  ({len(data.y_test)} test images)")
    print(f"time per epoch:      {statistics.median(ms):.1f} ms median, first {ms[0]:.1f} ms "
          f"({result.steps_per_epoch} steps of forward, backward and Adam per epoch)")
    if args.save is not None:
        what = ("(ONNX: the model, for onnxruntime)" if onnx_file else
                "(tp.load it: the model's parameters and Adam's state)")
        print(f"saved:               {args.save} {what}")
    if result.kernel_calls is not None:
        plugins = {p.name: p for p in list_plugins()}
        print()
        table = format_kernel_table(result.kernel_calls.rows(), plugins)
        if compiles:  # kernels ran while tp.jit traced the step; the compiled step runs them all
            table = table.replace("Kernels run (", "Kernels traced into the compiled step (", 1)
        print(table)
    return 0


def _compiles(backend: str) -> bool:
    """Whether `backend` compiles functions (implements Backend.compile)."""
    return type(start_backend(backend)).compile is not Backend.compile


def format_kernel_table(rows: list[tuple[str, str, str, int]], plugins: dict[str, Any] | None = None) -> str:
    """Rows of (kernel, backend, registered by, calls) as an aligned plain-text table; the
    registering plugin's distribution and version are shown when known."""
    plugins = plugins or {}
    header = ("kernel", "backend", "registered by", "calls")
    body = []
    for kernel, backend, source, calls in rows:
        info = plugins.get(source)
        if info is not None and info.distribution and info.version:
            if info.distribution == source:
                source = f"{source} {info.version}"
            else:
                source = f"{source} ({info.distribution} {info.version})"
        body.append((kernel, backend, source, f"{calls:,}"))
    total = sum(r[3] for r in rows)
    widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(4)]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    rule = "  ".join("-" * w for w in widths)
    title = f"Kernels run ({total:,} calls, {len(rows)} kernels):"
    return "\n".join([title, line(header), rule, *(line(r) for r in body)])
