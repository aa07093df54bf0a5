"""How long ``tp.export.onnx`` takes to write the demo's models: the MLP and the CNN, each traced,
lowered, checked with onnx's full checker and written (fresh interpreter state per model; the
first export of a process also imports onnx, timed apart).

    python benchmarks/export_bench.py            (or: make bench; --rounds N, --quick)

Issue 35's target: exporting the CNN takes under 2 seconds. Reported: the first export (onnx
imported by it) and the median of the later ones. Results are written to benchmarks/results/.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common as common  # noqa: E402
import tensorplug as tp  # noqa: E402
from tensorplug.cli.digits_mlp import MODELS  # noqa: E402

TARGET_SECONDS = 2.0  # the CNN's export


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__, "three rounds (a smoke run)", rounds=10)
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 10)
    tp.set_backend("numpy")
    command = common.command_line()
    common.print_header("tp.export.onnx of the demo's models", command, common.environment())
    x = np.zeros((1, 64), np.float32)
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.onnx")
        for name in ("cnn", "mlp"):  # (the CNN first: its first export imports onnx)
            model = MODELS[name](0)
            seconds = []
            for _ in range(rounds + 1):
                start = time.perf_counter()
                tp.export.onnx(model, x, path=path, dynamic_axes={"input": {0: "batch"}})
                seconds.append(time.perf_counter() - start)
            first, later = seconds[0], statistics.median(seconds[1:])
            size = os.path.getsize(path)
            results[name] = {"first_seconds": first, "median_seconds": later, "bytes": size}
            verdict = "ok" if max(first, later) < TARGET_SECONDS else "SLOW"
            target = f"  {verdict} (< {TARGET_SECONDS:.0f} s)" if name == "cnn" else ""
            print(f"  {name.upper():4s} export: first {first * 1e3:7.1f} ms, then {later * 1e3:6.1f} ms "
                  f"median ({size} bytes){target}")
    summary = {"command": command, "rounds": rounds, "cases": results, "target_seconds": TARGET_SECONDS}
    common.write_results(args.results, "export-bench", summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
