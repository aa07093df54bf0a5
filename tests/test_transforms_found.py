"""Compositions of the function transforms found wrong by exploratory testing, each against
JAX (float64, 1e-6) on both backends."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: 64-bit references)

BACKENDS = ("numpy", "jax")
TOL = {"rtol": 1e-6, "atol": 1e-6}


def _data(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), **TOL)


# -- checkpoint under reverse-over-reverse ---------------------------------------------------------
def _checkpointed(lib: Any, checkpoint: Any) -> Any:
    def f(x: Any) -> Any:
        w = lib.exp(x)  # closed over by the checkpointed function, and depends on x
        return lib.sum(checkpoint(lambda z: lib.sin(z) * w * z[0])(x))
    return f


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("transform", ["hessian", "jacrev_of_jacrev"])
def test_second_derivatives_through_checkpoint(backend: str, transform: str) -> None:
    """The checkpoint's gradient run under jacrev's vmap links its recomputation to the
    arguments where the outer tape sees it (it was linked beneath the batching level: the
    Hessian came out zero or partial, silently)."""
    x = _data((4,), 0)
    want = jax.hessian(_checkpointed(jnp, jax.checkpoint))(x)
    with tp.backend_scope(backend):
        f = _checkpointed(tp, tp.checkpoint)
        second = tp.hessian(f) if transform == "hessian" else tp.jacrev(tp.jacrev(f))
        got = second(tp.asarray(x))
    assert got.shape == want.shape
    _close(got.numpy(), want)


# -- keyword arguments of the Jacobians --------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("transform", ["jacfwd", "jacrev", "hessian"])
def test_jacobians_pass_keyword_arguments_through(backend: str, transform: str) -> None:
    """jacfwd, jacrev and hessian pass keyword arguments to the function, not differentiated,
    as JAX's do (they raised Python's TypeError for an unexpected keyword argument)."""
    x, s = _data((4,), 0), _data((4,), 1)

    def f(lib: Any) -> Any:
        return lambda x, *, scale: lib.sum(lib.sin(x) * x * scale)

    want = getattr(jax, transform)(f(jnp))(x, scale=s)
    with tp.backend_scope(backend):
        got = getattr(tp, transform)(f(tp))(tp.asarray(x), scale=tp.asarray(s))
    _close(got.numpy(), want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_jvp_has_aux_without_a_pair_says_so(backend: str) -> None:
    """jvp(has_aux=True) of a function returning a single tensor is an AutodiffError naming
    what it returned (it was Python's unpacking ValueError)."""
    with (tp.backend_scope(backend),
          pytest.raises(tp.AutodiffError, match=r"must return \(output, aux\); it returned Tensor")):
        tp.jvp(lambda x: x * 2, (tp.ones(4),), (tp.ones(4),), has_aux=True)


# -- empty batches -------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_value_dependent_kernel_over_an_empty_batch_names_it(backend: str) -> None:
    """A kernel whose output length depends on the values, vmapped over an empty batch, is a
    ShapeError naming the kernel and why (it was `zeros: shape (0, -1) has a negative size`,
    about an op the user never called)."""
    with (tp.backend_scope(backend),
          pytest.raises(tp.ShapeError, match=r"kernel 'NonZero' over an empty batch .* depends on the")):
        tp.vmap(lambda a: tp.nonzero(a)[0])(tp.zeros((0, 3)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_jacobian_with_respect_to_an_empty_tree(backend: str, transform: str) -> None:
    """With respect to an empty tree, both Jacobians are the output's structure of empty trees
    (jacfwd raised Python's ValueError: it never ran the function)."""
    with tp.backend_scope(backend):
        got = getattr(tp, transform)(lambda d, x: {"y": x * 2}, argnums=0)({}, tp.ones(3))
    assert got == {"y": {}}


# -- tp.jit's cache keys --------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("statics", [(), (1,)])
def test_jit_equal_constants_of_other_types_compile_apart(backend: str, statics: tuple[int, ...]) -> None:
    """2 and 2.0 (and 1 and True) are equal as Python values but trace to other dtypes: a
    static argument of one did not compile again for the other, and returned the first's dtype
    (x * 2 of int64 x gave float32 after x * 2.0 had been compiled)."""
    with tp.backend_scope(backend):
        f = tp.jit(lambda x, s: x * s, static_argnums=statics)
        x = tp.asarray(np.arange(3))
        for s in (2.0, 2, (1.0,), (1,), True):
            got = f(x, s if not isinstance(s, tuple) else s[0])
            want = x * (s if not isinstance(s, tuple) else s[0])
            assert got.dtype == want.dtype, s
            _close(got.numpy(), want.numpy())
        g = tp.jit(lambda x, t: x * t[0], static_argnums=statics)
        assert g(x, (2.0,)).dtype == (x * 2.0).dtype
        assert g(x, (2,)).dtype == (x * 2).dtype


@pytest.mark.parametrize("backend", BACKENDS)
def test_jit_unhashable_constant_is_an_argument_error(backend: str) -> None:
    """An argument leaf that is neither a tensor nor hashable is a tensorplug ArgumentError (it
    was a plain TypeError)."""
    with tp.backend_scope(backend), pytest.raises(tp.ArgumentError, match="neither a tensor nor a hashable"):
        tp.jit(lambda x, o: x)(tp.ones(2), {"a": {1, 2}})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("statics", [(), (1,)])
def test_jit_float_constants_are_keyed_by_their_bits(backend: str, statics: tuple[int, ...]) -> None:
    """-0.0 after 0.0 compiles again (it reused 0.0's computation: 1 / (x * -0.0) gave +inf on
    jax, whose eager result is -inf), and a NaN constant is found again at the next call (it
    compiled anew at every call, the cache growing without end)."""
    with tp.backend_scope(backend):
        f = tp.jit(lambda x, s: 1.0 / (x * tp.asarray(s)), static_argnums=statics)
        x = tp.ones(2)
        assert np.all(f(x, 0.0).numpy() == np.inf)
        assert np.all(f(x, -0.0).numpy() == -np.inf)
        g = tp.jit(lambda x, s: x + s, static_argnums=statics)
        for _ in range(3):
            assert np.all(np.isnan(g(x, float("nan")).numpy()))
        entries = [c.cell_contents for c in g.__closure__ if isinstance(c.cell_contents, dict)][0]
        assert [len(per_key) for per_key in entries.values()] == [1]


# -- argnums ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jacrev", "jacfwd", "hessian"])
@pytest.mark.parametrize("argnums", [(0, 0), (0, -2)])
def test_argnums_naming_an_argument_twice_is_refused(backend: str, transform: str, argnums: Any) -> None:
    """argnums naming one argument twice is an AutodiffError (grad and jacrev gave zeros for the
    first, silently: the second watch replaced the first)."""
    with (tp.backend_scope(backend),
          pytest.raises(tp.AutodiffError, match=r"names an argument more than once")):
        getattr(tp, transform)(lambda x, y: tp.sum(tp.sin(x) * y), argnums=argnums)(tp.ones(3), tp.ones(3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_vjp_takes_trees_as_jax_does(backend: str) -> None:
    """vjp of tree primals and a tree result (it refused trees): one gradient per primal, of
    its structure, equal to tp.grad of the cotangent-weighted sum of the outputs."""
    def f(d, y):
        return {"s": tp.sin(d["a"]) * y, "p": (d["a"] * d["b"], tp.sum(y))}

    with tp.backend_scope(backend):
        d, y = {"a": tp.asarray([1.0, 2.0]), "b": tp.asarray([3.0, -1.0])}, tp.asarray([0.5, 4.0])
        ct = {"s": tp.asarray([1.0, -2.0]), "p": (tp.asarray([0.5, 0.25]), tp.asarray(3.0))}
        out, vjp_fn = tp.vjp(f, d, y)
        assert sorted(out) == ["p", "s"] and isinstance(out["p"], tuple)
        got_d, got_y = vjp_fn(ct)

        def weighted(d, y):
            o = f(d, y)
            return (tp.sum(o["s"] * ct["s"]) + tp.sum(o["p"][0] * ct["p"][0]) + o["p"][1] * ct["p"][1])

        want_d, want_y = tp.grad(weighted, argnums=(0, 1))(d, y)
        assert sorted(got_d) == ["a", "b"]
        for got, want in ((got_d["a"], want_d["a"]), (got_d["b"], want_d["b"]), (got_y, want_y)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        with pytest.raises(tp.AutodiffError, match=r"vjp: the cotangent must have the structure of the "
                                                   r"function's result"):
            vjp_fn({"s": ct["s"]})
        with pytest.raises(tp.AutodiffError, match=r"vjp: the cotangent \(leaf 0 of the result, as "
                                                   r"tp.tree_util.tree_leaves orders them\) has shape "
                                                   r"\(3,\)"):
            vjp_fn({"s": ct["s"], "p": (tp.ones(3), ct["p"][1])})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tangents", ["tensor", "short", "nested"])
def test_hvp_tangents_unlike_primals_name_hvp(backend: str, tangents: str) -> None:
    """hvp's tangents unlike its primals are refused by hvp, naming it (the message named jvp,
    which the user never called)."""
    with tp.backend_scope(backend):
        x = tp.ones(3)
        given = {"tensor": x, "short": (x,), "nested": ([x], x)}[tangents]
        with pytest.raises(tp.AutodiffError, match=r"^hvp: tangents must be a tuple like primals"):
            tp.hvp(lambda a, b: tp.sum(a * b), (x, x), given)


# -- custom_jvp -------------------------------------------------------------------------------------------
def _rule_giving(tangent: Any) -> Any:
    f = tp.custom_jvp(lambda a: a * 2)
    f.defjvp(lambda p, t: (f(*p), tangent(t[0])))
    return f


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["jvp", "grad"])
@pytest.mark.parametrize(("tangent", "message"), [
    (lambda t: (t, t), r"returned 2 tangent\(s\) for 1 output\(s\)"),
    (lambda t: tp.concat([t, t]), r"returned a tangent of shape \(6,\) for output 0 of shape \(3,\)"),
])
def test_custom_jvp_rule_tangents_unlike_outputs_are_refused(backend: str, mode: str, tangent: Any,
                                                              message: str) -> None:
    """A rule giving more tangents than outputs, or one of another shape, is an AutodiffError
    naming the rule, in forward and reverse mode (the extra tangent was dropped silently; the
    wrong shape was a Multiply broadcasting error from the transposition, under grad)."""
    with tp.backend_scope(backend), pytest.raises(tp.AutodiffError, match=message):
        f, x = _rule_giving(tangent), tp.ones(3)
        if mode == "jvp":
            tp.jvp(f, (x,), (x,))
        else:
            tp.grad(lambda a: tp.sum(f(a)))(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_jvp_takes_keyword_arguments(backend: str) -> None:
    """Keyword arguments of a custom_jvp function are bound to its parameters and reach the
    rule positionally, as JAX's (it raised Python's TypeError)."""
    x, s = _data((4,), 0), _data((4,), 1)

    def make(lib: Any, custom: Any) -> Any:
        @custom
        def f(a: Any, scale: Any) -> Any:
            return lib.sin(a) * scale

        @f.defjvp
        def _(p: Any, t: Any) -> Any:
            return f(*p), lib.cos(p[0]) * t[0] * p[1] + lib.sin(p[0]) * t[1]

        return lambda a, b: f(a, scale=b)

    want = jax.jvp(make(jnp, jax.custom_jvp), (x, s), (s, x))
    with tp.backend_scope(backend):
        got = tp.jvp(make(tp, tp.custom_jvp), (tp.asarray(x), tp.asarray(s)), (tp.asarray(s), tp.asarray(x)))
        _close(got[0].numpy(), want[0])
        _close(got[1].numpy(), want[1])
        grad = tp.grad(lambda a: tp.sum(make(tp, tp.custom_jvp)(a, tp.asarray(s))))(tp.asarray(x))
    _close(grad.numpy(), jax.grad(lambda a: jnp.sum(make(jnp, jax.custom_jvp)(a, s)))(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_grad_of_the_wrong_shape_under_jvp_names_it(backend: str) -> None:
    """A custom gradient of the wrong shape is an AutodiffError naming it under jvp too, as
    under grad (it was a Multiply broadcasting error from the transposition)."""
    @tp.custom_grad
    def f(a: Any) -> Any:
        return a * 2, lambda dy: tp.concat([dy, dy])

    with (tp.backend_scope(backend),
          pytest.raises(tp.AutodiffError, match=r"gradient of 'f' returned shape \(6,\) for an input")):
        tp.jvp(f, (tp.ones(3),), (tp.ones(3),))


# -- checkpoint closing over a value with a tangent ----------------------------------------------------
def _mixed(lib: Any, value_and_grad: Any, checkpoint: Any, c: Any) -> Any:
    def h(x: Any) -> Any:  # value and gradient in y of a checkpointed function closing over x
        return value_and_grad(lambda y: lib.sum(checkpoint(lambda z: lib.sin(z) * x)(y)))(c)
    return h


@pytest.mark.parametrize("backend", BACKENDS)
def test_forward_mode_through_checkpoint_closing_over_a_primal_under_a_tape(backend: str) -> None:
    """jvp in x of a checkpointed function closing over x, under a tape of another variable
    (forward over reverse in mixed variables): the checkpoint's value kept no tangent for x
    (the closed-over x was not captured, forward mode being suspended inside): zero, silently."""
    x, c, t = _data((4,), 0), _data((4,), 1), _data((4,), 2)
    want = jax.jvp(_mixed(jnp, jax.value_and_grad, jax.checkpoint, c), (x,), (t,))
    with tp.backend_scope(backend):
        got = tp.jvp(_mixed(tp, tp.value_and_grad, tp.checkpoint, tp.asarray(c)), (tp.asarray(x),),
                     (tp.asarray(t),))
    for g, w in zip(got[1], want[1]):
        _close(g.numpy(), w)


# -- functions with their own derivatives closing over a differentiated value --------------------------
def _closing_over(kind: str, x: Any) -> Any:
    """A function with its own derivatives (`kind`) that closes over `x`."""
    if kind == "custom_grad":
        @tp.custom_grad
        def f(z: Any) -> Any:
            return tp.sin(z) * x, lambda dy: dy * tp.cos(z) * x
        return f

    @tp.custom_jvp
    def g(z: Any) -> Any:
        return tp.sin(z) * x

    g.defjvp(lambda p, t: (g(*p), tp.cos(p[0]) * x * t[0]))
    return g


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["custom_grad", "custom_jvp"])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_own_derivatives_closing_over_a_differentiated_value_are_refused(backend: str, kind: str,
                                                                         mode: str) -> None:
    """Differentiating in x through a custom_grad / custom_jvp function that closes over x is an
    AutodiffError (as in JAX): its rule covers its arguments only, and the derivative in x came
    out zero, silently. Through tp.stop_gradient(x) it is a constant, as asked."""
    with tp.backend_scope(backend):
        c, x = tp.asarray(_data((4,), 0)), tp.asarray(_data((4,), 1))

        def h(x: Any) -> Any:
            return tp.sum(_closing_over(kind, x)(c))

        def run(fn: Any) -> Any:
            return tp.grad(fn)(x) if mode == "grad" else tp.jvp(fn, (x,), (tp.ones(4),))[1]

        with pytest.raises(tp.AutodiffError, match=f"{kind}: .* closes over .* being differentiated"):
            run(h)
        constant = run(lambda x: tp.sum(_closing_over(kind, tp.stop_gradient(x))(c)))
    _close(constant.numpy(), np.zeros(4) if mode == "grad" else 0.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_grad_without_a_gradient_for_an_input_with_a_tangent_is_refused(backend: str) -> None:
    """A custom gradient giving None for an input that has a tangent is refused under jvp, as
    under grad (forward mode took it as zero, silently: jvp and grad disagreed)."""
    @tp.custom_grad
    def f(a: Any, b: Any) -> Any:
        return a * b, lambda dy: (dy * b, None)

    with tp.backend_scope(backend):
        x = tp.ones(3) * 2
        with pytest.raises(tp.AutodiffError, match=r"gives no gradient for its input 1, which has a tangent"):
            tp.jvp(f, (x, x), (tp.ones(3), tp.ones(3)))
        _close(tp.jvp(lambda a: f(a, x), (x,), (tp.ones(3),))[1].numpy(), np.full(3, 2.0))
