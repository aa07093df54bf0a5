"""What a ``tp.nn.Module`` costs a compiled step: the demo's MLP step (forward, backward, Adam)
under ``tp.jit`` on numpy, written with ``tp.nn.Sequential([Dense, Dense])`` against the same
step written over bare Variables (the same weights, batch and optimizer settings).

    python benchmarks/models_bench.py            (or: make bench; --rounds N, --quick)

Issue 33's target: a module adds nothing measurable to a step under ``tp.jit`` (within 3% of
the bare step). Under ``tp.jit`` a module's Python (its ``__call__``, its attribute walks) runs
only while the step is traced; the replayed plan holds the kernels alone. Both steps are
measured in interleaved rounds, each going first in turn; the median of the paired rounds'
ratios is reported beside the ratio of the medians. Results are written to benchmarks/results/.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as common  # noqa: E402
import tensorplug as tp  # noqa: E402
from tensorplug.cli.digits_mlp import init_params, load_digits_split, mlp  # noqa: E402

TARGET = 1.03  # the module's step against the bare one


def steps(seed: int = 0, batch_size: int = 32) -> dict[str, tuple[object, object]]:
    """The two compiled steps on one fixed batch, each with its own Variables and Adam."""
    data = load_digits_split()
    x, y = data.x_train[:batch_size], data.y_train[:batch_size]

    model = mlp(seed)
    model_opt = tp.optimizers.Adam(1e-3)
    model_vars = model.trainable_variables()
    module_step = tp.jit(lambda: model_opt.minimize(
        lambda: tp.nn.sparse_softmax_cross_entropy(y, model(x)), model_vars))

    p = {name: tp.Variable(value) for name, value in init_params(seed).items()}
    bare_opt = tp.optimizers.Adam(1e-3)

    def bare_loss() -> tp.Tensor:
        hidden = tp.nn.fused_matmul(x, p["w1"], p["b1"], "relu")
        return tp.nn.sparse_softmax_cross_entropy(y, tp.nn.fused_matmul(hidden, p["w2"], p["b2"]))

    bare_step = tp.jit(lambda: bare_opt.minimize(bare_loss, list(p.values())))
    return {"MLP step under tp.jit": (module_step, bare_step)}


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__, "three rounds (a smoke run)", rounds=30)
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 30)
    tp.set_backend("numpy")
    command = common.command_line()
    common.print_header("a module's cost in a compiled step (numpy backend)", command, common.environment())
    cases = steps()
    losses = {name: (float(ours()), float(peer())) for name, (ours, peer) in cases.items()}  # (traced here)
    samples = common.measure(cases, rounds)  # type: ignore[arg-type]
    print(common.comparison_header("bare Variables") + f" (<= {TARGET}x)")
    results = {}
    for name, (peer, ours) in samples.items():
        same = bool(np.isclose(*losses[name], rtol=1e-5))
        row = common.comparison(peer, ours, same, TARGET)
        results[name] = row
        print(common.comparison_line(name, row, 3) + f"  {common.verdict(row)}")
    common.write_results(args.results, "models-bench",
                         {"command": command, "rounds": rounds, "cases": results, "target": TARGET})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
