"""A ``tp.scan`` over 100 steps of a small LSTM cell (tp.nn.LSTMCell: batch 32, features 16,
units 32, float32) under ``tp.jit``, on jax against the same cell with ``jax.lax.scan`` under
``jax.jit``, and on numpy against the same loop written by hand in numpy.

    python benchmarks/rnn_bench.py            (--quick for a smoke run)

Issue 34's targets: on jax no more than 1.2x ``jax.lax.scan``; on numpy no more than 1.5x the
loop by hand. The rows "forward+backward" (the gradient of a loss of the last state with
respect to the weights, through the scan) say what the reverse scan costs; they have no
target; nor does the row "tp.nn.LSTM layer" (the layer computes every step's
``x @ kernel + bias`` at once before the loop; its peer, the loop by hand, does too). Cases
are measured in interleaved rounds (_common.py's measure); results go to benchmarks/results/.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as in run.py; set before numpy loads

import numpy as np  # noqa: E402

import _common as common  # noqa: E402  (this folder's: what the benchmark scripts share)
import tensorplug as tp  # noqa: E402

STEPS, BATCH, FEATURES, UNITS = 100, 32, 16, 32
TARGETS = {"jax": 1.2, "numpy": 1.5}


def _tp_functions(cell: tp.nn.LSTMCell) -> tuple:
    """tensorplug's forward and forward+backward, compiled: the last h of the scan over xs."""

    def run(cell, xs):
        h = tp.zeros((BATCH, UNITS), dtype=tp.float32)
        (h, _), _ = tp.scan(lambda carry, x: (cell(x, carry)[1], None), (h, h), xs)
        return h

    forward = tp.jit(run)
    backward = tp.jit(tp.grad(lambda cell, xs: tp.sum(run(cell, xs))))
    return forward, backward


def _numpy_forward(w: dict[str, np.ndarray], xs: np.ndarray, hoisted: bool = False) -> np.ndarray:
    """The same loop by hand in numpy (`hoisted`: every step's x @ kernel + bias at once first)."""
    kernel, recurrent, bias = w["kernel"], w["recurrent_kernel"], w["bias"]
    h = np.zeros((BATCH, UNITS), np.float32)
    c = np.zeros((BATCH, UNITS), np.float32)
    for x in (xs @ kernel + bias if hoisted else xs):
        z = x + h @ recurrent if hoisted else x @ kernel + h @ recurrent + bias
        i, f, o, g = np.split(z, 4, axis=-1)  # (tp.nn.LSTMCell's order)
        c = 1 / (1 + np.exp(-f)) * c + 1 / (1 + np.exp(-i)) * np.tanh(g)
        h = 1 / (1 + np.exp(-o)) * np.tanh(c)
    return h


def _jax_functions(w: dict[str, np.ndarray]) -> tuple:
    """The same cell with jax.lax.scan under jax.jit: forward and the gradient of sum(h)."""
    import jax
    import jax.numpy as jnp

    def run(w, xs):
        def step(carry, x):
            h, c = carry
            z = x @ w["kernel"] + h @ w["recurrent_kernel"] + w["bias"]
            i, f, o, g = jnp.split(z, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), None

        h0 = jnp.zeros((BATCH, UNITS), jnp.float32)
        (h, _), _ = jax.lax.scan(step, (h0, h0), xs)
        return h

    return jax.jit(run), jax.jit(jax.grad(lambda w, xs: jnp.sum(run(w, xs))))


def cases(backend: str) -> dict[str, tuple]:
    """Per case on `backend`: (tensorplug's call, the peer's call, target or None)."""
    tp.set_backend(backend)
    rng = np.random.default_rng(0)
    xs_np = rng.standard_normal((STEPS, BATCH, FEATURES)).astype(np.float32)
    cell = tp.nn.LSTMCell(UNITS, in_features=FEATURES, seed=0)
    w = {name: np.asarray(v) for name, v in cell.named_variables()}
    xs = tp.asarray(xs_np)
    forward, backward = _tp_functions(cell)
    if backend == "numpy":
        layer = tp.nn.LSTM(UNITS, seed=0)
        layer(tp.moveaxis(xs, 0, 1))
        layer.cell = cell  # (the same weights)
        run_layer = tp.jit(lambda layer, x: layer(x))
        x_batch_first = tp.moveaxis(xs, 0, 1)
        return {"numpy: forward": (lambda: forward(cell, xs), lambda: _numpy_forward(w, xs_np),
                                   TARGETS["numpy"]),
                "numpy: tp.nn.LSTM layer": (lambda: run_layer(layer, x_batch_first),
                                            lambda: _numpy_forward(w, xs_np, hoisted=True), None)}
    import jax.numpy as jnp

    jw, jxs = {k: jnp.asarray(v) for k, v in w.items()}, jnp.asarray(xs_np)
    jax_forward, jax_backward = _jax_functions(w)
    return {
        "jax: forward": (lambda: forward(cell, xs), lambda: jax_forward(jw, jxs), TARGETS["jax"]),
        "jax: forward+backward": (lambda: (backward(cell, xs).kernel,),
                                  lambda: (jax_backward(jw, jxs)["kernel"],), None),
    }


def main() -> None:
    parser = common.argument_parser(__doc__, "3 rounds and the forward rows only, to see that it runs",
                                    rounds=9)
    common.add_results_option(parser)
    parser.add_argument("--no-jax", action="store_true", help="leave out the jax rows")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 9)
    common.print_header(f"tp.scan over {STEPS} steps of an LSTM cell (batch {BATCH}, features {FEATURES}, "
                        f"units {UNITS}) under tp.jit", common.command_line(), common.environment())
    backends = ["numpy"] if args.no_jax else ["numpy", "jax"]
    print(common.comparison_header("peer"))
    rows = {}
    for backend in backends:  # (one backend active at a time: each measured on its own)
        table = {name: case for name, case in cases(backend).items()
                 if not (args.quick and "backward" in name)}
        timed = {name: (ours, peer) if backend == "numpy" else (common.waited(ours), common.waited(peer))
                 for name, (ours, peer, _) in table.items()}
        samples = common.measure(timed, rounds)
        for name, (ours, peer, target) in table.items():
            same = all(np.allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)
                       for a, b in zip(common.leaves(ours()), common.leaves(peer()), strict=True))
            row = common.comparison(*samples[name], same, target or float("inf"))
            rows[name] = {**row, "target": target}
            print(common.comparison_line(name, row, 2) + (f"   {target}x {common.verdict(row)}" if target
                                                          else "   (what it costs)"))
    common.write_results(args.results, "rnn-bench", {"rounds": rounds, "cases": rows})
    sys.stdout.flush()


if __name__ == "__main__":
    main()
