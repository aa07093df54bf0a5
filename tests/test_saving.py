"""tp.save and tp.load: trees of tensors, Variables, numpy arrays, Python values and optimizer
states through one safetensors file, from any backend to any backend; a trained MLP reloaded
predicts the same; a reloaded optimizer resumes the same trajectory; errors for a missing file,
a file not ours, a tree that does not match (like=), and a missing safetensors."""

from __future__ import annotations

import gc
import json
import sys

import numpy as np
import pytest

import tensorplug as tp
from tensorplug import optimizers

BACKENDS = ["numpy", "jax"]
RNG = np.random.default_rng(11)


def _values() -> dict:
    """One leaf of every kind and dtype a tree may hold."""
    return {
        "f32": RNG.standard_normal((2, 3)).astype(np.float32), "f64": RNG.standard_normal(4),
        "f16": np.array([0.5, -2.0], np.float16), "bf16": np.array([1.5, -0.25, 3.0], tp.bfloat16.numpy),
        "i64": np.array([[2**62, -3]]), "i8": np.array([-128, 127], np.int8), "u32": np.array([7], np.uint32),
        "bool": np.array([True, False]), "c64": np.array([1 + 2j], np.complex64),
        "c128": np.array([[1 - 1j, 2.5j]]), "scalar": np.array(3.25), "empty": np.zeros((0, 3), np.float32),
    }


@pytest.mark.parametrize("load_on", BACKENDS)
@pytest.mark.parametrize("save_on", BACKENDS)
def test_a_tree_goes_to_one_file_and_back_across_backends(tmp_path, save_on: str, load_on: str) -> None:
    tp.set_backend(save_on)
    values = _values()
    tensors = {k: tp.asarray(v) for k, v in values.items() if k != "c128" or save_on == "numpy"}
    var = tp.Variable(values["f32"], name="weights", trainable=False)
    tree = {"tensors": tensors, "nested": [var, (1, 2.5, "text", None, True), {"k": [np.arange(3)]}],
            3: {"int key": -7}, "np_scalar": np.float32(1.5)}
    path = tmp_path / "tree.safetensors"
    tp.save(path, tree)
    assert len(list(tmp_path.iterdir())) == 1  # one file (and no temporary left over)
    del var, tree  # (as in a new process: the name "weights" is free again)
    gc.collect()

    out = tp.load(str(path), backend=load_on)
    assert set(out) == {"tensors", "nested", 3, "np_scalar"}
    for k, t in out["tensors"].items():
        assert isinstance(t, tp.Tensor) and t.backend == load_on and t.dtype == tensors[k].dtype
        np.testing.assert_array_equal(t.numpy(), values[k])
        assert t.shape == values[k].shape
    v = out["nested"][0]
    assert isinstance(v, tp.Variable) and v.name == "weights" and v.trainable is False
    assert v.backend == load_on
    np.testing.assert_array_equal(v.numpy(), values["f32"])
    assert out["nested"][1] == (1, 2.5, "text", None, True) and isinstance(out["nested"][1], tuple)
    assert type(out["nested"][1][0]) is int and type(out["nested"][1][4]) is bool
    np.testing.assert_array_equal(out["nested"][2]["k"][0], np.arange(3))
    assert isinstance(out["nested"][2]["k"][0], np.ndarray) and out[3] == {"int key": -7}
    assert out["np_scalar"] == np.float32(1.5) and out["np_scalar"].dtype == np.float32


def test_the_file_is_plain_safetensors_with_the_tree_as_json(tmp_path) -> None:
    from safetensors import safe_open

    path = tmp_path / "m.safetensors"
    tp.save(path, {"params": {"w": tp.ones((2, 2)), "b": [tp.zeros(2)]}, "step": 5})
    with safe_open(str(path), framework="numpy") as f:
        assert set(f.keys()) == {"params/w", "params/b/0"}
        np.testing.assert_array_equal(f.get_tensor("params/w"), np.ones((2, 2), np.float32))
        tree = json.loads(f.metadata()["tree"])
    assert tree["kind"] == "dict" and ["step", {"kind": "value", "value": 5}] in tree["items"]


def test_a_live_variables_name_is_not_taken_twice_and_the_slots_follow(tmp_path) -> None:
    w = tp.Variable([1.0, 2.0], name="w_live")
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(w, tp.asarray([0.5, -1.0]))])
    tp.save(tmp_path / "w.safetensors", {"opt": opt.state, "w": w})
    again = tp.load(tmp_path / "w.safetensors")
    assert isinstance(again["w"], tp.Variable) and again["w"].name != "w_live" and again["w"] is not w
    np.testing.assert_array_equal(again["w"].numpy(), w.numpy())
    assert set(again["opt"].slots) == {again["w"].name}  # (slots keyed by the new name)
    m = again["opt"].slots[again["w"].name]["m"]
    np.testing.assert_array_equal(m.numpy(), opt.get_slots(w)["m"].numpy())


