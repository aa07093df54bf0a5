"""tp.tree_util, the one pytree: a class registered once (here a small model) flows through
grad, jvp, vmap, checkpoint, tp.jit, an optimizer and tp.save/tp.load on both backends; a leaf
a transform cannot take is an error naming the transform and the fix; registrations stay in
tensorplug's optree namespace; None is an empty subtree."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import optree
import pytest

import tensorplug as tp
from tensorplug.tree_util import (
    register_dataclass,
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)


class Dense:
    """A user's model class: weights and bias, and a name that is not data."""

    def __init__(self, w, b, name="dense"):
        self.w, self.b, self.name = w, b, name

    def __call__(self, x):
        return tp.tanh(x @ self.w + self.b)


register_pytree_node(Dense, lambda m: ((m.w, m.b), m.name), lambda name, kids: Dense(*kids, name=name))


@register_dataclass
@dataclasses.dataclass
class Pair:
    first: object
    second: object


class Unregistered:
    def __init__(self, w):
        self.w = w



def _model(seed=0):
    rng = np.random.default_rng(seed)
    return Dense(tp.asarray(rng.standard_normal((3, 2)).astype(np.float32)),
                 tp.asarray(rng.standard_normal(2).astype(np.float32)), name="layer")


def _loss(m, x):
    return tp.sum(m(x) ** 2)


def _close(a, b, rtol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-6)


def _expected_grads(m, x):
    w, b, x = m.w.numpy().astype(np.float64), m.b.numpy().astype(np.float64), x.numpy().astype(np.float64)
    y = np.tanh(x @ w + b)
    dz = 2 * y * (1 - y ** 2)
    return x.T @ dz, dz.sum(0)


def test_trees_flatten_in_a_fixed_order_and_rebuild():
    tree = {"b": [1, (2, None)], "a": Pair(3, Dense(4, 5, "n"))}
    leaves, treedef = tree_flatten(tree)
    assert leaves == [3, 4, 5, 1, 2]  # dict keys sorted; None an empty subtree
    rebuilt = tree_unflatten(treedef, leaves)
    assert list(rebuilt) == ["b", "a"] and rebuilt["b"][1][1] is None and rebuilt["a"].second.name == "n"
    assert tree_structure(rebuilt) == treedef and hash(tree_structure(rebuilt)) == hash(treedef)
    assert tree_map(lambda x, y: x * 10 + y, tree, tree)["a"].second.b == 55
    assert tree_leaves(tree_map(lambda x: x, tree, is_leaf=lambda x: isinstance(x, Dense)))[1] == 4


def test_registering_twice_or_a_non_class_is_a_clear_error():
    with pytest.raises(tp.RegistrationError, match=r"register_pytree_node: .*Dense.* already registered"):
        register_pytree_node(Dense, lambda m: ((), None), lambda aux, kids: Dense(1, 2))
    with pytest.raises(tp.RegistrationError, match=r"register_pytree_node: .*tuple.*built-in"):
        register_pytree_node(tuple, lambda m: ((), None), lambda aux, kids: ())
    with pytest.raises(tp.ArgumentError, match=r"register_pytree_node: give a class and two functions"):
        register_pytree_node(Dense(1, 2), lambda m: ((), None), lambda aux, kids: None)
    with pytest.raises(tp.ArgumentError, match=r"register_dataclass: .*Unregistered.* is not a dataclass"):
        register_dataclass(Unregistered)


def test_registrations_stay_in_tensorplugs_namespace():
    m = Dense(1, 2)
    assert tree_leaves(m) == [1, 2]
    assert optree.tree_leaves(m) == [m]  # another optree user sees a leaf


