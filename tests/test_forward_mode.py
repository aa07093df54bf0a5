"""Forward mode and the transforms built on it, against JAX in float64 on both backends: tp.jvp
on random compositions of ops, tp.linearize, tp.jacfwd / tp.jacrev / tp.hessian / tp.hvp,
tp.custom_jvp (forward and reverse), forward mode through tp.custom_grad and tp.checkpoint,
every composition of grad, jvp and jit; the JVP rule registry (overrides, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (its fixture: references in 64 bits)
from tensorplug.errors import AutodiffError, RegistrationError
from tensorplug.extend import JvpConfig, override_jvp, register_jvp

RTOL, ATOL = 1e-6, 1e-9
RNG = np.random.default_rng(7)


@pytest.fixture(params=["numpy", "jax"], autouse=True)
def backend(request):
    tp.set_backend(request.param)
    return request.param


def close(got, want):
    np.testing.assert_allclose(np.asarray(got.numpy() if isinstance(got, tp.Tensor) else got),
                               np.asarray(want), rtol=RTOL, atol=ATOL)


# -- random compositions ----------------------------------------------------------------------
# (tensorplug op, jax op) pairs: unary ones map x -> y of x's shape, binary ones (x, y) -> z
UNARY = [
    (tp.sin, jnp.sin), (tp.tanh, jnp.tanh), (tp.exp, jnp.exp),
    (lambda x: tp.log1p(x * x), lambda x: jnp.log1p(x * x)),
    (tp.nn.sigmoid, jax.nn.sigmoid), (lambda x: tp.sqrt(1 + x * x), lambda x: jnp.sqrt(1 + x * x)),
    (lambda x: tp.nn.softmax(x, axis=-1), lambda x: jax.nn.softmax(x, axis=-1)),
    (lambda x: tp.cumulative_sum(x, axis=0), lambda x: jnp.cumsum(x, axis=0)),
    (lambda x: tp.flip(x, axis=1), lambda x: jnp.flip(x, axis=1)),
    (lambda x: x - tp.max(x, axis=0, keepdims=True), lambda x: x - jnp.max(x, axis=0, keepdims=True)),
    (lambda x: tp.abs(x) + 0.5, lambda x: jnp.abs(x) + 0.5),
]
BINARY = [
    (tp.add, jnp.add), (tp.multiply, jnp.multiply),
    (lambda x, y: x / (1 + y * y), lambda x, y: x / (1 + y * y)), (tp.maximum, jnp.maximum),
    (lambda x, y: tp.matmul(x, tp.matrix_transpose(y)) @ x, lambda x, y: (x @ y.T) @ x),
    (tp.atan2, jnp.arctan2),
]


def _composition(seed: int):
    """A random function of two (3, 3) inputs, as a (tensorplug, jax) pair."""
    rng = np.random.default_rng(seed)
    steps = [(int(rng.integers(2)), int(rng.integers(100))) for _ in range(5)]

    def build(lib: int):
        def f(x, y):
            a, b = x, y
            for binary, k in steps:
                if binary:
                    a, b = BINARY[k % len(BINARY)][lib](a, b), a
                else:
                    a = UNARY[k % len(UNARY)][lib](a)
            return a * 0.5 + b
        return f
    return build(0), build(1)


@pytest.mark.parametrize("seed", range(8))
def test_jvp_of_random_compositions_is_jaxs(seed):
    f, fj = _composition(seed)
    x, y, tx, ty = (RNG.standard_normal((3, 3)) for _ in range(4))
    out, tangent = tp.jvp(f, (x, y), (tx, ty))
    want_out, want_tangent = jax.jvp(fj, (x, y), (tx, ty))
    close(out, want_out)
    close(tangent, want_tangent)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_jacobians_and_hessians_of_random_compositions_are_jaxs(seed):
    f, fj = _composition(seed)
    x, y = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3))
    close(tp.jacfwd(f, argnums=1)(x, y), jax.jacfwd(fj, argnums=1)(x, y))
    close(tp.jacrev(f)(x, y), jax.jacrev(fj)(x, y))
    s, sj = (lambda x, y: tp.sum(f(x, y) ** 2)), (lambda x, y: jnp.sum(fj(x, y) ** 2))
    close(tp.hessian(s)(x, y), jax.hessian(sj)(x, y))
    t = RNG.standard_normal((3, 3))
    close(tp.hvp(s, (x, y), (t, t))[1], jax.jvp(jax.grad(sj, argnums=1), (x, y), (t, t))[1])


def test_jacobians_of_trees_and_several_arguments():
    def f(params, x):
        return tp.tanh(x @ params["w"] + params["b"])

    def fj(params, x):
        return jnp.tanh(x @ params["w"] + params["b"])
    params = {"w": RNG.standard_normal((3, 2)), "b": RNG.standard_normal(2)}
    x = RNG.standard_normal((4, 3))
    for ours, theirs in ((tp.jacfwd, jax.jacfwd), (tp.jacrev, jax.jacrev)):
        got, want = ours(f, argnums=(0, 1))(params, x), theirs(fj, argnums=(0, 1))(params, x)
        close(got[0]["w"], want[0]["w"])
        close(got[0]["b"], want[0]["b"])
        close(got[1], want[1])
        assert got[0]["w"].shape == (4, 2, 3, 2)



def test_jacobians_and_hessians_with_aux_are_jaxs():
    """has_aux: f returns (output, aux); the result is (jacobian, aux), aux as f computes it."""
    def f(x, scale):
        return tp.sin(x) * scale, {"norm": tp.sum(x * x), "x": x}

    def fj(x, scale):
        return jnp.sin(x) * scale, {"norm": jnp.sum(x * x), "x": x}
    x = RNG.standard_normal(3)
    for ours, theirs in ((tp.jacfwd, jax.jacfwd), (tp.jacrev, jax.jacrev), (tp.hessian, jax.hessian)):
        (got, aux), (want, want_aux) = ours(f, has_aux=True)(x, 2.0), theirs(fj, has_aux=True)(x, 2.0)
        close(got, want)
        close(aux["norm"], want_aux["norm"])
        close(aux["x"], x)
        with pytest.raises(AutodiffError, match="has_aux=True, so it must return a pair"):
            ours(lambda v: tp.sin(v), has_aux=True)(x)
    with pytest.raises(tp.ArgumentError, match="has_aux"):
        tp.jacrev(f, has_aux="yes")

@pytest.mark.slow
def test_jacobians_of_tree_outputs_and_hessians_of_trees_are_jaxs():
    """Outputs in tuples and dicts give Jacobians in a tree like them (each leaf's Jacobian a
    tree like the arguments); so hessian takes trees and tuples of argnums, as in JAX."""
    def f(p, x):
        h = tp.tanh(x @ p["w"] + p["b"])
        return {"h": h, "sums": (tp.sum(h), tp.sum(p["w"] ** 2))}

    def fj(p, x):
        h = jnp.tanh(x @ p["w"] + p["b"])
        return {"h": h, "sums": (jnp.sum(h), jnp.sum(p["w"] ** 2))}
    p = {"w": RNG.standard_normal((3, 2)), "b": RNG.standard_normal(2)}
    x = RNG.standard_normal((4, 3))
    for ours, theirs in ((tp.jacfwd, jax.jacfwd), (tp.jacrev, jax.jacrev)):
        for argnums in (0, (0, 1)):
            got, want = ours(f, argnums=argnums)(p, x), theirs(fj, argnums=argnums)(p, x)
            assert jax.tree_util.tree_structure(got, is_leaf=lambda t: isinstance(t, tp.Tensor)) == \
                jax.tree_util.tree_structure(want)
            for g, w in zip(jax.tree_util.tree_leaves(got, is_leaf=lambda t: isinstance(t, tp.Tensor)),
                            jax.tree_util.tree_leaves(want)):
                close(g, w)

    def s(p, x):
        return tp.sum(f(p, x)["h"] ** 3) * tp.sum(p["b"])

    def sj(p, x):
        return jnp.sum(fj(p, x)["h"] ** 3) * jnp.sum(p["b"])
    got, want = tp.hessian(s)(p, x), jax.hessian(sj)(p, x)
    for a in ("w", "b"):
        for b in ("w", "b"):
            close(got[a][b], want[a][b])
    got, want = tp.hessian(s, argnums=(0, 1))(p, x), jax.hessian(sj, argnums=(0, 1))(p, x)
    close(got[0]["w"][1], want[0]["w"][1])  # (the gradient's tree outermost: d(ds/dw)/dx)
    close(got[1][1], want[1][1])
    close(got[1][0]["w"], want[1][0]["w"])


def test_jvp_takes_trees_and_gives_aux_and_zero_tangents_for_unrelated_outputs():
    def f(p):
        return {"a": tp.sin(p["x"]) * p["y"], "c": tp.ones(2)}, "aux"
    p = {"x": RNG.standard_normal(3), "y": RNG.standard_normal(3)}
    t = {"x": RNG.standard_normal(3), "y": RNG.standard_normal(3)}
    out, tangent, aux = tp.jvp(f, (p,), (t,), has_aux=True)
    want = jax.jvp(lambda p: jnp.sin(p["x"]) * p["y"], (p,), (t,))[1]
    close(tangent["a"], want)
    assert aux == "aux" and tangent["c"].tolist() == [0.0, 0.0]


def test_integer_primals_take_no_tangent():
    out, tangent = tp.jvp(lambda x, n: x * n, (np.array([1.0, 2.0]), np.array([3, 4])),
                          (np.array([1.0, 1.0]), np.array([7, 7])))
    assert tangent.tolist() == [3.0, 4.0]


def test_linearize_gives_the_jvp_at_the_point():
    f = lambda x: tp.sum(tp.exp(tp.sin(x)) * x)  # noqa: E731
    fj = lambda x: jnp.sum(jnp.exp(jnp.sin(x)) * x)  # noqa: E731
    x = RNG.standard_normal(4)
    out, f_jvp = tp.linearize(f, x)
    close(out, fj(x))
    for _ in range(2):
        t = RNG.standard_normal(4)
        close(f_jvp(t), jax.jvp(fj, (x,), (t,))[1])


def test_complex_jvp_is_jaxs():
    z, t = (RNG.standard_normal(3) + 1j * RNG.standard_normal(3) for _ in range(2))
    f = lambda z: tp.exp(z) * z + tp.conj(z) * tp.abs(z)  # noqa: E731
    fj = lambda z: jnp.exp(z) * z + jnp.conj(z) * jnp.abs(z)  # noqa: E731
    close(tp.jvp(f, (z,), (t,))[1], jax.jvp(fj, (z,), (t,))[1])


# -- compositions of transforms ----------------------------------------------------------------
def _f(x):
    return tp.sum(tp.tanh(x) ** 2 * tp.exp(x))


def _fj(x):
    return jnp.sum(jnp.tanh(x) ** 2 * jnp.exp(x))


X, T = np.array([0.3, 1.2, -0.5]), np.array([1.0, 0.5, 2.0])


def test_every_order_of_grad_and_jvp():
    close(tp.jvp(tp.grad(_f), (X,), (T,))[1], jax.jvp(jax.grad(_fj), (X,), (T,))[1])  # forward over reverse
    close(tp.grad(lambda x: tp.jvp(_f, (x,), (T,))[1])(X),
          jax.grad(lambda x: jax.jvp(_fj, (x,), (T,))[1])(X))  # reverse over forward
    close(tp.jvp(lambda x: tp.jvp(_f, (x,), (T,))[1], (X,), (T,))[1],
          jax.jvp(lambda x: jax.jvp(_fj, (x,), (T,))[1], (X,), (T,))[1])  # forward over forward


def test_jvp_under_jit_and_jit_under_jvp():
    step = tp.jit(lambda x, t: tp.jvp(_f, (x,), (t,))[1])
    for _ in range(2):  # the first call traces, the second replays
        close(step(X, T), jax.jvp(_fj, (X,), (T,))[1])
    close(tp.jvp(tp.jit(_f), (X,), (T,))[1], jax.jvp(_fj, (X,), (T,))[1])
    hvp = tp.jit(lambda x, t: tp.hvp(_f, (x,), (t,))[0])
    close(hvp(X, T), jax.jvp(jax.grad(_fj), (X,), (T,))[1])


def test_forward_mode_through_a_checkpoint():
    w = RNG.standard_normal((3, 3))
    f = lambda x: tp.sum(tp.checkpoint(lambda h: tp.tanh(h @ w))(x) ** 2)  # noqa: E731
    fj = lambda x: jnp.sum(jnp.tanh(x @ w) ** 2)  # noqa: E731
    close(tp.jvp(f, (X,), (T,))[1], jax.jvp(fj, (X,), (T,))[1])
    close(tp.hvp(f, (X,), (T,))[0], jax.jvp(jax.grad(fj), (X,), (T,))[1])
    close(tp.grad(lambda x: tp.jvp(f, (x,), (T,))[1])(X), jax.grad(lambda x: jax.jvp(fj, (x,), (T,))[1])(X))


# -- custom derivatives --------------------------------------------------------------------------
def test_custom_jvp_drives_forward_and_reverse_mode():
    @tp.custom_jvp
    def f(x, y):
        return tp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):  # deliberately not sin's derivative: the rule must be the one used
        x, y = primals
        tx, ty = tangents
        return f(x, y), 2.0 * tx * y + tp.sin(x) * ty

    x, y, tx, ty = (RNG.standard_normal(3) for _ in range(4))
    close(tp.jvp(f, (x, y), (tx, ty))[1], 2.0 * tx * y + np.sin(x) * ty)
    gx, gy = tp.grad(lambda x, y: tp.sum(f(x, y)), argnums=(0, 1))(x, y)
    close(gx, 2.0 * y)
    close(gy, np.sin(x))
    close(tp.jacrev(lambda x: f(x, y))(x), np.diag(2.0 * y))


def test_custom_jvp_needs_a_rule_and_a_pair():
    @tp.custom_jvp
    def f(x):
        return x * 2.0
    with pytest.raises(AutodiffError, match=r"custom_jvp: f has no JVP rule; define one with @f.defjvp"):
        f(1.0)
    f.defjvp(lambda primals, tangents: tangents[0])
    with pytest.raises(AutodiffError, match=r"the rule of f must return \(primal_out, tangent_out\)"):
        tp.jvp(f, (1.0,), (1.0,))


def test_forward_mode_transposes_a_custom_gradient():
    @tp.custom_grad
    def f(x):
        return tp.sin(x), lambda dy: (3.0 * dy,)
    assert tp.jvp(f, (np.array([0.5, 1.0]),), (np.array([1.0, -2.0]),))[1].tolist() == [3.0, -6.0]


def test_hvp_through_a_custom_gradient_that_uses_forward_values():
    @tp.custom_grad
    def exp(x):
        y = tp.exp(x)
        return y, lambda dy: dy * y  # y: a value of the forward pass, whose tangent the hvp needs

    close(tp.hvp(lambda x: tp.sum(exp(x)), (X,), (T,))[0], np.exp(X) * T)
    close(tp.hessian(lambda x: tp.sum(exp(x) ** 2))(X), np.diag(4 * np.exp(2 * X)))


# -- the JVP rule registry ----------------------------------------------------------------------
def test_a_scoped_rule_replaces_the_core_one_in_its_block_only():
    doubled = JvpConfig("Sin", lambda xs, ts, ys, attrs: 2.0 * ts[0])
    with override_jvp(doubled):
        assert tp.jvp(tp.sin, (np.array([0.5]),), (np.array([1.5]),))[1].tolist() == [3.0]
    close(tp.jvp(tp.sin, (np.array([0.5]),), (np.array([1.5]),))[1], 1.5 * np.cos(0.5))


def test_a_kernel_without_a_rule_gets_its_gradient_transposed():
    from tensorplug.extend import unregister_jvp
    unregister_jvp("Tanh")  # (the isolated registries restore it after the test)
    assert tp.extend.find_jvp("Tanh") is None
    close(tp.jvp(tp.tanh, (X,), (T,))[1], T / np.cosh(X) ** 2)


def test_registration_errors_say_what_to_do():
    with pytest.raises(RegistrationError, match="register_jvp takes a JvpConfig, got GradConfig"):
        register_jvp(tp.extend.GradConfig("Sin", lambda dy, s, a: {}))
    with pytest.raises(RegistrationError, match="'Equal' is declared not differentiable, so it takes no JVP"):
        register_jvp(JvpConfig("Equal", lambda *a: None))
    with pytest.raises(RegistrationError, match="jvp_func must be callable"):
        register_jvp(JvpConfig("Sin", None))
    with pytest.raises(tp.errors.RegistrationConflictError, match="JVP rule of kernel 'Sin' is already"):
        register_jvp(JvpConfig("Sin", lambda *a: None))


def test_a_rule_giving_a_wrong_tangent_is_named():
    with override_jvp(JvpConfig("Sin", lambda xs, ts, ys, attrs: tp.ones(5))), \
            pytest.raises(AutodiffError, match=r"the JVP rule of 'Sin' returned a tangent of shape \(5,\) "
                                               r"for an output of shape \(3,\)"):
        tp.jvp(tp.sin, (X,), (T,))
    with override_jvp(JvpConfig("Sin", lambda xs, ts, ys, attrs: (ts[0], ts[0]))), \
            pytest.raises(AutodiffError, match=r"one tangent per output \(1\), got tuple of length 2"):
        tp.jvp(tp.sin, (X,), (T,))


# -- errors of the transforms ---------------------------------------------------------------------
@pytest.mark.parametrize(("call", "match"), [
    (lambda: tp.jvp(tp.sin, X, T), "jvp: primals and tangents must be tuples"),
    (lambda: tp.jvp(tp.sin, (X,), (T[:2],)), r"jvp: tangent 0 has shape \(2,\), its primal \(3,\)"),
    (lambda: tp.jvp(tp.sin, (X,), (T.astype(np.complex128),)), "tangent 0 has dtype complex128, its primal"),
    (lambda: tp.jvp(tp.add, (X, X), (T,)), "jvp: the tangents must have the primals' structure"),
    (lambda: tp.jvp(lambda x: "no", (X,), (T,)), "jvp: the function must return Tensors"),
    (lambda: tp.jvp(3, (X,), (T,)), "jvp"),
    (lambda: tp.jacfwd(lambda x: "no")(X), r"jacfwd: the function must return Tensors \(in tuples, lists or "
                                           r"dicts\), got str"),
    (lambda: tp.jacrev(lambda x: (tp.sin(x), 3))(X), "jacrev: the function must return Tensors .*got int"),
    (lambda: tp.jacrev(lambda x: tp.argmax(x))(X), "jacrev: the function returned dtype int64"),
    (lambda: tp.hvp(_f, (), ()), "hvp: primals must be a non-empty tuple"),
    (lambda: tp.linearize(_f, X)[1](T, T), r"linearize: the JVP function takes one tangent per primal \(1\)"),
])
def test_transform_errors(call, match):
    with pytest.raises(tp.TensorplugError, match=match):
        call()


def test_every_differentiable_core_kernel_has_a_core_jvp_rule():
    """Forward mode never falls back to transposing a core gradient (a rule costs what the
    kernel costs; a transposition, a forward and a backward pass of the gradient)."""
    from tensorplug.core.runtime import current
    from tensorplug.registry._slots import CORE_SOURCE

    runtime = current()
    core_specs = [name for name, stack in runtime.specs.registrations()
                  if stack[0].source == CORE_SOURCE and runtime.specs.active[name].differentiable]
    missing = sorted(n for n in core_specs
                     if not any(r.source == CORE_SOURCE for r in runtime.jvps.stacks.get(n, [])))
    assert len(core_specs) >= 140 and missing == []


@pytest.mark.parametrize("name", ["Add", "Subtract", "Multiply", "Divide", "Maximum"])
@pytest.mark.parametrize("which", [(0,), (1,), (0, 1)])
def test_binary_rules_broadcast_and_take_missing_tangents(name, which):
    """A binary kernel's rule against its gradient transposed: a (3, 1) and a (4,) input, a
    tangent on one or both."""
    from tensorplug.transforms.autodiff.forward import _transposed
    from tensorplug.transforms.autodiff.tape import Entry

    xs = (tp.asarray(RNG.standard_normal((3, 1))), tp.asarray(RNG.standard_normal(4) + 3.0))
    (out,) = (tp.run_kernel(name, list(xs)),)
    ts = tuple(tp.asarray(RNG.standard_normal(x.shape)) if i in which else None for i, x in enumerate(xs))
    got = tp.extend.find_jvp(name).jvp_func(xs, ts, (out,), {})
    (want,) = _transposed(Entry(name, xs, {}, (out,)), ts)
    assert got.shape == out.shape == (3, 4)
    close(got, want.numpy())
