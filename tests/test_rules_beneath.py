"""An override builds on the rule it replaces: gradient_beneath, jvp_beneath and
batching_rule_beneath give the rule beneath a registered or scoped one, looked up at each call."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.extend import (
    BatchConfig,
    GradConfig,
    JvpConfig,
    batching_rule_beneath,
    find_batching_rule,
    find_jvp,
    get_gradient,
    gradient_beneath,
    jvp_beneath,
    override_gradient,
    override_jvp,
    register_batching_rule,
    register_gradient,
    register_jvp,
    unregister_batching_rule,
    unregister_gradient,
    unregister_jvp,
)

X = tp.asarray(np.array([[[[0.5], [1.0], [-2.0]], [[1.5], [0.0], [3.0]], [[2.0], [1.0], [0.5]]]]))
K = tp.asarray(np.arange(4.0).reshape(2, 2, 1, 1))


def conv_grads(x, k):
    return tp.grad(lambda x, k: tp.sum(tp.nn.conv(x, k) ** 2), argnums=(0, 1))(x, k)


def scaled_gradient(factor: float) -> GradConfig:
    def scaled(dy, saved, attrs):
        beneath = gradient_beneath(config)
        return {name: (lambda g=g: factor * g()) for name, g in beneath.grad_func(dy, saved, attrs).items()}

    core = get_gradient("Conv2D")
    config = GradConfig("Conv2D", scaled, core.inputs_to_save, core.outputs_to_save)
    return config


def test_a_registered_gradient_override_builds_on_the_core_gradient():
    want = conv_grads(X, K)
    core = get_gradient("Conv2D")
    halved = scaled_gradient(0.5)
    register_gradient(halved, override=True)
    try:
        assert gradient_beneath(halved) is core
        for got, base in zip(conv_grads(X, K), want):
            np.testing.assert_allclose(got.numpy(), 0.5 * base.numpy())
        tripled = scaled_gradient(3.0)  # (on top of the halved one: a priority above it)
        register_gradient(tripled, override=True, priority=1)
        assert gradient_beneath(tripled) is halved
        for got, base in zip(conv_grads(X, K), want):
            np.testing.assert_allclose(got.numpy(), 1.5 * base.numpy())
        unregister_gradient("Conv2D", source="user code")
    finally:
        unregister_gradient("Conv2D", source="user code")
    for got, base in zip(conv_grads(X, K), want):
        np.testing.assert_allclose(got.numpy(), base.numpy())


def test_a_scoped_override_builds_on_what_is_in_force_outside_it():
    want = conv_grads(X, K)
    core = get_gradient("Conv2D")
    outer, inner = scaled_gradient(2.0), scaled_gradient(10.0)
    with override_gradient(outer):
        assert gradient_beneath(outer) is core
        with override_gradient(inner):
            assert gradient_beneath(inner) is outer
            for got, base in zip(conv_grads(X, K), want):
                np.testing.assert_allclose(got.numpy(), 20.0 * base.numpy())


def test_jvp_and_batching_overrides_build_on_theirs():
    exp_jvp = find_jvp("Exp")

    def doubled_jvp(primals, tangents, outputs, attrs):
        return 2.0 * jvp_beneath(doubled).jvp_func(primals, tangents, outputs, attrs)

    doubled = JvpConfig("Exp", doubled_jvp)
    register_jvp(doubled, override=True)
    try:
        assert jvp_beneath(doubled) is exp_jvp
        _, tangent = tp.jvp(tp.exp, (tp.asarray([0.0, 1.0]),), (tp.ones(2),))
        np.testing.assert_allclose(tangent.numpy(), 2.0 * np.exp([0.0, 1.0]), rtol=1e-6)
    finally:
        unregister_jvp("Exp", source="user code")

    calls = []

    def counted(inputs, batch_axes, attrs):
        calls.append(1)
        return batching_rule_beneath(counting).batch_func(inputs, batch_axes, attrs)

    counting = BatchConfig("Exp", counted)
    assert find_batching_rule("Exp") is not None
    register_batching_rule(counting, override=True)
    try:
        out = tp.vmap(tp.exp)(tp.asarray([[0.0], [1.0]]))
        np.testing.assert_allclose(out.numpy(), np.exp([[0.0], [1.0]]), rtol=1e-6)
        assert calls
    finally:
        unregister_batching_rule("Exp", source="user code")


def test_asking_for_the_rule_beneath_an_unregistered_one_says_how():
    loose = GradConfig("Conv2D", lambda dy, saved, attrs: {})
    with pytest.raises(tp.RegistrationError, match=r"gradient_beneath: this GradConfig for 'Conv2D' is not "
                                                   r"registered, nor in force in an override block"):
        gradient_beneath(loose)
    registered = find_jvp("Exp")
    with override_jvp(JvpConfig("Exp", lambda p, t, o, a: t)) as scoped:
        assert jvp_beneath(scoped) is registered