# -- a trained model -----------------------------------------------------------------------
X = RNG.standard_normal((16, 4))
Y = (X[:, :1] * X[:, 1:2] > 0).astype(np.float64)


def make_mlp(seed: int = 0) -> dict[str, tp.Variable]:
    rng = np.random.default_rng(seed)
    return {"w1": tp.Variable(rng.standard_normal((4, 8)) * 0.5), "b1": tp.Variable(np.zeros(8)),
            "w2": tp.Variable(rng.standard_normal((8, 1)) * 0.5), "b2": tp.Variable(np.zeros(1))}


def predict(params: dict, x) -> tp.Tensor:
    h = tp.maximum(tp.asarray(x) @ params["w1"] + params["b1"], 0.0)
    return h @ params["w2"] + params["b2"]


def fit(params: dict, opt: optimizers.Optimizer, steps: int) -> list[float]:
    x, y = tp.asarray(X), tp.asarray(Y)
    step = tp.jit(lambda: opt.minimize(lambda: tp.mean((predict(params, x) - y) ** 2), list(params.values())))
    return [step().item() for _ in range(steps)]


@pytest.mark.parametrize(("train_on", "load_on"), [("numpy", "jax"), ("jax", "numpy"), ("numpy", "numpy")])
def test_a_trained_mlp_reloaded_predicts_the_same(tmp_path, train_on: str, load_on: str) -> None:
    tp.set_backend(train_on)
    params = make_mlp()
    losses = fit(params, optimizers.Adam(0.05), 20)
    assert losses[-1] < losses[0]
    want = predict(params, X).numpy()
    tp.save(tmp_path / "mlp.safetensors", params)

    tp.set_backend(load_on)
    fresh = make_mlp(seed=1)  # another model of the same shape: restored in place
    restored = tp.load(tmp_path / "mlp.safetensors", like=fresh)
    assert all(restored[k] is fresh[k] for k in fresh) and {v.backend for v in fresh.values()} == {load_on}
    for k in params:
        np.testing.assert_array_equal(fresh[k].numpy(), params[k].numpy())
    got = predict(fresh, X).numpy()
    if train_on == load_on:
        np.testing.assert_array_equal(got, want)
    else:  # (the same weights; each backend's matmul rounds its own way)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make_opt", [
    lambda: optimizers.Adam(0.05), lambda: optimizers.RMSprop(0.01, momentum=0.9),
    lambda: optimizers.SGD(optimizers.schedules.exponential_decay(0.1, 5, 0.5), momentum=0.5),
], ids=["adam", "rmsprop", "sgd_schedule"])
@pytest.mark.parametrize(("train_on", "load_on"), [("numpy", "jax"), ("jax", "numpy")])
def test_a_reloaded_optimizer_resumes_the_same_trajectory(tmp_path, make_opt, train_on: str,
                                                           load_on: str) -> None:
    tp.set_backend(train_on)
    params = make_mlp()
    opt = make_opt()
    fit(params, opt, 4)
    path = tmp_path / "checkpoint.safetensors"
    tp.save(path, {"params": params, "opt": opt.state, "epoch": 4})
    names = {k: v.name for k, v in params.items()}
    want = fit(params, opt, 4)  # the run that was not interrupted
    want_params = {k: v.numpy() for k, v in params.items()}
    del params, opt
    gc.collect()  # (as in a new process: the Variables' names are free again)

    tp.set_backend(load_on)
    loaded = tp.load(path)
    assert {k: v.name for k, v in loaded["params"].items()} == names and loaded["epoch"] == 4
    opt = make_opt()
    opt.state = loaded["opt"]
    assert opt.iterations == 4
    got = fit(loaded["params"], opt, 4)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    for k, v in loaded["params"].items():
        assert v.backend == load_on
        np.testing.assert_allclose(v.numpy(), want_params[k], rtol=1e-10, atol=1e-12)


