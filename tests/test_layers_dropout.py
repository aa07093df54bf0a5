"""tp.nn.Dropout: the identity in eval mode; in training, zeros at the rate and the kept
elements scaled by 1 / (1 - rate); a new mask at every call; the same masks from the same seed;
the gradient through the kept elements; the errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp


def test_eval_mode_is_the_identity(backend):
    x = np.random.default_rng(0).normal(size=(4, 5))
    layer = tp.nn.Dropout(0.5).eval()
    np.testing.assert_array_equal(layer(x).numpy(), x)
    np.testing.assert_array_equal(tp.nn.Dropout(0.5)(x, training=False).numpy(), x)
    np.testing.assert_array_equal(tp.nn.Dropout(0.0)(x).numpy(), x)


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.8])
def test_training_drops_at_the_rate_and_scales_the_rest(backend, rate):
    out = tp.nn.Dropout(rate, seed=1)(np.ones((200, 100), dtype=np.float32)).numpy()
    dropped = np.mean(out == 0)
    assert abs(dropped - rate) < 0.02, dropped  # 20,000 draws: 4+ standard deviations
    np.testing.assert_allclose(out[out != 0], 1 / (1 - rate), rtol=1e-6)


def test_each_call_draws_a_new_mask_and_seeds_repeat(backend):
    x = np.ones((8, 16))
    first, second = tp.nn.Dropout(0.5, seed=3), tp.nn.Dropout(0.5, seed=3)
    masks = [first(x).numpy() != 0 for _ in range(3)]
    assert not np.array_equal(masks[0], masks[1]) and not np.array_equal(masks[1], masks[2])
    for mask in masks:  # the same seed: the same sequence of masks
        np.testing.assert_array_equal(second(x).numpy() != 0, mask)
    assert not np.array_equal(tp.nn.Dropout(0.5, seed=4)(x).numpy() != 0, masks[0])


def test_layers_without_a_seed_differ_and_restart_with_set_seed(backend):
    x = np.ones((8, 16))
    tp.nn.set_seed(5)
    a, b = tp.nn.Dropout(0.5), tp.nn.Dropout(0.5)
    assert a.seed != b.seed and not np.array_equal(a(x).numpy(), b(x).numpy())
    tp.nn.set_seed(5)
    np.testing.assert_array_equal(tp.nn.Dropout(0.5)(x).numpy(), tp.nn.Dropout(0.5, seed=a.seed)(x).numpy())


def test_gradient_flows_through_the_kept_elements(backend):
    layer = tp.nn.Dropout(0.25, seed=0)
    x = tp.asarray(np.random.default_rng(1).normal(size=(6, 7)))
    g = tp.grad(lambda inputs: tp.sum(layer(inputs) * 2.0))(x)  # 2 / (1 - rate) where kept, else 0
    assert set(np.unique(g.numpy())) <= {0.0, 2 / 0.75}
    assert 0 < np.mean(g.numpy() == 0) < 0.6


def test_dropout_in_a_model_follows_train_and_eval(backend):
    model = tp.nn.Sequential([tp.nn.Dropout(0.5), tp.nn.Lambda(lambda x: x * 1.0)])
    x = np.ones((4, 4))
    assert np.any(model(x).numpy() == 0)
    model.eval()
    np.testing.assert_array_equal(model(x).numpy(), x)
    assert repr(model.layers[0]).startswith("Dropout(rate=0.5, seed=")


@pytest.mark.parametrize("args, error, match", [
    ((1.0,), tp.ShapeError, r"Dropout: rate must be in \[0, 1\) .*got 1.0"),
    ((-0.1,), tp.ShapeError, r"Dropout: rate must be in \[0, 1\) .*got -0.1"),
    (("half",), tp.ArgumentError, r"Dropout: rate must be a real number, got 'half'"),
])
def test_bad_rates_fail_at_construction(args, error, match):
    with pytest.raises(error, match=match):
        tp.nn.Dropout(*args)


def test_bad_training_flag_names_the_layer(backend):
    with pytest.raises(tp.ArgumentError, match=r"^Dropout: training must be True, False or None .*got 'yes'"):
        tp.nn.Dropout(0.5)(np.ones(3), training="yes")


def test_a_compiled_step_draws_a_new_mask_at_every_call(backend):
    """The key lives in a Variable the layer splits at each call: tp.jit replays the split, so
    the masks change from call to call, and follow the eager layer's sequence."""
    x = np.ones((8, 16), np.float32)
    compiled, eager = tp.nn.Dropout(0.5, seed=7), tp.nn.Dropout(0.5, seed=7)
    step = tp.jit(lambda inputs: compiled(inputs))
    masks = [step(x).numpy() != 0 for _ in range(3)]
    assert not np.array_equal(masks[0], masks[1]) and not np.array_equal(masks[1], masks[2])
    for mask in masks:
        np.testing.assert_array_equal(eager(x).numpy() != 0, mask)


@pytest.mark.jax
def test_the_masks_are_the_same_on_every_backend():
    """Keys give the same bits on numpy and jax (tp.random's threefry): so do the masks."""
    masks = []
    for name in ("numpy", "jax"):
        with tp.backend_scope(name):
            layer = tp.nn.Dropout(0.3, seed=11)
            masks.append(layer(np.ones((5, 6), np.float32)).numpy() != 0)
    np.testing.assert_array_equal(masks[0], masks[1])
