"""Control flow's errors (issue 34): raised when the functions are traced, naming the primitive,
the branch or the carry's path, what was expected and what was given."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

X = np.array([1.0, 2.0, 3.0], dtype=np.float32)


def test_branches_of_different_shapes_name_the_branch_and_the_path():
    with pytest.raises(tp.ShapeError, match=r"tp\.cond: true_fun's output at \[1\] is float32\[2\], but "
                                            r"false_fun's output is float32\[3\] there"):
        tp.cond(True, lambda x: (x, x[:2]), lambda x: (x, x), X)
    with pytest.raises(tp.DTypeError, match=r"tp\.switch: branch 1's output at \['y'\] is int32\[3\], but "
                                            r"branch 0's output is float32\[3\]"):
        tp.switch(1, [lambda x: {"y": x}, lambda x: {"y": x.astype(tp.int32)}], X)
    with pytest.raises(tp.ShapeError, match=r"tp\.cond: true_fun's output has the structure"):
        tp.cond(True, lambda x: (x, x), lambda x: x, X)


def test_a_scan_whose_carry_changes_shape_names_the_carry_path():
    with pytest.raises(tp.ShapeError, match=r"tp\.scan: the carry f returns at \['h'\] is float32\[4\], but "
                                            r"init is float32\[3\] there"):
        tp.scan(lambda c, x: ({"h": tp.concat([c["h"], x[None]])[:4]}, x), {"h": tp.asarray(X)},
                tp.asarray(X))
    with pytest.raises(tp.ArgumentError, match=r"tp\.scan: f must return a pair \(carry, y\)"):
        tp.scan(lambda c, x: c, tp.asarray(X), tp.asarray(X))
    with pytest.raises(tp.ShapeError, match=r"tp\.scan: the leaves of xs .* must agree on the length along "
                                            r"axis 0; got \[2, 3\]"):
        tp.scan(lambda c, x: (c, x), 0.0, (tp.ones(3), tp.ones(2)))
    with pytest.raises(tp.ArgumentError, match=r"tp\.scan: with no xs, give length"):
        tp.scan(lambda c, x: (c, c), 0.0, None)


def test_a_while_loop_body_that_changes_the_carry_and_a_cond_that_is_not_a_bool():
    with pytest.raises(tp.ShapeError, match=r"tp\.while_loop: body_fun's output at \[1\] is float32\[6\], "
                                            r"but init_val is float32\[3\] there"):
        tp.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, tp.concat([c[1], c[1]])), (0, tp.asarray(X)))
    with pytest.raises(tp.DTypeError, match=r"tp\.while_loop: cond_fun must return a boolean scalar, it "
                                            r"returns float32\[3\]"):
        tp.while_loop(lambda c: c * 2, lambda c: c, tp.asarray(X))


def test_a_while_loop_under_grad_says_to_use_fori_loop_or_scan():
    def f(x):
        return tp.sum(tp.while_loop(lambda c: tp.sum(c) < 100.0, lambda c: c * 2.0, x))

    with pytest.raises(tp.AutodiffError, match=r"tp\.while_loop is not reverse-differentiable .* Use "
                                               r"tp\.fori_loop with Python int bounds .* or tp\.scan"):
        tp.grad(f)(tp.asarray(X))
    out, tangent = tp.jvp(f, (tp.asarray(X),), (tp.ones(3),))  # forward mode works through it
    assert (float(out), float(tangent)) == (192.0, 96.0)  # (x doubled 5 times: x * 32)


def test_reading_a_traced_value_inside_a_branch_names_the_primitive():
    with pytest.raises(tp.TracedValueError, match=r"tp\.cond \(true_fun\): the function reads the value of "
                                                  r"a tensor .* Use ops instead of Python control flow"):
        tp.cond(True, lambda x: x * float(tp.sum(x)), lambda x: x, X)
    with pytest.raises(tp.TracedValueError, match=r"tp\.scan \(f\): kernel 'NonZero' gives an output whose "
                                                  r"length depends on the values"):
        tp.scan(lambda c, x: (c, tp.nonzero(x)[0]), 0, tp.ones((2, 3)))


def test_bad_predicates_indices_and_functions():
    with pytest.raises(tp.ShapeError, match=r"tp\.cond: pred must be a scalar, got shape \(3,\); to choose "
                                            r"elementwise, use tp\.where"):
        tp.cond(tp.asarray(X) > 1, lambda x: x, lambda x: x, X)
    with pytest.raises(tp.DTypeError, match=r"tp\.switch: index must be an integer scalar, got float32\[\]"):
        tp.switch(1.5, [lambda x: x], X)
    with pytest.raises(tp.ArgumentError, match=r"tp\.cond: true_fun must be a function, got int"):
        tp.cond(True, 3, lambda x: x, X)
    with pytest.raises(tp.ArgumentError, match=r"tp\.switch: branches must be a non-empty list"):
        tp.switch(0, [], X)
    with pytest.raises(tp.DTypeError, match=r"tp\.fori_loop: lower must be an integer scalar"):
        tp.fori_loop(tp.asarray(0.5), 3, lambda i, v: v, X)


def test_run_kernel_holds_a_cond_call_to_its_branches():
    """The public run_kernel path checks the operands against what the branches take."""
    graph = tp.extend.Graph
    assert graph.__name__ == "Graph"
    with pytest.raises(tp.DTypeError, match=r"kernel 'Cond': attribute 'branches'=.* is invalid: expected a "
                                            r"non-empty tuple of Graphs"):
        tp.run_kernel("Cond", [np.int32(0), X], {"branches": ()})


def test_the_index_is_clamped_and_a_python_number_carry_takes_the_bodys_dtype():
    assert tp.switch(-4, [lambda: tp.asarray(0), lambda: tp.asarray(1)]).item() == 0
    assert tp.switch(9, [lambda: tp.asarray(0), lambda: tp.asarray(1)]).item() == 1
    total, _ = tp.scan(lambda c, x: (c + x, None), 0.0, tp.asarray(X.astype(np.float64)))
    assert total.dtype == tp.float64 and total.item() == 6.0  # (as jax promotes a weakly typed init)
    assert tp.fori_loop(0, 0, lambda i, v: v + 1.0, tp.asarray(X)).numpy().tolist() == X.tolist()
