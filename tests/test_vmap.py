"""tp.vmap against jax.vmap (float64, 1e-6) on both backends: per-op rules with in_axes
variants, random compositions of ops, nested vmap, per-example gradients, and vmap composed
with grad, jvp and jit; jacfwd/jacrev over vmap; every kernel's rule against a loop (the
kit's check); the loop fallback and its warning; errors."""

from __future__ import annotations

import contextlib
import uuid
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: 64-bit references)
from tensorplug.errors import VmapFallbackWarning
from tensorplug.extend import (
    BatchConfig,
    KernelConfig,
    KernelSpec,
    override_batching_rule,
    register_kernel,
    register_kernel_spec,
)
from tensorplug.testing import opcheck

BACKENDS = ("numpy", "jax")
B = 3  # the batch size
TOL = {"rtol": 1e-6, "atol": 1e-6}


def _data(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _well_conditioned(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return _data(shape, seed) + 4.0 * np.eye(shape[-1])


def _indices(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-4, 4, shape)


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), **TOL)


@contextlib.contextmanager
def _no_fallback() -> Iterator[None]:
    """Inside: a kernel batched by the loop fallback is an error (every kernel here has a rule)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)
        yield


def m(*shape: int) -> Callable[[int], np.ndarray]:
    """A maker of one example's input of `shape` from a seed."""
    return lambda seed: _data(shape, seed)


# (name, tensorplug function of one example, jax function of one example, makers of one
# example's inputs): the makers take a seed
OPS: list[tuple[str, Callable[..., Any], Callable[..., Any], list[Callable[[int], np.ndarray]]]] = [
    ("exp", tp.exp, jnp.exp, [m(3, 4)]),
    ("tanh_square", lambda x: tp.tanh(x) ** 2, lambda x: jnp.tanh(x) ** 2, [m(4)]),
    ("add_broadcast", lambda x, y: x + y, lambda x, y: x + y, [m(3, 4), m(4)]),
    ("multiply_scalar_row", lambda x, y: x * y, lambda x, y: x * y, [m(), m(2, 3)]),
    ("where", lambda x, y: tp.where(x > 0, x, y), lambda x, y: jnp.where(x > 0, x, y),
     [m(3, 4), m(3, 4)]),
    ("maximum", tp.maximum, jnp.maximum, [m(2, 3), m(2, 3)]),
    ("sum_axis", lambda x: tp.sum(x, axis=1), lambda x: jnp.sum(x, axis=1), [m(3, 4)]),
    ("sum_all", tp.sum, jnp.sum, [m(3, 4)]),
    ("mean_keepdims", lambda x: tp.mean(x, axis=-1, keepdims=True),
     lambda x: jnp.mean(x, axis=-1, keepdims=True),
     [m(3, 4)]),
    ("max_axis0", lambda x: tp.max(x, axis=0), lambda x: jnp.max(x, axis=0), [m(3, 4)]),
    ("prod", lambda x: tp.prod(x, axis=(0, 1)), lambda x: jnp.prod(x, axis=(0, 1)), [m(2, 3)]),
    ("argmax", lambda x: tp.argmax(x, axis=1), lambda x: jnp.argmax(x, axis=1), [m(3, 4)]),
    ("argmin_flat", tp.argmin, jnp.argmin, [m(3, 4)]),
    ("cumsum", lambda x: tp.cumulative_sum(x, axis=1), lambda x: jnp.cumsum(x, axis=1), [m(3, 4)]),
    ("matmul", lambda a, b: a @ b, lambda a, b: a @ b, [m(3, 4), m(4, 2)]),
    ("matmul_vector", lambda a, b: a @ b, lambda a, b: a @ b, [m(4), m(4, 2)]),
    ("matmul_stack", lambda a, b: a @ b, lambda a, b: a @ b, [m(3, 4), m(2, 4, 2)]),
    ("einsum", lambda a, b: tp.einsum("ij,jk->ki", a, b), lambda a, b: jnp.einsum("ij,jk->ki", a, b),
     [m(3, 4), m(4, 2)]),
    ("reshape", lambda x: tp.reshape(x, (4, -1)), lambda x: jnp.reshape(x, (4, -1)), [m(3, 4)]),
    ("transpose", lambda x: tp.permute_dims(x, (1, 0)), lambda x: x.T, [m(3, 4)]),
    ("broadcast_to", lambda x: tp.broadcast_to(x, (2, 3, 4)), lambda x: jnp.broadcast_to(x, (2, 3, 4)),
     [m(3, 1)]),
    ("expand_squeeze", lambda x: tp.squeeze(tp.expand_dims(x, axis=1), axis=1) * 2, lambda x: x * 2,
     [m(3, 4)]),
    ("concat", lambda x, y: tp.concat([x, y], axis=1), lambda x, y: jnp.concatenate([x, y], axis=1),
     [m(3, 4), m(3, 2)]),
    ("stack", lambda x, y: tp.stack([x, y], axis=-1), lambda x, y: jnp.stack([x, y], axis=-1),
     [m(3, 4), m(3, 4)]),
    ("slice", lambda x: x[1:, ::2], lambda x: x[1:, ::2], [m(3, 4)]),
    ("take", lambda x, i: tp.take(x, i, axis=1), lambda x, i: jnp.take(x, i % 4, axis=1),
     [m(3, 4), lambda s: _indices((2,), s)]),
    ("index_scalar", lambda x, i: x[i], lambda x, i: x[i], [m(4, 2), lambda s: _indices((), s)]),
    ("cast", lambda x: tp.astype(x * 10, tp.int64), lambda x: (x * 10).astype(jnp.int64), [m(3)]),
    ("softmax", tp.nn.softmax, jax.nn.softmax, [m(3, 4)]),
    ("log_softmax", lambda x: tp.nn.log_softmax(x, axis=0), lambda x: jax.nn.log_softmax(x, axis=0),
     [m(3, 4)]),
    ("sort", lambda x: tp.sort(x, axis=0), lambda x: jnp.sort(x, axis=0), [m(3, 4)]),
    ("pad", lambda x: tp.pad(x, ((1, 0), (0, 2))), lambda x: jnp.pad(x, ((1, 0), (0, 2))), [m(3, 4)]),
    ("flip", lambda x: tp.flip(x, axis=1), lambda x: jnp.flip(x, axis=1), [m(3, 4)]),
    ("roll", lambda x: tp.roll(x, 1, axis=1), lambda x: jnp.roll(x, 1, axis=1), [m(3, 4)]),
    ("tile", lambda x: tp.tile(x, (2, 1)), lambda x: jnp.tile(x, (2, 1)), [m(3, 4)]),
    ("solve_vector", tp.linalg.solve, jnp.linalg.solve, [lambda s: _well_conditioned((3, 3), s), m(3)]),
    ("solve_matrix", tp.linalg.solve, jnp.linalg.solve,
     [lambda s: _well_conditioned((2, 3, 3), s), m(3, 2)]),
    ("inv", tp.linalg.inv, jnp.linalg.inv, [lambda s: _well_conditioned((3, 3), s)]),
]