def test_a_registered_class_flows_through_grad_and_value_and_grad(backend):
    m, x = _model(), tp.asarray(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    g = tp.grad(_loss)(m, x)
    assert isinstance(g, Dense) and g.name == "layer"
    dw, db = _expected_grads(m, x)
    _close(g.w.numpy(), dw, 1e-4)
    _close(g.b.numpy(), db, 1e-4)
    value, g2 = tp.value_and_grad(_loss)(m, x)
    _close(value.numpy(), _loss(m, x).numpy())
    _close(g2.w.numpy(), g.w.numpy())


def test_a_registered_class_flows_through_jvp_and_checkpoint(backend):
    m, x = _model(), tp.ones((4, 3))
    tangent = Dense(tp.ones((3, 2)), tp.zeros(2), name="layer")
    out, t_out = tp.jvp(lambda m: _loss(m, x), (m,), (tangent,))
    dw, _ = _expected_grads(m, x)
    _close(t_out.numpy(), dw.sum(), 1e-4)
    g = tp.grad(lambda m: tp.checkpoint(_loss)(m, x))(m)
    _close(g.w.numpy(), dw, 1e-4)


def test_a_registered_class_flows_through_vmap(backend):
    m = _model()
    xs = tp.asarray(np.arange(24, dtype=np.float32).reshape(4, 2, 3) / 24)
    out = tp.vmap(lambda m, x: Dense(m(x), m.b, "out"), in_axes=(None, 0))(m, xs)
    assert isinstance(out, Dense) and out.name == "out" and out.w.shape == (4, 2, 2) and out.b.shape == (4, 2)
    _close(out.w.numpy(), m(xs).numpy())
    stacked = Dense(tp.stack([m.w, m.w * 2]), tp.stack([m.b, m.b]), "layer")  # a batch of models
    ys = tp.vmap(lambda m: m(tp.ones((1, 3))))(stacked)
    assert ys.shape == (2, 1, 2)


def test_a_registered_class_flows_through_jit_and_an_optimizer(backend):
    m, x = _model(), tp.ones((4, 3))
    opt = tp.optimizers.SGD(0.1)

    def step(m, x):
        return opt.update(m, tp.grad(_loss)(m, x))

    jitted = tp.jit(step)
    eager = step(m, x)
    assert isinstance(eager, Dense) and eager.name == "layer"
    got = jitted(m, x)
    assert isinstance(got, Dense) and got.name == "layer"
    _close(got.w.numpy(), eager.w.numpy(), 1e-4)
    again = jitted(got, x)  # (the same structure: the compiled function again)
    _close(again.b.numpy(), step(eager, x).b.numpy(), 1e-4)


def test_a_registered_class_is_saved_and_loaded(backend, tmp_path):
    pytest.importorskip("safetensors")
    m = _model()
    path = tmp_path / "model.safetensors"
    tp.save(path, {"model": m, "pair": Pair(tp.ones(2), 3)})
    loaded = tp.load(path)
    assert isinstance(loaded["model"], Dense) and loaded["model"].name == "layer"
    _close(loaded["model"].w.numpy(), m.w.numpy())
    assert isinstance(loaded["pair"], Pair) and loaded["pair"].second == 3
    restored = tp.load(path, like={"model": _model(seed=1), "pair": Pair(tp.zeros(2), 3)})
    _close(restored["model"].b.numpy(), m.b.numpy())
    with pytest.raises(tp.CheckpointError, match=r"\['model'\]: the file has a .*Dense, the tree given a di"):
        tp.load(path, like={"model": {"w": m.w}, "pair": Pair(tp.zeros(2), 3)})


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jacrev", "jacfwd"])
def test_an_unregistered_leaf_names_the_transform_and_the_fix(transform):
    f = getattr(tp, transform)(lambda t: tp.sum(t["m"].w))
    with pytest.raises(tp.ArgumentError, match=rf"{transform}: argument 0\['m'\] is a Unregistered, which is "
                                               r"neither a tensor nor a pytree node.*"
                                               r"tp.tree_util.register_pytree_node\(Unregistered, flatten"):
        f({"m": Unregistered(tp.ones(2))})


def test_an_unregistered_leaf_in_jvp_vmap_and_save_says_how_to_register(tmp_path):
    with pytest.raises(tp.ArgumentError, match=r"jvp: primals\[0\] is a Unregistered.*register_pytree_node"):
        tp.jvp(lambda m: m.w, (Unregistered(tp.ones(2)),), (Unregistered(tp.ones(2)),))
    pytest.importorskip("safetensors")
    with pytest.raises(tp.ArgumentError, match=r"tp.save: cannot save the Unregistered at \['m'\].*register"):
        tp.save(tmp_path / "x.safetensors", {"m": Unregistered(tp.ones(2))})


def test_none_is_an_empty_subtree_for_every_transform():
    params = {"w": tp.ones(2), "frozen": None}
    g = tp.grad(lambda p: tp.sum(p["w"] ** 2))(params)
    assert g["frozen"] is None
    _close(g["w"].numpy(), [2.0, 2.0])
    assert tp.optimizers.SGD(0.5).update(params, g)["frozen"] is None
    assert tp.jit(lambda p: p)(params)["frozen"] is None


def test_an_optimizer_state_is_a_pytree(backend):
    opt = tp.optimizers.SGD(0.1, momentum=0.9)
    params = opt.update({"w": tp.ones(2)}, {"w": tp.ones(2)})
    state = opt.state
    assert isinstance(state, tp.optimizers.OptimizerState)
    tensors = [x for x in tree_leaves(state) if isinstance(x, tp.Tensor)]
    assert len(tensors) == 3  # the step count, the learning rate, the momentum slot
    doubled = tree_map(lambda x: x * 2 if isinstance(x, tp.Tensor) else x, state)
    assert isinstance(doubled, tp.optimizers.OptimizerState) and int(doubled.iterations) == 2
    assert int(tp.jit(lambda s: s.iterations + 1)(state)) == 2  # a tp.jit argument like any tree
    assert params["w"].shape == (2,)


def test_namedtuples_and_ordered_dicts_are_nodes():
    Point = collections.namedtuple("Point", "x y")
    g = tp.grad(lambda p: tp.sum(p.x * p.y))(Point(tp.ones(2), tp.full(2, 3.0)))
    assert isinstance(g, Point)
    _close(g.x.numpy(), [3.0, 3.0])
    od = collections.OrderedDict([("b", tp.ones(1)), ("a", tp.ones(1))])
    assert list(tp.grad(lambda d: tp.sum(d["a"] * d["b"]))(od)) == ["b", "a"]


def test_custom_grad_takes_and_gives_pytrees(backend):
    @tp.custom_grad
    def scaled(m, k):  # value: a dict; its gradient: 3 * dy for w, zeros for b, none for k
        def grad_fn(dy):
            return Dense(dy["y"] * 3.0, tp.zeros_like(m.b), name=m.name), None
        return {"y": m.w * k}, grad_fn

    m = Dense(tp.ones(2), tp.zeros(2), name="d")
    g = tp.grad(lambda m: tp.sum(scaled(m, 2.0)["y"] * tp.asarray([1.0, 2.0])))(m)
    assert isinstance(g, Dense) and g.name == "d"
    _close(g.w.numpy(), [3.0, 6.0])
    _close(g.b.numpy(), [0.0, 0.0])


def test_custom_jvp_takes_and_gives_pytrees(backend):
    @tp.custom_jvp
    def affine(m, x):
        return {"y": x @ m.w + m.b}

    @affine.defjvp
    def affine_jvp(primals, tangents):
        (m, x), (dm, dx) = primals, tangents
        return affine(m, x), {"y": x @ dm.w + dm.b + dx @ m.w}

    m, x = _model(), tp.ones((4, 3))
    dm = Dense(tp.ones((3, 2)), tp.ones(2), name="layer")
    out, t_out = tp.jvp(affine, (m, x), (dm, tp.zeros((4, 3))))
    assert list(out) == ["y"] and list(t_out) == ["y"]
    _close(t_out["y"].numpy(), np.full((4, 2), 4.0))
    g = tp.grad(lambda m: tp.sum(affine(m, x)["y"]))(m)  # the rule transposed
    assert isinstance(g, Dense)
    _close(g.w.numpy(), np.full((3, 2), 4.0))
    _close(g.b.numpy(), np.full(2, 4.0))
