"""Property check of Multinomial, whose streams differ between backends: int64 samples of the
right shape, inside [0, classes), never a class of probability 0, the same seed giving the same
samples and another seed others, and frequencies close to softmax(logits) (to the probabilities
when normalized) on a large sample."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case
from tensorplug.testing.references._base import Reference, other_dtypes, register_reference

_LOGITS = np.array([[0.0, 1.0, -1.0, 2.0], [3.0, 0.0, 0.0, -np.inf]])


def _cases(spec: KernelSpec) -> list[Case]:
    out = []
    out.append(Case((_LOGITS.astype(np.float32),), {"num_samples": 4000, "seed": 7}, label="sample"))
    probs = np.array([[0.2, 0.0, 0.8]])  # (float64)
    out.append(Case((probs,), {"num_samples": 4000, "seed": 1, "normalized": True}, label="sample"))
    out.append(Case((np.zeros((0, 3), np.float32),), {"num_samples": 2, "seed": -2}))
    out.append(Case((np.zeros((1, 1), np.float32),), {"num_samples": 3, "seed": 5}))  # (one class)
    return out + other_dtypes(spec, out, "logits", lambda d: Case((_LOGITS[:1].astype(d.numpy),),
                                                                   {"num_samples": 30, "seed": 3}))


def _bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((np.zeros(3, np.float32),), {"num_samples": 2, "seed": 0}, error=ShapeError,
                    why="1-d logits"),
            BadCase((np.zeros((2, 3), np.float32),), {"num_samples": -1, "seed": 0}, error=ShapeError,
                    why="a negative num_samples"),
            BadCase((np.zeros((2, 3), np.int32),), {"num_samples": 2, "seed": 0}, error=DTypeError,
                    why="integer logits")]


Rerun = Callable[[dict[str, Any]], Sequence[np.ndarray]]


def _check(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    out = np.asarray(outputs[0])
    logits = np.asarray(case.inputs[0], np.float64)
    batch, classes = logits.shape
    if out.dtype != np.int64 or out.shape != (batch, attrs["num_samples"]):
        want = (batch, attrs["num_samples"])
        return f"samples of dtype {out.dtype} and shape {out.shape}; expected int64 of {want}"
    if out.size and (out.min() < 0 or out.max() >= classes):
        return f"a sample outside [0, {classes}): {out.min()}..{out.max()}"
    p = logits if attrs["normalized"] else np.exp(logits - logits.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    for r in range(batch):
        if (p[r][out[r]] == 0).any():
            return f"row {r} drew a class of probability 0"
        if case.label == "sample":
            freq = np.bincount(out[r], minlength=classes) / out.shape[1]
            if np.abs(freq - p[r]).max() > 0.03:
                return (f"row {r}: frequencies {np.round(freq, 3).tolist()}, probabilities "
                        f"{np.round(p[r], 3).tolist()}")
    if not np.array_equal(rerun(attrs)[0], out):
        return f"the same seed ({attrs['seed']}) gave different samples on a second call"
    if out.size >= 20 and np.array_equal(rerun({**attrs, "seed": attrs["seed"] + 1})[0], out):
        return f"seeds {attrs['seed']} and {attrs['seed'] + 1} gave the same samples"
    return None


register_reference(Reference("Multinomial", _cases, check=_check, bad_cases=_bad))
