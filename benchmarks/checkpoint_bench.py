"""tp.checkpoint on a deep MLP: the bytes a gradient's tape keeps alive, and the time, with and
without a checkpoint around each block of layers.

    python benchmarks/checkpoint_bench.py            (or: make bench; --quick for a smoke run)

The MLP: 16 layers of 256 units (tanh), a batch of 64, float32, the loss the mean of the
squared output; its gradient with respect to every weight and bias (``tp.value_and_grad``).
"checkpointed" runs each block of 4 layers under ``tp.checkpoint``.

Memory, measured two ways (eager, where tensors are real):
- the tape's bytes: the distinct arrays its entries reference (what they keep alive for the
  backward pass) after the forward pass, leaving out the watched parameters themselves;
- the peak of the live tensor bytes during forward and backward, over the bytes alive at the
  start (``tp.profile``'s ``peak_bytes - start_bytes``).

Time: forward + backward, checkpointed over plain (one more forward pass per block, so
expected near 1.3x), eager and under ``tp.jit``, per backend, in interleaved rounds
(_common.py's measure); the ratio of the medians and the median of the rounds' own
ratios. Results are written to benchmarks/results/ (not kept in git).
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
from collections.abc import Callable
from typing import Any

# one BLAS thread for numpy (the numpy backend's matmuls), as in run.py; set before numpy loads
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import _common as common  # noqa: E402  (this folder's: what the benchmark scripts share)
import tensorplug as tp  # noqa: E402
from tensorplug.core.context import push_recorder, remove_recorder  # noqa: E402
from tensorplug.tools.memory import nbytes  # noqa: E402
from tensorplug.transforms.autodiff.tape import Tape  # noqa: E402

LAYERS, WIDTH, BATCH, PER_BLOCK = 16, 256, 64, 4

Params = list[tuple[tp.Tensor, tp.Tensor]]


def data(layers: int, width: int, batch: int, seed: int = 0) -> tuple[Params, tp.Tensor]:
    rng = np.random.default_rng(seed)
    params = [(tp.asarray((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)),
               tp.asarray((rng.standard_normal(width) * 0.1).astype(np.float32))) for _ in range(layers)]
    return params, tp.asarray(rng.standard_normal((batch, width)).astype(np.float32))


def block(h: tp.Tensor, params: Params) -> tp.Tensor:
    for w, b in params:
        h = tp.tanh(h @ w + b)
    return h


def loss(params: Params, x: tp.Tensor, checkpointed: bool, per_block: int = PER_BLOCK) -> tp.Tensor:
    run = tp.checkpoint(block) if checkpointed else block
    h = x
    for i in range(0, len(params), per_block):
        h = run(h, params[i:i + per_block])
    return tp.mean(h * h)


def tape_bytes(params: Params, x: tp.Tensor, checkpointed: bool) -> tuple[int, int]:
    """(entries, bytes) of the tape of the loss's forward pass: the distinct native arrays its
    entries reference, the watched parameters' own left out."""
    sources = [t for layer in params for t in layer]
    tape = Tape(sources)
    push_recorder(tape)
    try:
        loss(params, x, checkpointed)
    finally:
        remove_recorder(tape)
    seen = {id(t._data) for t in sources}
    keep, total = [], 0  # (keep: the arrays counted, alive while their ids are compared)
    for entry in tape.entries:
        for t in entry.inputs + entry.outputs:
            if id(t._data) not in seen:
                seen.add(id(t._data))
                keep.append(t._data)
                total += nbytes(t)
    return len(tape.entries), total


def peak_bytes(params: Params, x: tp.Tensor, checkpointed: bool) -> int:
    """The peak of the live tensor bytes during value_and_grad, over those alive at its start
    (garbage collected first: tensors freed inside the block would hide bytes made there)."""
    gc.collect()
    with tp.profile() as prof:
        tp.value_and_grad(loss)(params, x, checkpointed)
    return prof.peak_bytes - prof.start_bytes


def memory(backend: str, params: Params, x: tp.Tensor) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for checkpointed in (False, True):
        entries, kept = tape_bytes(params, x, checkpointed)
        out["checkpointed" if checkpointed else "plain"] = {
            "tape_entries": entries, "tape_bytes": kept, "peak_bytes": peak_bytes(params, x, checkpointed)}
    plain, ck = out["plain"], out["checkpointed"]
    out["tape_bytes_ratio"] = ck["tape_bytes"] / plain["tape_bytes"]
    out["peak_bytes_ratio"] = ck["peak_bytes"] / plain["peak_bytes"]
    return out


