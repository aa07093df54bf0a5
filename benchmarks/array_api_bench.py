"""tensorplug's Array API functions against the same numpy / jax.numpy call: sort, unique, linalg, fft.

    python benchmarks/array_api_bench.py            (or: make bench; --quick for a smoke run)

Issue 14's target: each case costs at most 1.2x the same library call. Cases:

- numpy backend against numpy: ``sort``, ``argsort`` (both stable, the standard's default, as
  the peer is asked to be) and the four ``unique_*`` on 10^6 float32 (unique: integers in
  [0, 1000) as float32, so with repeats); every ``tp.linalg`` function that is a numpy.linalg
  call, on a 512x512 float64 matrix (well conditioned; symmetric positive definite for
  cholesky, eigh and eigvalsh; ``vector_norm`` on 10^6 float32); every ``tp.fft`` function on
  10^6 complex64 / float32 elements (fftn, ifftn, rfftn, irfftn on 1000x1000).
- jax backend against ``jax.numpy``, eager on both sides (no jit), every call's outputs waited
  for with ``block_until_ready()``, after a warm-up call (64-bit types on for the peer, as the
  backend turns them on for its kernels). The same cases: the whole run takes ~2.5 minutes
  on 2 cores, the jax half ~80 s, most of it in jax's sorts (~0.4 s a call).

Each case's output is compared with the peer's first (a case whose results differ is reported).
Cases are measured in interleaved rounds: in every round each case times the peer and
tensorplug back to back (which goes first alternates), so that load on the machine hits them
alike. A ratio is tensorplug's time over the peer's, reported two ways as in jax_bench.py: the
ratio of the medians and the median of the rounds' own ratios; a case is OK only when both are
within the target. Results are written to benchmarks/results/ (not kept in git).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

# numpy's BLAS/LAPACK (OpenBLAS, which the numpy backend uses too) gets one thread, as in run.py.
# Set before numpy loads; a value given in the environment is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import _common as common  # noqa: E402  (this folder's: what the benchmark scripts share)
import tensorplug as tp  # noqa: E402

TARGET = 1.2  # issue 14: no more than 1.2x the same numpy / jax.numpy call
N = 10**6
M = 512


class Case(NamedTuple):
    name: str
    ours: Callable[[], Any]
    peer: Callable[[], Any]


# -- inputs ---------------------------------------------------------------------------------------
def inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def complex64(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)

    g = rng.standard_normal((M, M))
    return {
        "x": rng.standard_normal(N).astype(np.float32),
        "repeats": rng.integers(0, 1000, N).astype(np.float32),
        "a": g / np.sqrt(M) + 2.0 * np.eye(M),  # well conditioned
        "spd": g @ g.T / M + np.eye(M),
        "b": rng.standard_normal((M, 8)),
        "z": complex64(N),
        "half": complex64(N // 2 + 1),
        "z2": complex64(1000, 1000),
        "x2": rng.standard_normal((1000, 1000)).astype(np.float32),
        "half2": complex64(1000, 501),
    }


def cases(xp: Any, t: dict[str, Any], p: dict[str, Any]) -> list[Case]:
    """The cases: tensorplug on tensors `t` against the library `xp` (numpy or jax.numpy) on
    its arrays `p` (the same values)."""
    lin, tl, fft, tf = xp.linalg, tp.linalg, xp.fft, tp.fft
    x, r, a, spd, b = (t[k] for k in ("x", "repeats", "a", "spd", "b"))
    px, pr, pa, pspd, pb = (p[k] for k in ("x", "repeats", "a", "spd", "b"))
    return [
        Case("sort", lambda: tp.sort(x), lambda: xp.sort(px, stable=True)),
        Case("argsort", lambda: tp.argsort(x), lambda: xp.argsort(px, stable=True)),
        Case("unique_values", lambda: tp.unique_values(r), lambda: xp.unique_values(pr)),
        Case("unique_counts", lambda: tp.unique_counts(r), lambda: xp.unique_counts(pr)),
        Case("unique_inverse", lambda: tp.unique_inverse(r), lambda: xp.unique_inverse(pr)),
        Case("unique_all", lambda: tp.unique_all(r), lambda: xp.unique_all(pr)),
        Case("linalg.matmul", lambda: tl.matmul(a, a), lambda: lin.matmul(pa, pa)),
        Case("linalg.cholesky", lambda: tl.cholesky(spd), lambda: lin.cholesky(pspd)),
        Case("linalg.det", lambda: tl.det(a), lambda: lin.det(pa)),
        Case("linalg.slogdet", lambda: tl.slogdet(a), lambda: lin.slogdet(pa)),
        Case("linalg.inv", lambda: tl.inv(a), lambda: lin.inv(pa)),
        Case("linalg.solve", lambda: tl.solve(a, b), lambda: lin.solve(pa, pb)),
        Case("linalg.eigh", lambda: tl.eigh(spd), lambda: lin.eigh(pspd)),
        Case("linalg.eigvalsh", lambda: tl.eigvalsh(spd), lambda: lin.eigvalsh(pspd)),
        Case("linalg.qr", lambda: tl.qr(a), lambda: lin.qr(pa)),
        Case("linalg.svd", lambda: tl.svd(a), lambda: lin.svd(pa)),
        Case("linalg.svdvals", lambda: tl.svdvals(a), lambda: lin.svdvals(pa)),
        Case("linalg.matrix_rank", lambda: tl.matrix_rank(a), lambda: lin.matrix_rank(pa)),
        Case("linalg.pinv", lambda: tl.pinv(a), lambda: lin.pinv(pa)),
        Case("linalg.matrix_power", lambda: tl.matrix_power(a, 3), lambda: lin.matrix_power(pa, 3)),
        Case("linalg.matrix_norm fro", lambda: tl.matrix_norm(a), lambda: lin.matrix_norm(pa)),
        Case("linalg.matrix_norm nuc", lambda: tl.matrix_norm(a, ord="nuc"),
             lambda: lin.matrix_norm(pa, ord="nuc")),
        Case("linalg.vector_norm", lambda: tl.vector_norm(x), lambda: lin.vector_norm(px)),
        Case("fft.fft", lambda: tf.fft(t["z"]), lambda: fft.fft(p["z"])),
        Case("fft.ifft", lambda: tf.ifft(t["z"]), lambda: fft.ifft(p["z"])),
        Case("fft.rfft", lambda: tf.rfft(x), lambda: fft.rfft(px)),
        Case("fft.irfft", lambda: tf.irfft(t["half"]), lambda: fft.irfft(p["half"])),
        Case("fft.hfft", lambda: tf.hfft(t["half"]), lambda: fft.hfft(p["half"])),
        Case("fft.ihfft", lambda: tf.ihfft(x), lambda: fft.ihfft(px)),
        Case("fft.fftn", lambda: tf.fftn(t["z2"]), lambda: fft.fftn(p["z2"])),
        Case("fft.ifftn", lambda: tf.ifftn(t["z2"]), lambda: fft.ifftn(p["z2"])),
        Case("fft.rfftn", lambda: tf.rfftn(t["x2"]), lambda: fft.rfftn(p["x2"])),
        Case("fft.irfftn", lambda: tf.irfftn(t["half2"]), lambda: fft.irfftn(p["half2"])),
        Case("fft.fftshift", lambda: tf.fftshift(t["z"]), lambda: fft.fftshift(p["z"])),
        Case("fft.ifftshift", lambda: tf.ifftshift(t["z"]), lambda: fft.ifftshift(p["z"])),
        Case("fft.fftfreq", lambda: tf.fftfreq(N, dtype=tp.float64), lambda: fft.fftfreq(N)),
        Case("fft.rfftfreq", lambda: tf.rfftfreq(N, dtype=tp.float64), lambda: fft.rfftfreq(N)),
    ]


# -- comparing and measuring (the measuring is _common.py's) --------------------------------------
def same_results(case: Case) -> bool:
    ours, theirs = common.leaves(case.ours()), common.leaves(case.peer())
    if len(ours) != len(theirs):
        return False
    for o, p in zip(ours, theirs):
        o, p = np.asarray(o), np.asarray(p)
        scale = float(np.max(np.abs(p))) if p.size else 0.0
        if o.shape != p.shape or not np.allclose(o, p, rtol=1e-4, atol=1e-5 * scale):
            return False
    return True


def run(backend: str, xp: Any, rounds: int, only: str | None = None) -> dict[str, dict[str, Any]]:
    tp.set_backend(backend)
    data = inputs()
    peer_arrays = {k: xp.asarray(v) for k, v in data.items()}
    tensors = {k: tp.asarray(v) for k, v in data.items()}
    chosen = [c for c in cases(xp, tensors, peer_arrays) if (only or "") in c.name]
    block = common.waited if backend == "jax" else (lambda fn: fn)
    agree = {c.name: same_results(c) for c in chosen}
    samples = common.measure({c.name: (block(c.ours), block(c.peer)) for c in chosen}, rounds)
    return {name: common.comparison(peer, ours, agree[name], TARGET)
            for name, (peer, ours) in samples.items()}


def print_table(title: str, peer: str, report: dict[str, dict[str, Any]]) -> None:
    print(f"\n{title}")
    print(f"{common.comparison_header(peer)} <= {TARGET}x")
    for name, r in report.items():
        print(f"{common.comparison_line(name, r, 3)}  {common.verdict(r)}")
    missed = [name for name, r in report.items() if not r["met"]]
    print(f"  {len(report) - len(missed)} of {len(report)} cases within {TARGET}x"
          + (f"; NOT MET: {', '.join(missed)}" if missed else ""))


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__, "fewer rounds (a smoke run)", rounds=7)
    parser.add_argument("--no-jax", action="store_true", help="leave the jax backend out")
    parser.add_argument("--no-numpy", action="store_true", help="leave the numpy backend out")
    parser.add_argument("--only", default=None, help="run only the cases whose name contains this")
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 7)
    command = common.command_line()
    common.print_header("tensorplug Array API benchmarks: sort, unique, linalg, fft",
                        command, common.environment(system=True),
                        f"medians of {rounds} interleaved rounds; ratio = tensorplug / peer (of the medians, "
                        "and the median of the rounds' ratios), lower is better")
    results: dict[str, Any] = {"command": command, "numpy": np.__version__, "tensorplug": tp.__version__,
                               "rounds": rounds, "target": TARGET}
    if not args.no_numpy:
        results["numpy_backend"] = run("numpy", np, rounds, only=args.only)
        print_table("numpy backend against numpy (10^6 float32; 512x512 float64; fft 10^6 complex64)",
                    "numpy", results["numpy_backend"])
    if not args.no_jax:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        results["jax"] = jax.__version__
        results["jax_backend"] = run("jax", jnp, rounds, only=args.only)
        print_table(f"jax backend against jax.numpy, eager (jax {jax.__version__}, "
                    f"{jax.devices()[0].platform})", "jax.numpy", results["jax_backend"])
    common.write_results(args.results, "array-api-bench", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
