"""Function transforms on the demo's MLP (64-128-10, ReLU, float32, a batch of 32): per-example
gradients and Hessian-vector products, each against one batched gradient on the same backend.

    python benchmarks/transforms_bench.py            (or: make bench; --quick for a smoke run)

Issue 16's targets, per backend (numpy; jax eager unless --no-jax):

- per-example gradients with ``tp.vmap(tp.grad(loss), in_axes=(None, 0, 0))``: no more than
  1.5x one gradient of the batch's mean loss;
- the same by a Python loop of ``tp.grad`` over the 32 examples, for comparison (~20x);
- ``tp.hvp`` of the batch's loss (forward over reverse, the parameters' tangent a tree like
  them): no more than 3x one gradient;
- both compiled with ``tp.jit`` (numpy: a plan of the kernel calls, where vmap's own Python
  layer is gone): per-example gradients against one gradient, no more than 1.5x.

Peers, for the floor under those ratios: the same per-example and batched gradients written by
hand in numpy (per-example gradients write BATCH times the bytes of one gradient: outer
products per example), and jax's own ``jax.jit(jax.vmap(jax.grad(loss)))`` against
``jax.jit(jax.grad(loss))``. For the eager rows, the same two without ``jax.jit`` (jax eager)
and ``torch.func.vmap(torch.func.grad(loss))`` against ``torch.func.grad`` (torch eager, one
thread; when torch is installed): their absolute times stand beside tensorplug's.

The per-example gradients of the two ways are compared first. Cases are measured in
interleaved rounds (which side goes first alternates: _common.py's measure); a ratio is
the transform's time over the one gradient's, as the ratio of the medians and the median of
the rounds' own ratios, and a case is OK only when both are within its target. Results are
written to benchmarks/results/ (not kept in git).
"""

from __future__ import annotations

import os
import statistics
import sys
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as in run.py; set before numpy loads

import numpy as np  # noqa: E402

import _common as common  # noqa: E402  (this folder's: what the benchmark scripts share)
import tensorplug as tp  # noqa: E402
from tensorplug.cli.digits_mlp import SIZES, init_params  # noqa: E402
from tensorplug.errors import VmapFallbackWarning  # noqa: E402

BATCH = 32


class Case(NamedTuple):
    name: str
    ours: Callable[[], Any]
    peer: Callable[[], Any]  # one batched gradient (compiled alike)
    target: float | None  # None: shown for comparison


def loss(params: dict[str, tp.Tensor], x: tp.Tensor, y: tp.Tensor) -> tp.Tensor:
    """The demo's loss (``digits_mlp.loss_fn``) as a function of its parameters: the mean
    cross-entropy of the MLP's logits against integer labels."""
    hidden = tp.nn.relu(x @ params["w1"] + params["b1"])
    return tp.nn.sparse_softmax_cross_entropy(y, hidden @ params["w2"] + params["b2"])


def data(seed: int = 0) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (init_params(seed), rng.standard_normal((BATCH, SIZES[0])).astype(np.float32),
            rng.integers(0, SIZES[-1], BATCH))


def cases(backend: str) -> list[Case]:
    tp.set_backend(backend)
    host_params, host_x, host_y = data()
    params = {k: tp.asarray(v) for k, v in host_params.items()}
    x, y = tp.asarray(host_x), tp.asarray(host_y)
    examples = [(x[i], y[i]) for i in range(BATCH)]
    gradient = tp.grad(loss)
    per_example = tp.vmap(gradient, in_axes=(None, 0, 0))
    tangent = {k: tp.asarray(np.random.default_rng(1).standard_normal(v.shape).astype(np.float32))
               for k, v in host_params.items()}

    def batched() -> Any:
        return gradient(params, x, y)

    def looped() -> Any:
        return [gradient(params, xi, yi) for xi, yi in examples]

    def hvp() -> Any:
        return tp.hvp(lambda p: loss(p, x, y), (params,), (tangent,))

    with warnings.catch_warnings():  # no kernel of the path is batched by a loop
        warnings.simplefilter("error", VmapFallbackWarning)
        vmapped = per_example(params, x, y)
    loop = looped()
    for k in params:
        want = np.stack([g[k].numpy() for g in loop])
        if not np.allclose(vmapped[k].numpy(), want, rtol=1e-4, atol=1e-6):
            raise SystemExit(f"per-example gradients of '{k}' differ between vmap and the loop on {backend}")
    jit_per_example, jit_gradient = tp.jit(per_example), tp.jit(gradient)
    return [Case("per-example grads, vmap(grad)", lambda: per_example(params, x, y), batched, 1.5),
            Case("per-example grads, loop of grads", looped, batched, None),
            Case("hvp", hvp, batched, 3.0),
            Case("under tp.jit: vmap(grad) vs grad", lambda: jit_per_example(params, x, y),
                 lambda: jit_gradient(params, x, y), 1.5)]


