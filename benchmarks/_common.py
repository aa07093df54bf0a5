"""What the benchmark scripts share: the header they print, their common command-line options,
the measuring (per-call times, interleaved rounds, ratios to a peer) and the JSON results file.

Import it after setting ``OPENBLAS_NUM_THREADS``: it imports numpy.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
import time
import timeit
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import tensorplug as tp

RESULTS = Path(__file__).resolve().parent / "results"  # not kept in git
SAMPLE_SECONDS = 0.02  # one timing sample of measure() runs a call at least this long in all


# -- the command line and the header --------------------------------------------------------------
def argument_parser(doc: str, quick: str, rounds: int | None = None) -> argparse.ArgumentParser:
    """A parser described by the first paragraph of a script's docstring `doc`, with ``--quick``
    (`quick` says what it does) and, given their default number, ``--rounds`` (interleaved)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick)
    if rounds is not None:
        parser.add_argument("--rounds", type=int, default=None, help=f"interleaved rounds (default {rounds})")
    return parser


def add_results_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--results DIR``, the directory for the JSON results (default: benchmarks/results)."""
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="directory for the JSON results (default: benchmarks/results)")


def command_line() -> str:
    """The command that ran this process, quoted for a shell."""
    return " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])


def environment(*, system: bool = False) -> str:
    """One line: the python, numpy and tensorplug versions, the CPUs (and, with `system`, the OS
    and machine) and numpy's BLAS threads."""
    machine = f", {platform.system()} {platform.machine()}" if system else ""
    return (f"python {platform.python_version()}, numpy {np.__version__}; tensorplug {tp.__version__}; "
            f"{os.cpu_count()} CPUs{machine}; OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")


def print_header(title: str, command: str, *lines: str) -> None:
    """Print the `title`, the `command` that ran and the `lines` that describe the run."""
    print(title)
    print(f"command: {command}")
    for line in lines:
        print(line)


def write_results(directory: Path, stem: str, results: Mapping[str, Any]) -> Path:
    """Write `results` as JSON to ``directory/stem-YYYYmmdd-HHMMSS.json`` (making the directory),
    print where (relative to the working directory when it is below it) and return the path."""
    directory.mkdir(parents=True, exist_ok=True)
    out = directory / time.strftime(f"{stem}-%Y%m%d-%H%M%S.json")
    out.write_text(json.dumps(results, indent=2))
    print(f"results written to {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")
    return out


# -- measuring ------------------------------------------------------------------------------------
def per_call(fn: Callable[[], Any], number: int) -> float:
    """Seconds per call of one timeit round of `number` calls."""
    return timeit.Timer(fn).timeit(number) / number


def leaves(out: Any) -> list[Any]:
    """The arrays of a result (a tuple of them or one), Tensors as their native arrays."""
    items = out if isinstance(out, tuple) else (out,)
    return [v.native if isinstance(v, tp.Tensor) else v for v in items]


def waited(fn: Callable[[], Any]) -> Callable[[], Any]:
    """`fn` followed by block_until_ready() on each of its output arrays (for jax)."""
    def call() -> None:
        for v in leaves(fn()):
            v.block_until_ready()
    return call


def calls_per_sample(fn: Callable[[], Any]) -> int:
    """How many calls of `fn` (after a warm-up one) take about SAMPLE_SECONDS."""
    fn()  # warm-up
    start = time.perf_counter()
    fn()
    return max(1, round(SAMPLE_SECONDS / max(time.perf_counter() - start, 1e-9)))


def measure(fns: dict[str, tuple[Callable[[], Any], Callable[[], Any]]], rounds: int
            ) -> dict[str, tuple[list[float], list[float]]]:
    """Per case (tensorplug's, the peer's function): (peer's, tensorplug's) seconds per call in
    each of `rounds` interleaved rounds, which of the two goes first alternating."""
    number = {name: calls_per_sample(peer) for name, (_, peer) in fns.items()}
    for ours, _ in fns.values():
        ours()  # warm-up
    samples: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in fns}
    for i in range(rounds):
        for name, (ours, peer) in fns.items():
            n = number[name]
            pair = [(1, ours), (0, peer)] if i % 2 else [(0, peer), (1, ours)]
            for slot, fn in pair:
                samples[name][slot].append(per_call(fn, n))
    return samples


def ratios(peer: Sequence[float], ours: Sequence[float]) -> tuple[float, float]:
    """(ratio of the medians, median of the paired rounds' ratios) of `ours` against `peer`."""
    return (statistics.median(ours) / statistics.median(peer),
            statistics.median(o / p for p, o in zip(peer, ours)))


def comparison(peer: Sequence[float], ours: Sequence[float], same_results: bool, target: float
               ) -> dict[str, Any]:
    """A case's row against its peer: median milliseconds, both ratios (see `ratios`), whether
    the results agreed and whether the case met `target` (agreed, both ratios within it)."""
    of_medians, paired = ratios(peer, ours)
    return {"peer_ms": statistics.median(peer) * 1e3, "tensorplug_ms": statistics.median(ours) * 1e3,
            "ratio": of_medians, "paired_ratio": paired, "same_results": same_results,
            "met": same_results and max(of_medians, paired) <= target}


def comparison_header(peer: str) -> str:
    """The header of a table of `comparison` rows, up to the target column's name."""
    return f"  {'case':26s} {peer:>12s} {'tensorplug':>12s} {'ratio':>7s} {'paired':>7s}  target"


def comparison_line(name: str, row: Mapping[str, Any], digits: int) -> str:
    """A `comparison` row as a table line (milliseconds with `digits` decimals), up to its target."""
    return (f"  {name:26s} {row['peer_ms']:9.{digits}f} ms {row['tensorplug_ms']:9.{digits}f} ms "
            f"{row['ratio']:6.2f}x {row['paired_ratio']:6.2f}x")


def verdict(row: Mapping[str, Any]) -> str:
    """A case's verdict from its row's "met" and "same_results": OK, NOT MET, or NOT MET because
    tensorplug's results differ from the peer's."""
    if row["met"]:
        return "OK"
    return "NOT MET" if row["same_results"] else "NOT MET (results differ)"


def epoch_medians(runners: Mapping[str, Callable[[], Any]], epochs: int) -> dict[str, float]:
    """Median seconds per call of each runner over `epochs` calls, the runners taking turns and
    the first call of each (a warm-up) left out."""
    samples: dict[str, list[float]] = {name: [] for name in runners}
    for epoch in range(epochs):
        for name, run in runners.items():
            start = time.perf_counter()
            run()
            if epoch:
                samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(v) for name, v in samples.items()}