def _layouts(makers: list[Any]) -> list[tuple[Any, ...]]:
    n = len(makers)
    rank = np.ndim(makers[0](0))
    layouts: list[tuple[Any, ...]] = [(0,) * n]
    if rank:
        layouts.append((-1,) + (0,) * (n - 1))
    if n > 1:
        layouts.append((0,) + (None,) * (n - 1))
        layouts.append((None,) + (1,) * (n - 1))
    return layouts


def _batched(makers: list[Any], layout: tuple[Any, ...]) -> list[np.ndarray]:
    """One argument per maker: a batch of B examples stacked along its in_axes entry (or one
    example where it is None)."""
    args = []
    for k, (make, axis) in enumerate(zip(makers, layout)):
        if axis is None:
            args.append(make(100 + k))
            continue
        examples = [make(10 * i + k) for i in range(B)]
        if np.ndim(examples[0]) == 0 and axis != 0:  # (a scalar's batch has one axis)
            axis = 0
        args.append(np.stack(examples, axis=axis))
    return args


def _axes(args: list[np.ndarray], layout: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(None if a is None else (0 if np.ndim(x) == 1 else a) for x, a in zip(args, layout))


CASES = [pytest.param(name, f, jf, makers, layout, id=f"{name}-{'_'.join(map(str, layout))}")
         for name, f, jf, makers in OPS for layout in _layouts(makers)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "f", "jf", "makers", "layout"), CASES)
def test_ops_against_jax(backend: str, name: str, f: Any, jf: Any, makers: list[Any],
                         layout: tuple[Any, ...]) -> None:
    args = _batched(makers, layout)
    axes = _axes(args, layout)
    want = jax.vmap(jf, in_axes=axes)(*[jnp.asarray(a) for a in args])
    with tp.backend_scope(backend), _no_fallback():
        got = tp.vmap(f, in_axes=axes)(*[tp.asarray(a) for a in args])
    _close(got.numpy(), want)


