"""tp.export.stablehlo: functions and models serialized with jax.export through the jax backend,
reloaded with jax.export.deserialize (issue 35 item 4)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.cli.digits_cnn import cnn

jax_export = pytest.importorskip("jax.export")

pytestmark = pytest.mark.jax


def test_a_function_reloads_and_gives_the_same_outputs():
    def f(a, b):
        return tp.sin(a) * b, tp.sum(a, axis=0)

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    blob = tp.export.stablehlo(f, a, b)
    assert isinstance(blob, bytes)
    got = jax_export.deserialize(bytearray(blob)).call(a, b)
    for g, want in zip(got, f(a, b)):
        np.testing.assert_allclose(np.asarray(g), want.numpy(), rtol=1e-6, atol=1e-6)


def test_the_demo_cnn_reloads_with_the_same_predictions():
    model = cnn(0)
    x = np.random.default_rng(1).uniform(0, 16, size=(8, 64)).astype(np.float32)
    exported = jax_export.deserialize(bytearray(tp.export.stablehlo(model, x)))
    got = np.asarray(exported.call(x))
    want = model(x).numpy()  # (numpy's kernels; XLA's convolution sums in another order)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(got.argmax(-1), want.argmax(-1))