def peer_cases(with_jax: bool, with_torch: bool) -> list[Case]:
    """The floor: per-example against batched gradients by hand in numpy, in jax (compiled and
    eager) and in torch.func (eager)."""
    host_params, x, y = data()
    w1, b1, w2, b2 = (host_params[k] for k in ("w1", "b1", "w2", "b2"))
    rows = np.arange(BATCH)

    def common() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pre = x @ w1 + b1
        hidden = np.maximum(pre, 0)
        z = hidden @ w2 + b2
        e = np.exp(z - z.max(axis=1, keepdims=True))
        dz = e / e.sum(axis=1, keepdims=True)
        dz[rows, y] -= 1
        return hidden, dz, (dz @ w2.T) * (pre > 0)

    def batched() -> Any:
        hidden, dz, dh = common()
        dz /= BATCH
        dh /= BATCH
        return [hidden.T @ dz, dz.sum(axis=0), x.T @ dh, dh.sum(axis=0)]

    def per_example() -> Any:
        hidden, dz, dh = common()
        # (np.einsum's loop: 1.4-3x faster here than a broadcast multiplication)
        return [np.einsum("bi,bj->bij", hidden, dz), dz, np.einsum("bi,bj->bij", x, dh), dh]

    found = [Case("numpy by hand: per-example vs batched", per_example, batched, None)]
    if with_torch:
        found += torch_cases(host_params, x, y)
    if with_jax:
        import jax
        import jax.numpy as jnp

        def jax_loss(p: dict[str, Any], xs: Any, ys: Any) -> Any:
            logits = jnp.maximum(xs @ p["w1"] + p["b1"], 0) @ p["w2"] + p["b2"]
            return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), ys[..., None], axis=-1))
        jp, jx, jy = jax.tree_util.tree_map(jnp.asarray, host_params), jnp.asarray(x), jnp.asarray(y)
        one = jax.jit(jax.grad(jax_loss))
        each = jax.jit(jax.vmap(jax.grad(jax_loss), in_axes=(None, 0, 0)))
        found.append(Case("jax.jit(vmap(grad)) vs jax.jit(grad)", lambda: list(each(jp, jx, jy).values()),
                          lambda: list(one(jp, jx, jy).values()), None))
        eager_one = jax.grad(jax_loss)
        eager_each = jax.vmap(eager_one, in_axes=(None, 0, 0))
        found.append(Case("jax eager: vmap(grad) vs grad", lambda: list(eager_each(jp, jx, jy).values()),
                          lambda: list(eager_one(jp, jx, jy).values()), None))
    return found


def torch_cases(host_params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> list[Case]:
    """torch.func's per-example gradients against its batched gradient, eager on one thread
    (none when torch is not installed)."""
    try:
        import torch
        from torch.func import grad, vmap
    except ImportError:
        return []
    torch.set_num_threads(1)
    params = {k: torch.from_numpy(v.copy()) for k, v in host_params.items()}
    tx, ty = torch.from_numpy(x.copy()), torch.from_numpy(y.copy())

    def torch_loss(p: dict[str, Any], xs: Any, ys: Any) -> Any:
        logits = torch.relu(xs @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]
        return torch.nn.functional.cross_entropy(logits, ys)

    def example_loss(p: dict[str, Any], xi: Any, yi: Any) -> Any:  # (cross_entropy wants a batch axis)
        return torch_loss(p, xi[None], yi[None])
    one, each = grad(torch_loss), vmap(grad(example_loss), in_dims=(None, 0, 0))
    return [Case("torch.func eager: vmap(grad) vs grad", lambda: list(each(params, tx, ty).values()),
                 lambda: list(one(params, tx, ty).values()), None)]


def sync(fn: Callable[[], Any]) -> Callable[[], Any]:
    """`fn` with every output array computed (jax computes asynchronously)."""
    def call() -> None:
        out = fn()
        leaves = out if isinstance(out, (list, tuple)) else [out]
        for leaf in leaves:
            for t in (leaf.values() if isinstance(leaf, dict) else [leaf]):
                for u in (t.values() if isinstance(t, dict) else [t]):
                    getattr(getattr(u, "native", u), "block_until_ready", lambda: None)()
    return call


def report(chosen: list[Case], rounds: int) -> dict[str, Any]:
    samples = common.measure({c.name: (sync(c.ours), sync(c.peer)) for c in chosen}, rounds)
    out = {}
    for c in chosen:
        peer, ours = samples[c.name]
        of_medians, paired = common.ratios(peer, ours)
        out[c.name] = {"gradient_ms": statistics.median(peer) * 1e3,
                       "transform_ms": statistics.median(ours) * 1e3,
                       "ratio": of_medians, "paired_ratio": paired, "target": c.target,
                       "met": None if c.target is None else max(of_medians, paired) <= c.target}
    return out


def print_table(title: str, rows: dict[str, dict[str, Any]]) -> None:
    print(f"\n{title}")
    print(f"  {'case':34s} {'one grad':>11s} {'transform':>11s} {'ratio':>7s} {'paired':>7s}  target")
    for name, r in rows.items():
        verdict = "(for comparison)" if r["target"] is None else (
            f"<= {r['target']}x {'OK' if r['met'] else 'NOT MET'}")
        print(f"  {name:34s} {r['gradient_ms']:8.3f} ms {r['transform_ms']:8.3f} ms {r['ratio']:6.2f}x "
              f"{r['paired_ratio']:6.2f}x  {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__, "fewer rounds (a smoke run)", rounds=9)
    parser.add_argument("--no-jax", action="store_true", help="leave the jax backend's rows out")
    parser.add_argument("--no-torch", action="store_true", help="leave torch.func's row out")
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 9)
    command = common.command_line()
    sizes = "-".join(map(str, SIZES))
    common.print_header(f"tensorplug transforms benchmark: the demo MLP {sizes}, float32, batch {BATCH}",
                        command, common.environment(),
                        f"medians of {rounds} interleaved rounds; ratio = transform / one batched gradient, "
                        "lower is better")
    results: dict[str, Any] = {"command": command, "numpy": np.__version__, "tensorplug": tp.__version__,
                               "rounds": rounds}
    backends = ["numpy"] + ([] if args.no_jax else ["jax"])
    for backend in backends:
        results[backend] = report(cases(backend), rounds)
        print_table(f"{backend} backend (eager)", results[backend])
    results["peers"] = report(peer_cases(not args.no_jax, not args.no_torch), rounds)
    print_table("peers (the floor under the ratios above; eager peers' times beside tensorplug's)",
                results["peers"])
    common.write_results(args.results, "transforms-bench", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
