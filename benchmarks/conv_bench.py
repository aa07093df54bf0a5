"""tensorplug's Conv2D, forward and forward + backward, against PyTorch on the CPU (numpy
backend) and against jax.lax.conv_general_dilated (jax backend).

    python benchmarks/conv_bench.py            (or: make bench; --quick for a smoke run)

Issue 15's targets: a batch of 32, 28x28x16 -> 32 channels, 3x3 filter, 'SAME', float32.

- numpy backend (channels-last, NHWC / HWIO) against torch.nn.functional.conv2d in its own
  layout (NCHW / OIHW), one thread each (``torch.set_num_threads(1)``, OpenBLAS with one
  thread): no more than 2x torch. Forward + backward is the output and the gradients with
  respect to input and filter for a given dy (``tp.vjp`` / ``torch.autograd.grad``).
- jax backend, eager, against the same computation jitted with ``jax.jit`` in the same layout
  (forward: ``conv_general_dilated``; forward + backward: the output and ``jax.vjp``'s two
  gradients), every output waited for: no more than 1.2x.

Each case's outputs are compared with the peer's first. Cases are measured in interleaved
rounds (which side goes first alternates: _common.py's measure); a ratio is tensorplug's
time over the peer's, reported as the ratio of the medians and the median of the rounds' own
ratios, and a case is OK only when both are within its target. Results are written to
benchmarks/results/ (not kept in git).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

# one BLAS thread for numpy (the numpy backend's matmuls), as in run.py; set before numpy loads
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import _common as common  # noqa: E402  (this folder's: what the benchmark scripts share)
import tensorplug as tp  # noqa: E402

BATCH, SIZE, IN, OUT, K = 32, 28, 16, 32, 3


class Case(NamedTuple):
    name: str
    ours: Callable[[], Any]
    peer: Callable[[], Any]
    target: float
    wait: bool = False  # (jax) measure with every output waited for


def data(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((BATCH, SIZE, SIZE, IN)).astype(np.float32),
            "w": (rng.standard_normal((K, K, IN, OUT)) / np.sqrt(K * K * IN)).astype(np.float32),
            "dy": rng.standard_normal((BATCH, SIZE, SIZE, OUT)).astype(np.float32)}


def _ours(d: dict[str, np.ndarray]) -> tuple[Callable[[], Any], Callable[[], Any]]:
    x, w, dy = (tp.asarray(d[k]) for k in ("x", "w", "dy"))

    def forward() -> Any:
        return tp.nn.conv(x, w, 1, "SAME")

    def both() -> Any:
        y, vjp_fn = tp.vjp(lambda a, b: tp.nn.conv(a, b, 1, "SAME"), x, w)
        return (y, *vjp_fn(dy))

    return forward, both


def numpy_cases(d: dict[str, np.ndarray]) -> list[Case]:
    import torch

    torch.set_num_threads(1)
    x = torch.from_numpy(d["x"].transpose(0, 3, 1, 2).copy())
    w = torch.from_numpy(d["w"].transpose(3, 2, 0, 1).copy())
    dy = torch.from_numpy(d["dy"].transpose(0, 3, 1, 2).copy())
    xg, wg = x.clone().requires_grad_(True), w.clone().requires_grad_(True)

    def forward() -> Any:
        with torch.no_grad():
            return (torch.nn.functional.conv2d(x, w, padding=1),)

    def both() -> Any:
        y = torch.nn.functional.conv2d(xg, wg, padding=1)
        gx, gw = torch.autograd.grad(y, (xg, wg), dy)
        return y.detach(), gx, gw

    tp.set_backend("numpy")
    ours_forward, ours_both = _ours(d)
    return [Case("Conv2D forward", ours_forward, forward, 2.0),
            Case("Conv2D forward+backward", ours_both, both, 2.0)]


def jax_cases(d: dict[str, np.ndarray]) -> list[Case]:
    import jax

    def conv(a: Any, b: Any) -> Any:
        return jax.lax.conv_general_dilated(a, b, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    forward = jax.jit(conv)

    @jax.jit
    def both(a: Any, b: Any, g: Any) -> Any:
        y, vjp_fn = jax.vjp(conv, a, b)
        return (y, *vjp_fn(g))

    x, w, dy = (jax.device_put(d[k]) for k in ("x", "w", "dy"))
    tp.set_backend("jax")
    ours_forward, ours_both = _ours(d)
    return [Case("Conv2D forward", ours_forward, lambda: forward(x, w), 1.2, wait=True),
            Case("Conv2D forward+backward", ours_both, lambda: both(x, w, dy), 1.2, wait=True)]


# -- comparing and measuring (the measuring is _common.py's) --------------------------------------
def from_torch(a: np.ndarray) -> np.ndarray:
    """A torch result in tensorplug's layout: OIHW filters to HWIO, NCHW tensors to NHWC."""
    return a.transpose(2, 3, 1, 0) if a.shape[2:] == (K, K) else np.moveaxis(a, 1, -1)


