"""tp.jit's state trees, on any backend (here numpy): a holder's state flattened into its
structure and tensors and rebuilt, laid out in buffers (one per dtype where packable), packed
and cut again, and a PackedState turned back into the tree."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.optimizers import OptimizerState
from tensorplug.transforms.jit.state import (
    Constant,
    PackedState,
    StateIn,
    TensorLeaf,
    carry_in,
    flatten,
    layout_of,
    leaves_of,
    pack,
    tensor_leaves,
    unflatten,
)


@dataclass(frozen=True)
class _Pair:
    first: object
    second: object


def _tree():
    return {"count": tp.asarray(np.int64(3)),
            "settings": {"beta": 0.9, "nesterov": True, "schedule": abs},
            "slots": [_Pair(tp.ones((2, 3)), tp.zeros(4)), (tp.asarray(np.float64(0.5)),)]}


def test_a_tree_flattens_into_its_structure_and_tensors_and_back():
    tree = _tree()
    structure, leaves = flatten(tree)
    assert [(t.shape, t.dtype) for t in leaves] == [((), tp.int64), ((2, 3), tp.float32), ((4,), tp.float32),
                                                   ((), tp.float64)]
    assert tensor_leaves(structure) == [TensorLeaf(t.shape, t.dtype) for t in leaves]
    rebuilt = unflatten(structure, iter(leaves))
    assert rebuilt["settings"] == tree["settings"] and isinstance(rebuilt["slots"][0], _Pair)
    assert rebuilt["slots"][0].second is leaves[2] and isinstance(rebuilt["slots"][1], tuple)
    assert flatten(rebuilt)[0] == structure and hash(flatten(rebuilt)[0]) == hash(structure)


def test_constants_are_part_of_the_structure_with_their_type():
    assert Constant(int, 1) != Constant(float, 1.0) != Constant(bool, True)
    structure, _ = flatten({"a": 1})
    assert structure != flatten({"a": 1.0})[0] and structure != flatten({"a": True})[0]
    assert structure != flatten({"a": tp.asarray(1)})[0]


def test_a_state_holding_an_unhashable_leaf_is_a_clear_error():
    with pytest.raises(tp.StateError, match=r"holds a ndarray.*Keep tensors \(not numpy arrays\)"):
        flatten({"a": np.ones(2)})


def test_layouts_pack_the_tensors_of_a_dtype_where_allowed():
    structure, leaves = flatten(_tree())
    specs = tensor_leaves(structure)
    packed = layout_of(structure, specs, lambda dtype: True)
    assert [(b.dtype, b.leaves) for b in packed.buffers] == [(tp.int64, (0,)), (tp.float32, (1, 2)),
                                                             (tp.float64, (3,))]
    loose = layout_of(structure, specs, lambda dtype: dtype != tp.float32)
    assert [(b.dtype, b.leaves) for b in loose.buffers] == [(tp.int64, (0,)), (tp.float32, (1,)),
                                                            (tp.float32, (2,)), (tp.float64, (3,))]
    buffers = [leaves[0], pack(leaves[1:3]), leaves[3]]
    assert buffers[1].shape == (10,)
    cut = leaves_of(packed, buffers)
    for t, original in zip(cut, leaves):
        np.testing.assert_array_equal(t.numpy(), original.numpy())


def test_carry_in_lays_out_trees_packs_them_and_takes_a_packed_state_as_it_is(monkeypatch):
    backend = tp.extend.start_backend("numpy")
    monkeypatch.setattr(backend, "packs_jit_state", True)  # (the numpy backend plans: it packs nothing)
    opt_state = OptimizerState(tp.asarray(np.int64(2)), {"learning_rate": tp.asarray(np.float64(0.1))},
                               {"w": {"m": tp.ones((2, 2)), "v": tp.full((2, 2), 2.0)}})
    value = tp.asarray([1.0, 2.0])
    layouts, natives = carry_in([opt_state, value], backend)
    assert [len(layout.buffers) for layout in layouts] == [3, 1]
    assert [n.shape for n in natives] == [(), (), (8,), (2,)]
    left = PackedState(layouts[0], natives[:3], backend)
    again = carry_in([left, value], backend)  # (the arrays as they are: nothing packed again)
    assert isinstance(again, StateIn) and again.layouts == layouts
    assert all(a is b for a, b in zip(again.natives, natives))
    tree = left.unpack()
    assert isinstance(tree, OptimizerState) and float(tree.hyperparameters["learning_rate"]) == 0.1
    np.testing.assert_array_equal(tree.slots["w"]["v"].numpy(), np.full((2, 2), 2.0))
    monkeypatch.setattr(backend, "packs_jit_state", False)  # each tensor as it is
    layouts, natives = carry_in([opt_state, value], backend)
    assert [len(layout.buffers) for layout in layouts] == [4, 1]
    assert [n.shape for n in natives] == [(), (), (2, 2), (2, 2), (2,)]