# -- random compositions ------------------------------------------------------------------------
UNARY = [(tp.sin, jnp.sin), (tp.tanh, jnp.tanh), (lambda x: x * x, lambda x: x * x),
         (tp.nn.relu, jax.nn.relu),
         (tp.nn.sigmoid, jax.nn.sigmoid), (lambda x: tp.exp(-x * x), lambda x: jnp.exp(-x * x)),
         (lambda x: x - tp.mean(x, axis=-1, keepdims=True),
          lambda x: x - jnp.mean(x, axis=-1, keepdims=True)),
         (lambda x: tp.nn.softmax(x, axis=-1), lambda x: jax.nn.softmax(x, axis=-1)),
         (lambda x: tp.flip(x, axis=0), lambda x: jnp.flip(x, axis=0)),
         (lambda x: tp.cumulative_sum(x, axis=-1), lambda x: jnp.cumsum(x, axis=-1))]
BINARY = [(lambda x, y: x + y, lambda x, y: x + y), (lambda x, y: x * y, lambda x, y: x * y),
          (tp.maximum, jnp.maximum), (lambda x, y: x / (1.0 + y * y), lambda x, y: x / (1.0 + y * y)),
          (lambda x, y: tp.where(y > 0, x, -x), lambda x, y: jnp.where(y > 0, x, -x))]


def _composition(seed: int) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """A random function of x (3, 4) and y (3, 4) and a closed-over weight w (4, 4): a few
    unary and binary ops, a matmul, a reduction; the same in tensorplug and jax."""
    rng = np.random.default_rng(seed)
    steps = [("u", int(rng.integers(len(UNARY)))) if rng.random() < 0.5
             else ("b", int(rng.integers(len(BINARY)))) for _ in range(4)]
    w = _data((4, 4), seed + 1000)

    def build(lib: int) -> Callable[..., Any]:
        def f(x: Any, y: Any) -> Any:
            h = x
            for kind, i in steps:
                h = UNARY[i][lib](h) if kind == "u" else BINARY[i][lib](h, y)
            h = h @ (tp.asarray(w) if lib == 0 else jnp.asarray(w))
            return (tp.sum if lib == 0 else jnp.sum)(h * h, axis=0)
        return f

    return build(0), build(1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (0, 2)])
