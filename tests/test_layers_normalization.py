"""The normalization layers (BatchNorm, LayerNorm, GroupNorm, RMSNorm) against torch.nn's, on
both backends in float64: outputs and the gradients of sum(out * r) with respect to the input
and every weight; BatchNorm's running statistics, eager and under tp.jit; the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tensorplug as tp

torch.set_num_threads(1)

RNG = np.random.default_rng(7)


def _channels_second(make):
    """A torch reference over channels-first inputs, applied to inputs whose channels are on
    `axis` (moved to axis 1 and back)."""
    def reference(layer, axis, ndim):
        module = make(layer, ndim)

        def run(x):
            return torch.movedim(module(torch.movedim(x, axis, 1)), 1, axis)
        return module, run
    return reference


def _trailing(make):
    """A torch reference over the trailing axes (LayerNorm, RMSNorm: torch normalizes the last ones)."""
    def reference(layer, axis, ndim):
        module = make(layer, ndim)
        return module, module
    return reference


def _moved(make, axes):
    """A torch reference over the trailing axes, applied to inputs normalized over `axes` (moved
    to the end, in that order, and back)."""
    def reference(layer, axis, ndim):
        module = make(layer, ndim)
        ends = list(range(ndim - len(axes), ndim))

        def run(x):
            return torch.movedim(module(torch.movedim(x, axes, ends)), ends, axes)
        return module, run
    return reference


def _batch_norm(layer, ndim):
    cls = {3: torch.nn.BatchNorm1d, 4: torch.nn.BatchNorm2d}[ndim]
    # Keras's momentum weighs the old statistics; torch's weighs the batch's
    return cls(layer.features[0], eps=layer.epsilon, momentum=1 - layer.momentum, dtype=torch.float64)


def _group_norm(groups):
    def make(layer, ndim):
        return torch.nn.GroupNorm(groups, layer.features[0], eps=layer.epsilon, dtype=torch.float64)
    return make


def _layer_norm(layer, ndim):
    return torch.nn.LayerNorm(layer.features, eps=layer.epsilon, dtype=torch.float64)


def _rms_norm(layer, ndim):
    return torch.nn.RMSNorm(layer.features, eps=layer.epsilon, dtype=torch.float64)


CASES = {  # name: (tp layer, torch reference, input shape, channel axis of the input)
    "batch_norm_nlc": (lambda: tp.nn.BatchNorm(), _channels_second(_batch_norm), (4, 3, 5), -1),
    "batch_norm_nhwc": (lambda: tp.nn.BatchNorm(momentum=0.9, epsilon=1e-5), _channels_second(_batch_norm),
                        (3, 2, 3, 4), -1),
    "batch_norm_nchw": (lambda: tp.nn.BatchNorm(axis=1), _channels_second(_batch_norm), (3, 4, 2, 3), 1),
    "layer_norm": (lambda: tp.nn.LayerNorm(), _trailing(_layer_norm), (4, 3, 5), -1),
    "layer_norm_two_axes": (lambda: tp.nn.LayerNorm(axis=(-2, -1), epsilon=1e-5), _trailing(_layer_norm),
                            (2, 3, 4), -1),
    "group_norm": (lambda: tp.nn.GroupNorm(3), _channels_second(_group_norm(3)), (2, 5, 6), -1),
    "group_norm_nhwc": (lambda: tp.nn.GroupNorm(2, epsilon=1e-5), _channels_second(_group_norm(2)),
                        (2, 3, 2, 4), -1),
    "group_norm_nchw": (lambda: tp.nn.GroupNorm(2, axis=1), _channels_second(_group_norm(2)),
                        (2, 4, 3, 2), 1),
    "layer_norm_inner_axis": (lambda: tp.nn.LayerNorm(axis=1), _moved(_layer_norm, [1]), (2, 4, 3), 1),
    "layer_norm_inner_axes": (lambda: tp.nn.LayerNorm(axis=(1, 3)), _moved(_layer_norm, [1, 3]),
                              (2, 3, 2, 4), 1),
    "rms_norm": (lambda: tp.nn.RMSNorm(), _trailing(_rms_norm), (4, 3, 5), -1),
    "rms_norm_axes_reversed": (lambda: tp.nn.RMSNorm(axis=(-1, 1)), _moved(_rms_norm, [3, 1]),
                               (2, 3, 2, 4), 1),
    "rms_norm_two_axes": (lambda: tp.nn.RMSNorm(axis=(-2, -1)), _trailing(_rms_norm), (2, 3, 4), -1),
}


def _built(case):
    """The tp layer built on a float64 input, its weights random, and its torch twin."""
    make, reference, shape, axis = CASES[case]
    x = RNG.normal(size=shape) * 2 + 0.5
    layer = make()
    layer(x)  # build
    for name in ("gamma", "beta"):
        if hasattr(layer, name):
            v = getattr(layer, name)
            v.assign(RNG.normal(size=v.shape))
    module, run = reference(layer, axis, len(shape))
    with torch.no_grad():
        if hasattr(layer, "gamma"):
            module.weight.copy_(torch.tensor(layer.gamma.numpy()))
        if hasattr(layer, "beta"):
            module.bias.copy_(torch.tensor(layer.beta.numpy()))
    return layer, module, run, x


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", list(CASES))
def test_values_and_gradients_match_torch(backend, case, training):
    layer, module, run, x = _built(case)
    if isinstance(layer, tp.nn.BatchNorm) and not training:  # eval: running statistics, not 0 and 1
        layer.moving_mean.assign(RNG.normal(size=layer.moving_mean.shape))
        layer.moving_variance.assign(RNG.uniform(0.5, 2.0, size=layer.moving_variance.shape))
        with torch.no_grad():
            module.running_mean.copy_(torch.tensor(layer.moving_mean.numpy()))
            module.running_var.copy_(torch.tensor(layer.moving_variance.numpy()))
    layer.train(training)
    module.train(training)
    r = RNG.normal(size=x.shape)

    def loss(lay, inputs):
        return tp.sum(lay(inputs) * r)

    out = layer(tp.asarray(x))
    g_layer, g_x = tp.grad(loss, argnums=(0, 1))(layer, tp.asarray(x))

    xt = torch.from_numpy(x.copy()).requires_grad_(True)
    expected = run(xt)
    (expected * torch.from_numpy(r)).sum().backward()
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(g_x.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-6)
    for ours, theirs in (("gamma", "weight"), ("beta", "bias")):
        if hasattr(layer, ours):
            np.testing.assert_allclose(getattr(g_layer, ours).numpy(), getattr(module, theirs).grad.numpy(),
                                       rtol=1e-6, atol=1e-6, err_msg=ours)


@pytest.mark.parametrize("case", ["batch_norm_nlc", "batch_norm_nchw"])
def test_batch_norm_running_statistics_follow_keras(backend, case):
    """One training call moves moving_mean as torch's running_mean (momentum 1 - Keras's); the
    variance is Keras's biased one, where torch's running_var takes the unbiased variance: the
    expected value is computed here with the biased variance."""
    layer, module, run, x = _built(case)
    axis = CASES[case][3] % x.ndim
    layer.moving_mean.assign(np.zeros(x.shape[axis]))  # (as built: the build call moved them)
    layer.moving_variance.assign(np.ones(x.shape[axis]))
    layer(x)
    run(torch.from_numpy(x))
    others = tuple(a for a in range(x.ndim) if a != axis)
    m = layer.momentum
    np.testing.assert_allclose(layer.moving_mean.numpy(), module.running_mean.numpy(), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(layer.moving_variance.numpy(), m + (1 - m) * x.var(axis=others), rtol=1e-6)
    assert not layer.moving_mean.trainable and not layer.moving_variance.trainable
    assert [v.name for v in layer.trainable_variables()] == [layer.gamma.name, layer.beta.name]


def test_batch_norm_under_jit_updates_the_statistics_like_eager(backend):
    x = [RNG.normal(size=(6, 3)) + i for i in range(3)]
    eager, compiled = tp.nn.BatchNorm(momentum=0.8, seed=0), tp.nn.BatchNorm(momentum=0.8, seed=0)
    eager(x[0]), compiled(x[0])  # built outside tp.jit (one step each)
    step = tp.jit(lambda inputs: compiled(inputs))
    for batch in x:
        out = step(tp.asarray(batch))
        np.testing.assert_allclose(out.numpy(), eager(tp.asarray(batch)).numpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(compiled.moving_mean.numpy(), eager.moving_mean.numpy(), rtol=1e-6)
        np.testing.assert_allclose(compiled.moving_variance.numpy(), eager.moving_variance.numpy(), rtol=1e-6)
    assert np.abs(compiled.moving_mean.numpy()).min() > 0.1  # (they moved)


def test_batch_norm_statistics_move_under_grad_over_the_model(backend):
    """The functional training step, tp.grad over the model (which rebuilds it around tensors),
    moves the running statistics as an eager call does, in and out of tp.jit."""
    x = RNG.normal(size=(6, 3)) + 2
    model, twin = tp.nn.Sequential([tp.nn.BatchNorm(seed=0)]), tp.nn.BatchNorm(seed=0)
    model(x), twin(x)

    def loss(m, inputs):
        return tp.sum(tp.square(m(inputs)))

    step = tp.jit(lambda m, inputs: tp.grad(loss)(m, inputs))
    for run in (tp.grad(loss), step, step):
        run(model, tp.asarray(x))
        twin(x)
        np.testing.assert_allclose(model.layers[0].moving_mean.numpy(), twin.moving_mean.numpy(), rtol=1e-6)
        np.testing.assert_allclose(model.layers[0].moving_variance.numpy(), twin.moving_variance.numpy(),
                                   rtol=1e-6)


def test_batch_norm_eval_uses_the_running_statistics(backend):
    layer = tp.nn.BatchNorm(scale=False, center=False, epsilon=1e-3)
    x = RNG.normal(size=(5, 2)) * 3 + 1
    layer(x)
    before = layer.moving_mean.numpy().copy()
    layer.eval()
    out = layer(x).numpy()
    np.testing.assert_array_equal(layer.moving_mean.numpy(), before)  # (not updated)
    expected = (x - before) / np.sqrt(layer.moving_variance.numpy() + 1e-3)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    np.testing.assert_allclose(layer(x, training=True).numpy().mean(axis=0), 0.0, atol=1e-6)


def test_sizes_given_up_front_build_at_construction(backend):
    layer = tp.nn.LayerNorm(in_features=4)
    assert layer.built and layer.gamma.shape == (4,)
    assert tp.nn.LayerNorm(axis=(-2, -1), in_features=(3, 4)).beta.shape == (3, 4)
    assert tp.nn.GroupNorm(2, in_features=6).gamma.shape == (6,)
    assert [n for n, _ in tp.nn.BatchNorm(in_features=3).named_variables()] == [
        "gamma", "beta", "moving_mean", "moving_variance"]
    assert [n for n, _ in tp.nn.RMSNorm(in_features=3).named_variables()] == ["gamma"]
    assert tp.nn.LayerNorm(center=False, in_features=3).children().keys() == {"gamma"}


@pytest.mark.parametrize("make, error, match", [
    (lambda: tp.nn.BatchNorm(momentum=1.5), tp.ShapeError,
     r"BatchNorm: momentum must be in \[0, 1\].*got 1.5"),
    (lambda: tp.nn.BatchNorm(axis=1.0), tp.ArgumentError, r"BatchNorm: axis must be an int, got 1.0"),
    (lambda: tp.nn.LayerNorm(epsilon=0), tp.ShapeError,
     r"LayerNorm: epsilon must be a finite number > 0, got 0"),
    (lambda: tp.nn.LayerNorm(axis=[]), tp.ArgumentError, r"LayerNorm: axis must name at least one axis"),
    (lambda: tp.nn.RMSNorm(axis=(1, 1)), tp.ShapeError, r"RMSNorm: axis \(1, 1\) names an axis twice"),
    (lambda: tp.nn.GroupNorm(0), tp.ShapeError, r"GroupNorm: groups must be a positive int, got 0"),
    (lambda: tp.nn.GroupNorm(4, in_features=6), tp.ShapeError,
     r"GroupNorm: groups=4 must divide in_features=6"),
    (lambda: tp.nn.LayerNorm(in_features=0), tp.ShapeError,
     r"LayerNorm: in_features must be a positive int, got 0"),
    (lambda: tp.nn.LayerNorm(axis=(1, 2), in_features=3), tp.ShapeError,
     r"LayerNorm: in_features 3 must give one size per axis of axis=\(1, 2\) \(2\)"),
    (lambda: tp.nn.BatchNorm(seed="a"), tp.ArgumentError, r"BatchNorm: seed must be an int"),
])
def test_bad_arguments_fail_at_construction(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize("layer, shape, match", [
    (lambda: tp.nn.BatchNorm(in_features=3), (2, 4),
     r"BatchNorm: expected size 3 on axis -1 .*got an input of shape \(2, 4\)"),
    (lambda: tp.nn.BatchNorm(), (3,),
     r"BatchNorm: expected an input of at least 2 dimensions, got shape \(3,\)"),
    (lambda: tp.nn.GroupNorm(2), (5,), r"GroupNorm: groups=2 must divide the number of channels, 5"),
    (lambda: tp.nn.GroupNorm(2, axis=0), (4, 3), r"GroupNorm: axis 0 names the batch axis \(0\)"),
    (lambda: tp.nn.LayerNorm(axis=2), (4, 3),
     r"LayerNorm: axis 2 is out of range for an input of 2 dimensions"),
])
def test_bad_inputs_say_what_the_layer_expected(backend, layer, shape, match):
    with pytest.raises(tp.ShapeError, match=match):
        layer()(np.ones(shape))


def test_errors_inside_a_model_name_the_layer_path(backend):
    model = tp.nn.Sequential([tp.nn.LayerNorm(), tp.nn.RMSNorm(in_features=3)])
    with pytest.raises(tp.ShapeError, match=r"^RMSNorm 'layers.1': expected size 3 on axis -1 .*\(2, 4\)"):
        model(np.ones((2, 4)))