def same_gradients(params: Params, x: tp.Tensor, exact: bool) -> bool:
    (v0, g0), (v1, g1) = (tp.value_and_grad(loss)(params, x, c) for c in (False, True))
    pairs = [(v0, v1)] + [(a, b) for la, lb in zip(g0, g1) for a, b in zip(la, lb)]
    if exact:
        return all(np.array_equal(a.numpy(), b.numpy()) for a, b in pairs)
    return all(np.allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-7) for a, b in pairs)


def timings(backend: str, params: Params, x: tp.Tensor, rounds: int) -> dict[str, Any]:
    def step(checkpointed: bool, jitted: bool) -> Callable[[], Any]:
        vg = tp.value_and_grad(lambda p, x: loss(p, x, checkpointed))
        fn = tp.jit(vg) if jitted else vg
        call = lambda: fn(params, x)  # noqa: E731
        return common.waited(lambda: tuple(t for t in _flat(call()))) if backend == "jax" else call

    cases = {f"value_and_grad{' under tp.jit' if jitted else ', eager'}":
             (step(True, jitted), step(False, jitted)) for jitted in (False, True)}
    samples = common.measure(cases, rounds)
    out = {}
    for name, (plain, ck) in samples.items():
        of_medians, paired = common.ratios(plain, ck)
        out[name] = {"plain_ms": statistics.median(plain) * 1e3,
                     "checkpointed_ms": statistics.median(ck) * 1e3,
                     "ratio": of_medians, "paired_ratio": paired}
    return out


def _flat(result: Any) -> list[tp.Tensor]:
    value, grads = result
    return [value] + [t for layer in grads for t in layer]


def _mb(n: int) -> str:
    return f"{n / 2**20:7.2f} MB"


def print_report(backend: str, r: dict[str, Any]) -> None:
    print(f"\n{backend} backend: gradients {'bit for bit' if backend == 'numpy' else 'to rounding'} equal: "
          f"{r['same_gradients']}")
    m = r["memory"]
    print(f"  {'':14s} {'tape entries':>12s} {'tape bytes':>12s} {'peak bytes':>12s}")
    for kind in ("plain", "checkpointed"):
        print(f"  {kind:14s} {m[kind]['tape_entries']:12d} {_mb(m[kind]['tape_bytes']):>12s} "
              f"{_mb(m[kind]['peak_bytes']):>12s}")
    print(f"  {'checkpointed / plain':27s} {m['tape_bytes_ratio']:11.3f}x {m['peak_bytes_ratio']:11.3f}x")
    for name, t in r["time"].items():
        print(f"  {name:30s} plain {t['plain_ms']:8.2f} ms, checkpointed {t['checkpointed_ms']:8.2f} ms: "
              f"{t['ratio']:.2f}x (paired {t['paired_ratio']:.2f}x)")


def main(argv: list[str] | None = None) -> int:
    parser = common.argument_parser(__doc__, "a small MLP, one round (a smoke run)", rounds=7)
    parser.add_argument("--no-jax", action="store_true", help="leave the jax backend out")
    common.add_results_option(parser)
    args = parser.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 7)
    layers, width, batch = (8, 32, 8) if args.quick else (LAYERS, WIDTH, BATCH)
    command = common.command_line()
    common.print_header(f"tp.checkpoint benchmark: an MLP of {layers} tanh layers of {width} units, a "
                        f"batch of {batch}, float32, a checkpoint around each block of {PER_BLOCK} layers",
                        command, common.environment(),
                        f"times: medians of {rounds} interleaved rounds; ratio = checkpointed / plain")
    results: dict[str, Any] = {"command": command, "numpy": np.__version__, "tensorplug": tp.__version__,
                               "rounds": rounds, "layers": layers, "width": width, "batch": batch,
                               "per_block": PER_BLOCK}
    for backend in ("numpy",) + (() if args.no_jax else ("jax",)):
        tp.set_backend(backend)
        params, x = data(layers, width, batch)
        r = {"same_gradients": same_gradients(params, x, exact=backend == "numpy"),
             "memory": memory(backend, params, x), "time": timings(backend, params, x, rounds)}
        results[backend] = r
        print_report(backend, r)
    common.write_results(args.results, "checkpoint-bench", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