def test_random_compositions_against_jax(backend: str, seed: int, in_axes: tuple[Any, ...]) -> None:
    f, jf = _composition(seed)
    shapes = {0: (B, 3, 4), 1: (3, B, 4), 2: (3, 4, B), None: (3, 4)}
    x, y = (_data(shapes[a], seed + k) for k, a in enumerate(in_axes))
    want = jax.vmap(jf, in_axes=in_axes)(jnp.asarray(x), jnp.asarray(y))
    with tp.backend_scope(backend), _no_fallback():
        got = tp.vmap(f, in_axes=in_axes)(tp.asarray(x), tp.asarray(y))
    _close(got.numpy(), want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_vmap_against_jax(backend: str) -> None:
    def f(lib: Any) -> Callable[..., Any]:
        return lambda a, b: lib.tanh(a @ b) + lib.sum(a)
    a, b = _data((2, 3, 4), 0), _data((5, 4, 2), 1)
    want = jax.vmap(jax.vmap(f(jnp), in_axes=(None, 0)), in_axes=(0, None), out_axes=1)(a, b)
    with tp.backend_scope(backend), _no_fallback():
        nested = tp.vmap(tp.vmap(f(tp), in_axes=(None, 0)), in_axes=(0, None), out_axes=1)
        got = nested(tp.asarray(a), tp.asarray(b))
    assert got.shape == want.shape
    _close(got.numpy(), want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_trees_axis_size_and_out_axes(backend: str) -> None:
    x = _data((B, 4), 0)
    with tp.backend_scope(backend):
        out = tp.vmap(lambda d, s: {"sum": tp.sum(d["x"]) * s, "same": d["w"]},
                      in_axes=({"x": 0, "w": None}, None), out_axes={"sum": 0, "same": None})(
            {"x": tp.asarray(x), "w": tp.ones(2)}, 2.0)
        _close(out["sum"].numpy(), 2.0 * x.sum(axis=1))
        _close(out["same"].numpy(), np.ones(2))
        made = tp.vmap(lambda: tp.arange(3) * 1.0, in_axes=(), axis_size=4, out_axes=1)()
        _close(made.numpy(), np.broadcast_to(np.arange(3.0)[:, None], (3, 4)))


# -- composition with grad, jvp and jit ----------------------------------------------------------
def _mlp_loss(lib: Any) -> Callable[..., Any]:
    log_softmax = tp.nn.log_softmax if lib is tp else jax.nn.log_softmax

    def loss(p: dict[str, Any], x: Any, y: Any) -> Any:
        h = (tp.nn.relu if lib is tp else jax.nn.relu)(x @ p["w1"] + p["b1"])
        logits = h @ p["w2"] + p["b2"]
        return -lib.sum(log_softmax(logits) * y)
    return loss


def _mlp_data() -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    params = {"w1": _data((6, 5), 0), "b1": _data((5,), 1), "w2": _data((5, 3), 2), "b2": _data((3,), 3)}
    x = _data((4, 6), 4)
    y = np.eye(3)[np.array([0, 2, 1, 2])]
    return params, x, y


@pytest.mark.parametrize("backend", BACKENDS)
def test_per_example_gradients(backend: str) -> None:
    """vmap(grad(loss), in_axes=(None, 0, 0)) against a loop of tp.grad and against jax."""
    params, x, y = _mlp_data()
    want = jax.vmap(jax.grad(_mlp_loss(jnp)), in_axes=(None, 0, 0))(params, x, y)
    with tp.backend_scope(backend), _no_fallback():
        p = {k: tp.asarray(v) for k, v in params.items()}
        got = tp.vmap(tp.grad(_mlp_loss(tp)), in_axes=(None, 0, 0))(p, tp.asarray(x), tp.asarray(y))
        loop = [tp.grad(_mlp_loss(tp))(p, tp.asarray(x[i]), tp.asarray(y[i])) for i in range(len(x))]
    for k in params:
        _close(got[k].numpy(), want[k])
        _close(got[k].numpy(), np.stack([g[k].numpy() for g in loop]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_of_vmap(backend: str) -> None:
    params, x, y = _mlp_data()

    def total(lib: Any, vmap: Any, grad_of: Any) -> Any:
        xs, ys = (x, y) if lib is jnp else (tp.asarray(x), tp.asarray(y))

        def f(p: Any) -> Any:
            return lib.sum(vmap(_mlp_loss(lib), in_axes=(None, 0, 0))(p, xs, ys) ** 2)
        return grad_of(f)
    want = total(jnp, jax.vmap, jax.grad)(params)
    with tp.backend_scope(backend), _no_fallback():
        got = total(tp, tp.vmap, tp.grad)({k: tp.asarray(v) for k, v in params.items()})
    for k in params:
        _close(got[k].numpy(), want[k])


@pytest.mark.parametrize("backend", BACKENDS)
def test_jvp_and_vmap_both_orders(backend: str) -> None:
    x, t, w = _data((B, 4), 0), _data((B, 4), 1), _data((4, 4), 2)

    def f(lib: Any) -> Callable[..., Any]:
        return lambda a: lib.sum(lib.tanh(a @ (w if lib is jnp else tp.asarray(w))) ** 2)
    want_out, want_t = jax.jvp(jax.vmap(f(jnp)), (x,), (t,))
    want_vt = jax.vmap(lambda a, ta: jax.jvp(f(jnp), (a,), (ta,))[1])(x, t)
    with tp.backend_scope(backend), _no_fallback():
        out, tangent = tp.jvp(tp.vmap(f(tp)), (tp.asarray(x),), (tp.asarray(t),))
        vt = tp.vmap(lambda a, ta: tp.jvp(f(tp), (a,), (ta,))[1])(tp.asarray(x), tp.asarray(t))
    _close(out.numpy(), want_out)
    _close(tangent.numpy(), want_t)
    _close(vt.numpy(), want_vt)


@pytest.mark.parametrize("backend", BACKENDS)
def test_jit_of_vmap_and_vmap_of_jit(backend: str) -> None:
    params, x, y = _mlp_data()
    want = jax.vmap(jax.grad(_mlp_loss(jnp)), in_axes=(None, 0, 0))(params, x, y)
    with tp.backend_scope(backend), _no_fallback():
        p = {k: tp.asarray(v) for k, v in params.items()}
        per_example = tp.jit(tp.vmap(tp.grad(_mlp_loss(tp)), in_axes=(None, 0, 0)))
        for _ in range(2):  # traced, then compiled (numpy: the plan replayed)
            got = per_example(p, tp.asarray(x), tp.asarray(y))
            for k in params:
                _close(got[k].numpy(), want[k])
        w = tp.asarray(params["w1"])
        inner = tp.vmap(tp.jit(lambda a: tp.tanh(a @ w)))(tp.asarray(x))
    _close(inner.numpy(), np.tanh(x @ params["w1"]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_jacobians_over_vmap_against_jax(backend: str) -> None:
    """jacfwd and jacrev batch their basis vectors with vmap; hessian is one over the other."""
    x, w = _data((3, 2), 0), _data((2, 4), 1)

    def f(lib: Any) -> Callable[..., Any]:
        return lambda a, b: lib.tanh(a @ b) * lib.sum(a)
    with tp.backend_scope(backend), _no_fallback():
        args = (tp.asarray(x), tp.asarray(w))
        for ours, theirs in ((tp.jacfwd, jax.jacfwd), (tp.jacrev, jax.jacrev)):
            got = ours(f(tp), argnums=(0, 1))(*args)
            for g, want in zip(got, theirs(f(jnp), argnums=(0, 1))(x, w)):
                _close(g.numpy(), want)
            tree = ours(lambda d: tp.sum(d["a"] * d["b"], axis=0))({"a": args[0], "b": args[0] * 2.0})
            want_tree = theirs(lambda d: jnp.sum(d["a"] * d["b"], axis=0))({"a": x, "b": x * 2.0})
            for k in ("a", "b"):
                _close(tree[k].numpy(), want_tree[k])
        hessian = tp.hessian(lambda a: tp.sum(tp.sin(a) ** 3))(args[0])
    _close(hessian.numpy(), jax.hessian(lambda a: jnp.sum(jnp.sin(a) ** 3))(x))


# -- every rule against a loop (the kit's check) ---------------------------------------------------
RULED = sorted(s.name for s in tp.extend.list_kernel_specs() if tp.extend.find_batching_rule(s.name))
#: one kernel or more of each family with rules (the jax backend compiles every case: these only)
FAMILIES = ("Add", "Where", "Cast", "Sum", "ArgMax", "Cumsum", "Sort", "MatMul", "Einsum", "Reshape",
            "Transpose", "BroadcastTo", "Concat", "Stack", "StridedSlice", "Gather", "ScatterAdd", "Softmax",
            "LogSoftmax", "OneHot", "Conv2D", "MaxPool", "Fft", "Solve", "TopK")
PER_KERNEL = [("numpy", k) for k in RULED] + [pytest.param("jax", k, marks=pytest.mark.jax) for k in FAMILIES]


@pytest.mark.parametrize(("backend", "kernel"), PER_KERNEL)
def test_every_batching_rule_agrees_with_a_loop(backend: str, kernel: str) -> None:
    """The kit's batching check (opcheck), on the kit's cases of each kernel with a rule."""
    result = opcheck(kernel, backend, checks=("batching",))
    assert result.batching.startswith("checked on"), result.batching
    result.assert_ok()


@pytest.mark.parametrize("limit", [1, 2])
def test_the_kit_checks_a_batching_rule_on_as_many_cases_as_asked(limit: int) -> None:
    # (the kit's --tensorplug-batching-cases: the jax run of make test checks one)
    result = opcheck("Add", "numpy", checks=("batching",), batching_cases=limit)
    assert result.batching == f"checked on {limit} case(s), {3 * limit} batch layout(s)"


def test_the_core_batches_the_kernel_families() -> None:
    assert len(RULED) >= 150
    assert set(FAMILIES) <= set(RULED), set(FAMILIES) - set(RULED)


# -- the loop fallback and rules of others --------------------------------------------------------
def _toy_kernel() -> str:
    """A kernel of the test's own (no batching rule): x * 2 + its sum, on the numpy backend."""
    name = f"VmapToy{uuid.uuid4().hex[:8]}"
    register_kernel_spec(KernelSpec(name=name, inputs=("x",), infer=lambda infos, attrs: [infos[0]]))
    register_kernel(KernelConfig(name, "numpy", lambda ins, attrs, backend: ins[0] * 2 + ins[0].sum()))
    return name


def test_loop_fallback_warns_once_naming_the_kernel() -> None:
    x = _data((B, 4), 0)
    with tp.backend_scope("numpy"):
        name = _toy_kernel()
        f = tp.vmap(lambda a: tp.run_kernel(name, [a]))
        with pytest.warns(VmapFallbackWarning, match=f"kernel '{name}': it has no batching rule"):
            got = f(tp.asarray(x))
        with warnings.catch_warnings():
            warnings.simplefilter("error", VmapFallbackWarning)
            again = f(tp.asarray(x))
    loop = np.stack([row * 2 + row.sum() for row in x])
    _close(got.numpy(), loop)
    _close(again.numpy(), loop)


def test_a_rule_that_declines_falls_back_to_the_loop_saying_so() -> None:
    x = _data((B, 4), 0)
    with tp.backend_scope("numpy"):
        name = _toy_kernel()
        with override_batching_rule(BatchConfig(name, lambda inputs, axes, attrs: NotImplemented)), \
                pytest.warns(VmapFallbackWarning, match=f"kernel '{name}': its batching rule declines"):
            got = tp.vmap(lambda a: tp.run_kernel(name, [a]))(tp.asarray(x))
    _close(got.numpy(), np.stack([row * 2 + row.sum() for row in x]))


def test_a_registered_rule_is_used_and_checked() -> None:
    x = _data((B, 4), 0)
    calls = []
    with tp.backend_scope("numpy"):
        name = _toy_kernel()

        def rule(inputs: Any, axes: Any, attrs: Any) -> Any:
            calls.append(axes)
            (v,), (a,) = inputs, axes
            v = tp.moveaxis(v, a, 0)
            return v * 2 + tp.sum(v, axis=1, keepdims=True), 0
        with override_batching_rule(BatchConfig(name, rule)), warnings.catch_warnings():
            warnings.simplefilter("error", VmapFallbackWarning)
            got = tp.vmap(lambda a: tp.run_kernel(name, [a]), in_axes=1)(tp.asarray(x.T))
        assert calls == [(1,)]
        _close(got.numpy(), np.stack([row * 2 + row.sum() for row in x]))

        def wrong(inputs: Any, axes: Any, attrs: Any) -> Any:
            return inputs[0], 5
        with override_batching_rule(BatchConfig(name, wrong)), \
                pytest.raises(tp.KernelError, match=f"batching rule of '{name}'.*batch axis 5"):
            tp.vmap(lambda a: tp.run_kernel(name, [a]))(tp.asarray(x))


# -- errors ---------------------------------------------------------------------------------------
def test_errors() -> None:
    x = tp.asarray(_data((B, 4), 0))
    with pytest.raises(tp.ArgumentError, match="vmap: f must be a function"):
        tp.vmap(3)
    with pytest.raises(tp.ArgumentError, match="vmap: in_axes must be an int, None"):
        tp.vmap(tp.exp, in_axes="0")
    with pytest.raises(tp.ShapeError, match="different sizes"):
        tp.vmap(lambda a, b: a + b)(x, tp.ones((5, 4)))
    with pytest.raises(tp.ShapeError, match="in_axes gives axis 2"):
        tp.vmap(tp.exp, in_axes=2)(x)
    with pytest.raises(tp.ArgumentError, match="in_axes has 2 entries for 1 positional arguments"):
        tp.vmap(tp.exp, in_axes=(0, 0))(x)
    with pytest.raises(tp.ArgumentError, match="must return Tensors"):
        tp.vmap(lambda a: "no")(x)
    with pytest.raises(tp.ArgumentError, match="give axis_size"):
        tp.vmap(lambda a: a, in_axes=None)(x)
    with pytest.raises(tp.ShapeError, match="out_axes is None for result"):
        tp.vmap(lambda a: a, out_axes=None)(x)
    with pytest.raises(tp.ShapeError, match="kernel 'NonZero' gives outputs of different shapes"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", VmapFallbackWarning)
        tp.vmap(lambda a: tp.nonzero(a)[0])(tp.asarray([[0.0, 1.0], [1.0, 1.0]]))
    with pytest.raises(tp.ShapeError, match="argument\\[0\\], a scalar, which has no axis"):
        tp.vmap(lambda a: a)(3.0)
    with pytest.raises(tp.TracedValueError, match="cannot read values inside vmap"):
        tp.vmap(lambda a: tp.asarray(float(tp.sum(a))))(x)
    ok = tp.vmap(lambda a, w: a * float(tp.sum(w)), in_axes=(0, None))(x, tp.ones(2))  # unbatched: readable
    _close(ok.numpy(), x.numpy() * 2)
