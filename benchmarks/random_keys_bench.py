"""Random numbers from a key on numpy (the numpy backend's Threefry2x32 and Erfinv kernels, each
fused and chunked), against numpy's own ``Generator`` (PCG64; ziggurat normals) drawing as many
float32 numbers.

    python benchmarks/random_keys_bench.py            (or: make bench; --quick for a smoke run)

Issue 34's target: 10^6 normal numbers from a key on numpy in no more than 3x
``Generator.standard_normal``. Counter-based bits cost more than PCG64's: the raw ``bits`` and
``uniform`` rows say what the hash itself costs, the ``normal`` rows what the inverse error
function adds, eagerly and under ``tp.jit`` (a plan of the kernel calls). The peers' numbers
are other numbers (another generator), so "same results" only checks shapes and dtypes. Cases
are measured in interleaved rounds (_common.py's measure); results go to benchmarks/results/.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as in run.py; set before numpy loads

import numpy as np  # noqa: E402

import _common as common  # noqa: E402  (this folder's: what the benchmark scripts share)
import tensorplug as tp  # noqa: E402

TARGET = 3.0  # normal numbers from a key against Generator.standard_normal


def cases(n: int) -> dict[str, tuple]:
    """Per case: (tensorplug's call, the peer's call, target or None for an informative row)."""
    tp.set_backend("numpy")
    key = tp.random.key(0)
    rng = np.random.default_rng(0)
    normal_jit = tp.jit(lambda k: tp.random.normal(k, (n,)))
    return {
        "bits (uint32)": (lambda: tp.random.bits(key, (n,)),
                          lambda: rng.integers(0, 2**32, n, dtype=np.uint32), None),
        "uniform (float32)": (lambda: tp.random.uniform(key, (n,)),
                              lambda: rng.random(n, dtype=np.float32), None),
        "normal (float32)": (lambda: tp.random.normal(key, (n,)),
                             lambda: rng.standard_normal(n, dtype=np.float32), TARGET),
        "normal under tp.jit": (lambda: normal_jit(key),
                                lambda: rng.standard_normal(n, dtype=np.float32), TARGET),
    }


def main() -> None:
    parser = common.argument_parser(__doc__, "10^4 numbers and 3 rounds, to see that it runs", rounds=9)
    common.add_results_option(parser)
    args = parser.parse_args()
    n = 10**4 if args.quick else 10**6
    rounds = args.rounds or (3 if args.quick else 9)
    common.print_header(f"tp.random from a key against numpy's Generator, {n} float32 numbers",
                        common.command_line(), common.environment())
    table = cases(n)
    samples = common.measure({name: (ours, peer) for name, (ours, peer, _) in table.items()}, rounds)
    print(common.comparison_header("numpy"))
    rows = {}
    for name, (ours, peer, target) in table.items():
        a, b = np.asarray(ours()), peer()
        same = a.shape == b.shape and a.dtype == b.dtype
        row = common.comparison(*samples[name], same, target or float("inf"))
        rows[name] = {**row, "target": target}
        print(common.comparison_line(name, row, 2) + (f"   {TARGET:.0f}x {common.verdict(row)}" if target
                                                      else "   (what it costs)"))
    common.write_results(args.results, "random-keys-bench", {"numbers": n, "rounds": rounds, "cases": rows})
    sys.stdout.flush()


if __name__ == "__main__":
    main()
