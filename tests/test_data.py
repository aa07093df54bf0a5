"""tp.data: a pass covers every example once, shuffled passes are reproducible by number, batches
stack examples (the last one kept or dropped), maps apply where they stand in the pipeline,
take/repeat/len, Tensor leaves and map results on both backends, as_batches and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

X = np.arange(30.0).reshape(10, 3)
Y = np.arange(10)


def rows(batches):
    """The labels of each batch of a pass of (x, y) batches, as lists."""
    return [yb.tolist() for _, yb in batches]


def test_examples_are_the_slices_of_every_leaf():
    ds = tp.data.Dataset({"x": X, "y": (Y, Y * 2)})
    examples = list(ds)
    assert len(ds) == len(examples) == 10
    assert examples[3]["x"].tolist() == [9.0, 10.0, 11.0]
    assert examples[3]["y"][1] == 6 and isinstance(examples[3]["y"][0], np.ndarray)
    assert tp.data.Dataset.from_tensor_slices(X).batch(4).batch_size == 4


@pytest.mark.parametrize("drop_remainder, sizes", [(False, [4, 4, 2]), (True, [4, 4])])
def test_batches_stack_examples_in_order(drop_remainder, sizes):
    ds = tp.data.Dataset((X, Y)).batch(4, drop_remainder=drop_remainder)
    got = list(ds)
    assert len(ds) == len(got) == len(sizes)
    assert [len(yb) for _, yb in got] == sizes
    np.testing.assert_array_equal(np.concatenate([xb for xb, _ in got]), X[: sum(sizes)])
    assert all(isinstance(xb, np.ndarray) and xb.dtype == X.dtype for xb, _ in got)


def test_shuffled_passes_are_permutations_reproducible_by_pass_number():
    ds = tp.data.Dataset((X, Y)).shuffle(seed=7).batch(3)
    first, second = rows(ds), rows(ds)
    assert first != second  # reshuffled each pass
    for labels in (first, second):
        assert sorted(sum(labels, [])) == list(range(10))
    assert rows(ds.iterate(0)) == first and rows(ds.iterate(1)) == second
    again = tp.data.Dataset((X, Y)).shuffle(seed=7).batch(3)  # a new object starts at pass 0
    assert rows(again) == first
    expected = np.random.default_rng((7, 1)).permutation(10)
    assert sum(second, []) == expected.tolist()
    for xb, yb in tp.data.Dataset((X, Y)).shuffle(seed=7).batch(3):  # leaves stay aligned
        np.testing.assert_array_equal(xb, X[yb])


def test_shuffle_without_reshuffling_repeats_pass_0():
    ds = tp.data.Dataset(Y).shuffle(3, reshuffle_each_iteration=False)
    assert [int(v) for v in ds] == [int(v) for v in ds] != list(range(10))


def test_the_index_path_is_one_fancy_index_per_leaf_per_batch(monkeypatch):
    calls = []

    class Counting(np.ndarray):
        def __getitem__(self, key):
            calls.append(key)
            return np.asarray(self).__getitem__(key)

    ds = tp.data.Dataset((X, Y)).shuffle(0).batch(4)
    ds._leaves = [leaf.view(Counting) for leaf in ds._leaves]
    list(ds)
    assert len(calls) == 2 * 3 and all(isinstance(key, np.ndarray) for key in calls)


def test_map_before_batch_sees_examples_after_it_batches():
    seen = []

    def per_example(e):
        seen.append(e[0].shape)
        return {"x": e[0] * 10, "y": e[1]}

    ds = tp.data.Dataset((X, Y)).map(per_example).shuffle(1).batch(4)
    for b in ds:
        np.testing.assert_array_equal(b["x"], X[b["y"]] * 10)
    assert set(seen) == {(3,)}
    doubled = tp.data.Dataset((X, Y)).batch(4).map(lambda b: (b[0].sum(axis=1), b[1]))
    assert [xb.shape for xb, _ in doubled] == [(4,), (4,), (2,)]


def test_map_is_lazy_and_applied_only_to_elements_taken():
    calls = []
    ds = tp.data.Dataset(Y).batch(2).map(lambda b: calls.append(1) or b).take(2)
    assert len(list(ds)) == 2 and len(calls) == 2


def test_map_may_return_tensors_which_come_back_as_numpy(backend):
    ds = tp.data.Dataset(tp.asarray(X)).batch(5).map(lambda b: tp.exp(tp.asarray(b)))
    got = list(ds)
    assert all(type(b) is np.ndarray for b in got)
    np.testing.assert_allclose(np.concatenate(got), np.exp(X), rtol=1e-6)


def test_tensor_leaves_are_stored_as_numpy(backend):
    ds = tp.data.batches({"x": tp.asarray(X.astype(np.float32)), "y": Y}, 4, shuffle_seed=2)
    for b in ds:
        assert type(b["x"]) is np.ndarray
        np.testing.assert_array_equal(b["x"], X[b["y"]].astype(np.float32))


def test_batches_is_shuffle_then_batch():
    one = tp.data.batches((X, Y), 3, shuffle_seed=5, drop_remainder=True)
    two = tp.data.Dataset((X, Y)).shuffle(5).batch(3, drop_remainder=True)
    assert rows(one) == rows(two) and len(one) == 3
    assert rows(tp.data.batches((X, Y), 3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]


def test_take_and_repeat():
    assert [v.tolist() for v in tp.data.Dataset(Y).repeat(2).batch(4)] == [
        [0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1], [2, 3, 4, 5], [6, 7, 8, 9]]
    assert len(tp.data.Dataset(Y).repeat(3)) == 30 and len(tp.data.Dataset(Y).take(4)) == 4
    endless = tp.data.Dataset(Y).repeat().batch(4).take(4)
    assert len(endless) == 4 and [len(b) for b in endless] == [4, 4, 4, 4]
    # the passes a repeat runs are numbered: pass k of repeat(2) is passes 2k and 2k+1
    shuffled = tp.data.Dataset(Y).shuffle(0)
    expected = [int(v) for v in shuffled.iterate(2)] + [int(v) for v in shuffled.iterate(3)]
    assert [int(v) for v in shuffled.repeat(2).iterate(1)] == expected
    assert list(tp.data.Dataset(Y).take(0)) == [] and list(tp.data.Dataset(Y).take(0).repeat()) == []


def test_endless_datasets_have_no_length_and_cannot_be_shuffled():
    endless = tp.data.Dataset(Y).repeat()
    with pytest.raises(tp.ArgumentError, match=r"len\(tp.data.Dataset\): .*repeats endlessly.*take\(n\)"):
        len(endless)
    with pytest.raises(tp.ArgumentError, match=r"shuffle: .*repeats endlessly.*shuffle before repeat"):
        endless.shuffle(0)


@pytest.mark.parametrize("call, error, message", [
    (lambda: tp.data.Dataset({"a": X, "b": Y[:7]}), tp.ShapeError,
     r"tp.data.Dataset: the leaves have different lengths along axis 0 \(\['a'\]: 10, \['b'\]: 7\)"),
    (lambda: tp.data.Dataset.from_tensor_slices((X, 3.0)), tp.ShapeError,
     r"from_tensor_slices: leaf \[1\] is 3.0, a 0-d value"),
    (lambda: tp.data.Dataset({}), tp.ArgumentError, r"tp.data.Dataset: the tree \{\} has no leaves"),
    (lambda: tp.data.Dataset(Y).batch(0), tp.ShapeError, r"Dataset.batch: batch_size must be >= 1, got 0"),
    (lambda: tp.data.Dataset(Y).batch(2.0), tp.ArgumentError, r"Dataset.batch: batch_size must be an int"),
    (lambda: tp.data.Dataset(Y).batch(2, drop_remainder="yes"), tp.ArgumentError, r"drop_remainder must be"),
    (lambda: tp.data.Dataset(Y).batch(2).batch(2), tp.ArgumentError, r"batched already \(batch_size=2\)"),
    (lambda: tp.data.Dataset(Y).shuffle(0.5), tp.ArgumentError, r"shuffle: seed must be an int, got 0.5"),
    (lambda: tp.data.Dataset(Y).shuffle(-1), tp.ShapeError, r"Dataset.shuffle: seed must be >= 0"),
    (lambda: tp.data.Dataset(Y).map(3), tp.ArgumentError, r"Dataset.map: fn must be a function"),
    (lambda: tp.data.Dataset(Y).take(-1), tp.ShapeError, r"Dataset.take: count must be >= 0"),
    (lambda: tp.data.Dataset(Y).batch(11, drop_remainder=True), tp.ShapeError,
     r"Dataset.batch: batch_size=11 with drop_remainder=True leaves no batch of the 10 examples.*"
     r"batch_size <= 10 or drop_remainder=False"),
    (lambda: tp.data.Dataset(np.zeros((0, 2))).batch(4), tp.ShapeError,
     r"leaves no batch of the 0 examples of a pass; give a non-empty dataset"),
    (lambda: tp.data.batches((X, Y), 0), tp.ShapeError, r"tp.data.Dataset.batch: batch_size must be >= 1"),
    (lambda: tp.data.batches((X, Y[:3]), 2), tp.ShapeError, r"tp.data.batches: the leaves have different"),
])
def test_bad_arguments_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_map_returning_unstackable_examples_is_a_shape_error():
    ds = tp.data.Dataset(Y).map(lambda e: np.zeros(int(e))).batch(3)
    with pytest.raises(tp.ShapeError, match=r"batch: the examples the function given to map .* one shape"):
        list(ds)


# -- as_batches: what fit takes --------------------------------------------------------------

def test_as_batches_of_arrays_and_of_datasets():
    assert rows(tp.data.as_batches((X, Y), batch_size=4)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(tp.data.as_batches(X)) == 1  # the default batch size, 32
    batched = tp.data.Dataset((X, Y)).batch(2)
    assert tp.data.as_batches(batched) is batched and tp.data.as_batches(batched, 2) is batched
    assert tp.data.as_batches(tp.data.Dataset(Y), 5).batch_size == 5


def test_as_batches_shuffles_arrays_with_a_seed_and_leaves_datasets_as_they_are():
    shuffled = tp.data.as_batches((X, Y), 4, shuffle_seed=3)
    first, second = rows(shuffled), rows(shuffled)  # (made once, iterated each epoch: reshuffled)
    assert first == rows(tp.data.batches((X, Y), 4, shuffle_seed=3)) and first != second
    assert first != rows(tp.data.as_batches((X, Y), 4))
    batched = tp.data.Dataset((X, Y)).batch(4)
    assert tp.data.as_batches(batched, shuffle_seed=3) is batched


def test_none_stays_none_in_every_batch():
    got = list(tp.data.as_batches((X, None, {"w": Y}), batch_size=6))
    shapes = [(xb.shape, yb, wb["w"].shape) for xb, yb, wb in got]
    assert shapes == [((6, 3), None, (6,)), ((4, 3), None, (4,))]


def test_as_batches_takes_any_iterable_of_batches_as_it_is():
    def generator():
        yield X[:2], Y[:2]

    made = generator()
    assert tp.data.as_batches(made) is made


@pytest.mark.parametrize("data, batch_size, error, message", [
    (3, None, tp.ArgumentError, r"tp.data.as_batches: got 3; give a tp.data.Dataset, an iterable of batches"),
    ("xy", None, tp.ArgumentError, r"as_batches: got 'xy'"),
    (iter([(X, Y)]), 4, tp.ArgumentError, r"as_batches: batch_size=4 was given with .*leave batch_size out"),
    (tp.data.Dataset(Y).batch(2), 3, tp.ArgumentError, r"batch_size=3 was given for a Dataset batched"),
    ([(X[:4], Y[:4]), (X[4:], Y[4:])], None, tp.ShapeError, r"different lengths.*pass iter\(batches\)"),
    ((X, Y), 0, tp.ShapeError, r"tp.data.as_batches: batch_size must be >= 1, got 0"),
    ({"x": X, "y": Y[:4]}, None, tp.ShapeError, r"as_batches: the leaves have different .*of one length\.$"),
])
def test_as_batches_errors(data, batch_size, error, message):
    with pytest.raises(error, match=message):
        tp.data.as_batches(data, batch_size)
    with pytest.raises(tp.ArgumentError, match=r"as_batches: shuffle_seed must be an int, got 'a'"):
        tp.data.as_batches((X, Y), 4, shuffle_seed="a")