def same_results(case: Case, layout_of_peer: Callable[[np.ndarray], np.ndarray]) -> bool:
    ours, theirs = common.leaves(case.ours()), common.leaves(case.peer())
    for o, p in zip(ours, theirs):
        o, p = np.asarray(o), layout_of_peer(np.asarray(p.detach() if hasattr(p, "detach") else p))
        if o.shape != p.shape or not np.allclose(o, p, rtol=1e-3, atol=1e-3 * float(np.abs(p).max())):
            return False
    return len(ours) == len(theirs)


def report(cases: list[Case], rounds: int, layout: Callable[[np.ndarray], np.ndarray]) -> dict[str, Any]:
    agree = {c.name: same_results(c, layout) for c in cases}
    waited = common.waited
    samples = common.measure({c.name: (waited(c.ours), waited(c.peer)) if c.wait else (c.ours, c.peer)
                              for c in cases}, rounds)
    return {c.name: {**common.comparison(*samples[c.name], agree[c.name], c.target), "target": c.target}
            for c in cases}


def print_table(title: str, peer: str, rows: dict[str, dict[str, Any]]) -> None:
    print(f"\n{title}")
    print(common.comparison_header(peer))
    for name, r in rows.items():
        print(f"{common.comparison_line(name, r, 2)}  <= {r['target']}x {common.verdict(r)}")


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__, "fewer rounds (a smoke run)", rounds=7)
    parser.add_argument("--no-torch", action="store_true", help="leave the numpy backend's rows out")
    parser.add_argument("--no-jax", action="store_true", help="leave the jax backend's rows out")
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 7)
    command = common.command_line()
    common.print_header(f"tensorplug Conv2D benchmark: batch {BATCH}, {SIZE}x{SIZE}x{IN} -> {OUT} "
                        f"channels, {K}x{K}, 'SAME', float32",
                        command, common.environment(),
                        f"medians of {rounds} interleaved rounds; ratio = tensorplug / peer, lower is better")
    d = data()
    results: dict[str, Any] = {"command": command, "numpy": np.__version__, "tensorplug": tp.__version__,
                               "rounds": rounds}
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            print("\ntorch is not installed: the numpy backend's rows are left out")
        else:
            results["torch"] = torch.__version__
            results["numpy_backend"] = report(numpy_cases(d), rounds, from_torch)
            print_table(f"numpy backend (NHWC) against torch {torch.__version__} CPU (NCHW), one thread",
                        "torch", results["numpy_backend"])
    if not args.no_jax:
        import jax

        results["jax"] = jax.__version__
        results["jax_backend"] = report(jax_cases(d), rounds, lambda a: a)
        print_table(f"jax backend, eager, against jax.jit(lax.conv_general_dilated) (jax {jax.__version__}, "
                    f"{jax.devices()[0].platform}), NHWC both", "jax.lax", results["jax_backend"])
    common.write_results(args.results, "conv-bench", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
