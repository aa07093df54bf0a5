"""The kernels random keys are drawn with: Threefry2x32 (the numpy backend's fused one, the jax
backend's own, and the generic one over a backend's uint32 kernels) held to the kit's reference
and to jax.random's bits, across the numpy kernel's chunks and for batches of keys; Erfinv (tp.erfinv)
held to the kit on every backend, its derivatives, and across the numpy kernel's chunks."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _toy_backend import install_toy_backend
from tensorplug.registry.generic_kernels import GENERIC_SOURCE


@pytest.mark.parametrize("backend_name", ["numpy", pytest.param("jax", marks=pytest.mark.jax)])
def test_threefry_kernels_pass_the_kit(backend_name):
    result = tp.testing.opcheck("Threefry2x32", backend_name)
    assert result.ok, result.report()


@pytest.mark.parametrize("backend_name", ["numpy", pytest.param("jax", marks=pytest.mark.jax), "torch"])
def test_erfinv_kernels_pass_the_kit_to_second_order(backend_name):
    result = tp.testing.opcheck("Erfinv", backend_name, gradient_order=2)
    assert result.ok, result.report()


def test_erfinv_derivatives_and_vmap(backend):
    x = np.array([-0.9, -0.3, 0.0, 0.5, 0.99])
    y = np.asarray(tp.erfinv(tp.asarray(x)))
    slope = np.sqrt(np.pi) / 2 * np.exp(y * y)
    np.testing.assert_allclose(np.asarray(tp.vmap(tp.grad(tp.erfinv))(tp.asarray(x))), slope, rtol=1e-12)
    _, tangent = tp.jvp(tp.erfinv, (tp.asarray(x),), (tp.ones_like(tp.asarray(x)),))
    np.testing.assert_allclose(np.asarray(tangent), slope, rtol=1e-12)
    assert tp.erfinv(tp.asarray([0, 1])).dtype == tp.float32  # (integers: the default float)
    with pytest.raises(tp.DTypeError, match="erfinv.*complex"):
        tp.erfinv(tp.asarray([0.5 + 0j]))


def test_the_numpy_erfinv_past_a_chunk_with_its_tails_in_place():
    """2**16 + 6 values (tails in the first and the last chunk, +-1 at the ends), a
    non-contiguous input: as the values one by one; float16 computed in float32."""
    x = np.linspace(-1, 1, 2 * (2**16 + 5) + 1, dtype=np.float32)[::2]
    got = np.asarray(tp.erfinv(tp.asarray(x)))
    want = np.concatenate([np.asarray(tp.erfinv(tp.asarray(x[i:i + 1]))) for i in range(0, x.size, 997)])
    np.testing.assert_array_equal(got[::997], want)
    assert np.isinf(got[[0, -1]]).all() and got.shape == x.shape
    half = x[::5000].astype(np.float16)
    got = np.asarray(tp.erfinv(tp.asarray(half)))
    assert got.dtype == np.float16
    wide = np.asarray(tp.erfinv(tp.asarray(half.astype(np.float32))))
    np.testing.assert_array_equal(got, wide.astype(np.float16))  # (computed in float32)


def test_a_backend_without_its_own_threefry_gets_the_generic_kernel():
    """The toy backend registers no Threefry2x32: the core's generic kernel runs the hash with
    its Add and bitwise kernels, and passes the kit."""
    install_toy_backend()
    with tp.backend_scope("toy") as toy:
        tp.random.bits(tp.random.key(3), (4,))
        assert toy.calls["BitwiseXor"] > 0 and toy.calls["LeftShift"] > 0
    assert "Threefry2x32/toy" in tp.extend.contributions(GENERIC_SOURCE)["kernels"]
    result = tp.testing.opcheck("Threefry2x32", "toy")
    assert result.ok, result.report()


def test_the_numpy_kernel_is_the_generic_one_across_its_chunks():
    """Past one chunk (2**16 counters), with a batch of keys broadcast over the counters and
    counters in both words: the same words as the generic kernel gives on the toy backend."""
    rng = np.random.default_rng(5)
    words = [rng.integers(0, 2**32, s, dtype=np.uint32) for s in ((3, 1), (3, 1), (1, 70000), (70000,))]
    got = [np.asarray(t) for t in tp.extend.run_kernel("Threefry2x32", [tp.asarray(w) for w in words])]
    install_toy_backend()
    with tp.backend_scope("toy"):
        want = [t.numpy() for t in tp.extend.run_kernel("Threefry2x32", [tp.asarray(w) for w in words])]
    for a, b in zip(got, want):
        assert a.shape == (3, 70000)
        np.testing.assert_array_equal(a, b)


@pytest.mark.jax  # (compares with jax itself: not in make test-quick)
@pytest.mark.parametrize("draw", ["bits", "uniform", "normal"])
def test_a_batch_of_keys_past_a_chunk_is_jax_random(backend, draw):
    jax = pytest.importorskip("jax")
    keys = tp.random.split(tp.random.key(11), 3)
    got = np.asarray(getattr(tp.random, draw)(keys, (70001,)))
    want = np.asarray(jax.vmap(lambda k: getattr(jax.random, draw)(k, (70001,)))(np.asarray(keys)))
    if draw == "normal":
        np.testing.assert_allclose(got, want, rtol=3e-7, atol=1e-7)
    else:
        np.testing.assert_array_equal(got, want)


def test_keys_export_to_onnx_as_the_hash_written_out(tmp_path):
    """Threefry2x32's and Erfinv's ONNX lowerings: a function drawing from a key argument gives,
    in onnxruntime, the numbers it gives eagerly (uint32 adds wrap there too)."""
    run = pytest.importorskip("_onnx_runtime").run

    def draw(k):
        return tp.random.normal(k, (6,)), tp.random.bits(tp.random.split(k)[1], (3,))

    path = str(tmp_path / "keys.onnx")
    tp.export.onnx(draw, tp.random.key(0), path=path)
    for seed in (5, 2**31 + 3):
        k = tp.random.key(seed)
        (normals, bits), (want_normals, want_bits) = run(path, np.asarray(k)), draw(k)
        np.testing.assert_array_equal(bits, np.asarray(want_bits))
        np.testing.assert_allclose(normals, np.asarray(want_normals), rtol=1e-6)  # (Erfinv: an ulp or two)