def test_like_restores_a_fresh_model_and_optimizer_in_the_same_process(tmp_path) -> None:
    """The original model still lives: a new one (other Variable names) takes the checkpoint,
    and the optimizer's slots follow to the new Variables' names."""
    params = make_mlp()
    opt = optimizers.Adam(0.05)
    fit(params, opt, 3)
    tp.save(tmp_path / "c.safetensors", {"opt": opt.state, "params": params})  # (state first)
    fresh, fresh_opt = make_mlp(seed=1), optimizers.Adam(0.05)
    restored = tp.load(tmp_path / "c.safetensors", like={"params": fresh, "opt": fresh_opt.state})
    fresh_opt.state = restored["opt"]
    assert fresh_opt.iterations == 3 and set(fresh_opt.state.slots) == {v.name for v in fresh.values()}
    for k, v in params.items():
        for slot, s in opt.get_slots(v).items():
            np.testing.assert_array_equal(fresh_opt.get_slots(fresh[k])[slot].numpy(), s.numpy())
    np.testing.assert_allclose(fit(fresh, fresh_opt, 3), fit(params, opt, 3), rtol=1e-12)


# -- errors ---------------------------------------------------------------------------------
def test_like_names_every_difference(tmp_path) -> None:
    saved = {"w": tp.ones((2, 3)), "b": tp.zeros(3), "layers": [tp.ones(2)], "n": 1}
    tp.save(tmp_path / "t.safetensors", saved)
    w = tp.Variable(np.full((3, 3), 7.0, np.float32))
    like = {"w": w, "bias": tp.zeros(3), "layers": [tp.ones(2, dtype=tp.float64), 2], "n": 1}
    with pytest.raises(tp.CheckpointError) as info:
        tp.load(tmp_path / "t.safetensors", like=like)
    message = str(info.value)
    assert "3 differences" in message
    assert "keys differ: only in the file ['b'], only in the tree given ['bias']" in message
    assert "['w']: the file has float32[2, 3], the tree given float32[3, 3]" in message
    assert "['layers']: the file has a list of 1, the tree given a list of 2" in message
    assert "Pass the tree the file was saved from" in message
    np.testing.assert_array_equal(w.numpy(), np.full((3, 3), 7.0))  # nothing assigned
    with pytest.raises(tp.CheckpointError,
                       match=r"\['layers'\]\[0\]: the file has float32\[2\], the tree given float64"):
        tp.load(tmp_path / "t.safetensors", like={"w": tp.ones((2, 3)), "b": tp.zeros(3),
                                                  "layers": [tp.ones(2, dtype=tp.float64)], "n": 1})


def test_a_missing_file_and_a_file_not_ours(tmp_path) -> None:
    from safetensors.numpy import save_file

    with pytest.raises(tp.CheckpointNotFoundError, match="there is no file .*nothing.safetensors"):
        tp.load(tmp_path / "nothing.safetensors")
    assert issubclass(tp.CheckpointNotFoundError, FileNotFoundError)
    with pytest.raises(tp.CheckpointError, match="is not a file;"):
        tp.load(tmp_path)
    (tmp_path / "text.safetensors").write_text("hello")
    with pytest.raises(tp.CheckpointError, match="is not a file tp.save wrote .not a safetensors file"):
        tp.load(tmp_path / "text.safetensors")
    save_file({"a": np.ones(2)}, str(tmp_path / "other.safetensors"))
    with pytest.raises(tp.CheckpointError, match="without tensorplug's tree in its metadata"):
        tp.load(tmp_path / "other.safetensors")
    with pytest.raises(tp.CheckpointNotFoundError, match="the folder .* does not exist; create it first"):
        tp.save(tmp_path / "no" / "such" / "x.safetensors", {"a": 1})


@pytest.mark.parametrize(("tree", "match"), [
    ({"f": object()}, r"cannot save the object at \['f'\]"),
    ({(1, 2): tp.ones(1)}, r"dict keys must be str or int; the dict at the root has the key \(1, 2\)"),
    ([np.array(["a"])], r"numpy array at \[0\] has dtype <U1"),
])
def test_what_cannot_be_saved_is_named(tmp_path, tree, match: str) -> None:
    with pytest.raises(tp.ArgumentError, match=match):
        tp.save(tmp_path / "x.safetensors", tree)
    assert not list(tmp_path.iterdir())
    with pytest.raises(tp.ArgumentError, match="tp.save: path must be a str or a path"):
        tp.save(b"x.safetensors", {})


def test_without_safetensors_the_error_names_the_pip_command(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "safetensors", None)
    with pytest.raises(tp.MissingDependencyError, match=r'pip install "tensorplug-core\[save\]"'):
        tp.save(tmp_path / "x.safetensors", {"a": tp.ones(1)})
    with pytest.raises(ImportError, match="tp.load needs the safetensors package"):
        tp.load(tmp_path / "x.safetensors")

