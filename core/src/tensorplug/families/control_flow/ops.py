"""Structured control flow, with JAX's names and semantics: ``tp.cond``, ``tp.switch``,
``tp.while_loop``, ``tp.fori_loop`` and ``tp.scan``, over pytrees of tensors. Each traces its
functions into graphs (``tracing.py``) and runs one control-flow kernel (Cond, While, Scan), so
it works eagerly, under every transform and under tp.jit, on every backend; tensors the
functions close over are passed to the kernel as inputs of their own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.context import recorders_var
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import int32
from tensorplug.errors import ArgumentError, AutodiffError, DTypeError, ShapeError
from tensorplug.families._common.convert import asarray, astype
from tensorplug.families.control_flow.graphs import Graph
from tensorplug.families.control_flow.spec import COND, SCAN, WHILE
from tensorplug.families.control_flow.tracing import Captures, Traced, graph_of, trace
from tensorplug.families.elementwise.ops import not_equal
from tensorplug.kernels.dispatcher import dispatcher_of
from tensorplug.kernels.kernel_spec import KernelSpec, TensorInfo, describe, tensor_info
from tensorplug.transforms.autodiff.tape import Tape
from tensorplug.tree_util import PyTreeDef, keystr, tree_flatten, tree_flatten_with_path, tree_unflatten

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan"]


def _leaves(tree: Any, op: str, what: str) -> tuple[list[Tensor], PyTreeDef, list[bool]]:
    """The leaves of `tree` as tensors (numbers and arrays converted), its structure, and which
    leaves were Python numbers (weakly typed, as JAX calls them)."""
    leaves, structure = tree_flatten(tree)
    try:
        tensors = [asarray(leaf) for leaf in leaves]
    except Exception as exc:
        raise ArgumentError(f"{op}: {what} must be a tree of tensors (or numbers and arrays), "
                            f"got a leaf of type {type(exc).__name__}: {exc}") from exc
    return tensors, structure, [isinstance(leaf, (bool, int, float, complex)) for leaf in leaves]


def _weak_promoted(carry: list[Tensor], weak: list[bool], given: Sequence[TensorInfo],
                   returned: Sequence[TensorInfo]) -> bool:
    """Cast, in place, each carry leaf that came from a Python number (weakly typed, as in JAX)
    to the dtype the body returns for it, where they differ; whether any was."""
    changed = False
    for k, (w, a, b) in enumerate(zip(weak, given, returned)):
        if w and a.dtype is not b.dtype and tuple(a.shape) == tuple(b.shape):
            carry[k] = astype(carry[k], b.dtype)
            changed = True
    return changed


def _paths(tree: PyTreeDef) -> list[str]:
    """The path of each leaf of a tree of structure `tree`, as ``['h'][0]``."""
    paths, _, _ = tree_flatten_with_path(tree_unflatten(tree, range(tree.num_leaves)))
    return [keystr(p) or "(the value itself)" for p in paths]


def _same(op: str, what: str, tree: PyTreeDef, infos: Sequence[TensorInfo],
          expected_tree: PyTreeDef, expected: Sequence[TensorInfo], expected_what: str) -> None:
    """Raise naming `op` and the leaf's path unless `tree`/`infos` match the expected ones."""
    if tree != expected_tree:
        raise ShapeError(f"{op}: {what} has the structure {tree}, but {expected_what} has {expected_tree}; "
                         "they must be the same tree.")
    for path, got, want in zip(_paths(tree), infos, expected):
        if tuple(got.shape) != tuple(want.shape) or got.dtype is not want.dtype:
            error = ShapeError if tuple(got.shape) != tuple(want.shape) else DTypeError
            raise error(f"{op}: {what} at {path} is {describe(got)}, but {expected_what} is "
                        f"{describe(want)} there; make them agree (cast with .astype, or fix the shape).")


def _function(f: Any, op: str, name: str) -> Callable[..., Any]:
    if not callable(f):
        raise ArgumentError(f"{op}: {name} must be a function, got {type(f).__name__}.")
    return f


def _run(spec: KernelSpec, inputs: Sequence[Tensor], attrs: dict[str, Any]) -> tuple[Tensor, ...]:
    out = dispatcher_of(spec.name)(list(inputs), spec.normalize_attrs(attrs))
    return (out,) if isinstance(out, Tensor) else tuple(out)


# -- cond and switch --------------------------------------------------------------------------
def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """``branches[index](*operands)``, as ``jax.lax.switch``: `index` an integer scalar (clamped
    into range), every branch traced and giving a tree of one structure, shapes and dtypes."""
    op = "tp.switch"
    if not isinstance(branches, Sequence) or isinstance(branches, (str, bytes)) or not branches:
        raise ArgumentError(f"{op}: branches must be a non-empty list of functions, got "
                            f"{valid.shown(branches)}.")
    funcs = [_function(b, op, f"branches[{k}]") for k, b in enumerate(branches)]
    i = asarray(index)
    if i.shape != () or not (i.dtype.is_integer or i.dtype.is_bool):
        raise DTypeError(f"{op}: index must be an integer scalar, got {describe(tensor_info(i))}.")
    # (the kernel clamps the index into range, as lax.switch does)
    return _branches(op, astype(i, int32), funcs, operands, [f"branch {k}" for k in range(len(funcs))])


def cond(pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any], *operands: Any) -> Any:
    """``true_fun(*operands)`` if `pred` else ``false_fun(*operands)``, as ``jax.lax.cond``:
    `pred` a boolean (or number) scalar; both functions traced, and giving a tree of one
    structure, shapes and dtypes. For an elementwise choice, ``tp.where``."""
    op = "tp.cond"
    funcs = [_function(false_fun, op, "false_fun"), _function(true_fun, op, "true_fun")]
    p = asarray(pred)
    if p.shape != ():
        raise ShapeError(f"{op}: pred must be a scalar, got shape {p.shape}; to choose elementwise, "
                         "use tp.where(pred, x, y).")
    if not p.dtype.is_bool:
        if p.dtype.is_complex:
            raise DTypeError(f"{op}: pred must be a boolean (or real number) scalar, got {p.dtype.name}.")
        p = not_equal(p, 0)
    return _branches(op, astype(p, int32), funcs, operands, ["false_fun", "true_fun"])


def _branches(op: str, index: Tensor, funcs: list[Callable[..., Any]], operands: Sequence[Any],
              names: list[str]) -> Any:
    leaves, tree, _ = _leaves(tuple(operands), op, "the operands")
    infos = [tensor_info(t) for t in leaves]
    captures = Captures()
    traced: list[Traced] = []
    for f, name in zip(funcs, names):
        traced.append(trace(lambda *xs, f=f: f(*tree_unflatten(tree, xs)), infos, f"{op} ({name})", captures))
    first = traced[0]
    for t, name in zip(traced[1:], names[1:]):
        _same(op, f"{name}'s output", t.tree, t.out_infos, first.tree, first.out_infos,
              f"{names[0]}'s output")
    graphs = tuple(graph_of(t, captures) for t in traced)
    out = _run(COND, [index, *leaves, *captures.tensors], {"branches": graphs})
    return tree_unflatten(first.tree, out)


# -- loops ----------------------------------------------------------------------------------------
def _refuse_reverse_mode(op: str, inputs: Sequence[Tensor]) -> None:
    """AutodiffError if a tape (tp.grad, tp.vjp) watches one of `inputs`: a while loop's trip
    count is known only when it runs, so reverse mode cannot go back through it (as in JAX)."""
    for recorder in recorders_var.get():
        if isinstance(recorder, Tape) and any(id(t) in recorder.watched for t in inputs):
            raise AutodiffError(
                f"{op} is not reverse-differentiable (tp.grad, tp.vjp): its trip count is known only "
                "when it runs, as in JAX. Use tp.fori_loop with Python int bounds (a tp.scan), or "
                "tp.scan with a fixed length; forward mode (tp.jvp) works through it.")


def while_loop(cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any) -> Any:
    """Repeat ``val = body_fun(val)`` while ``cond_fun(val)``, from `init_val`; the last `val`
    (``jax.lax.while_loop``). `body_fun` keeps the structure, shapes and dtypes of `init_val`;
    `cond_fun` gives a boolean scalar. Forward mode only (tp.grad refuses it: use fori_loop or
    scan)."""
    op = "tp.while_loop"
    cond_f, body_f = _function(cond_fun, op, "cond_fun"), _function(body_fun, op, "body_fun")
    leaves, tree, weak = _leaves(init_val, op, "init_val")
    for attempt in range(2):  # (once more with the carry's Python numbers of the body's dtypes)
        infos = [tensor_info(t) for t in leaves]
        captures = Captures()
        c = trace(lambda *xs: cond_f(tree_unflatten(tree, xs)), infos, f"{op} (cond_fun)", captures)
        b = trace(lambda *xs: body_f(tree_unflatten(tree, xs)), infos, f"{op} (body_fun)", captures)
        if attempt or b.tree != tree or not _weak_promoted(leaves, weak, infos, b.out_infos):
            break
    if len(c.results) != 1 or c.out_infos[0].shape != () or not c.out_infos[0].dtype.is_bool:
        got = ", ".join(describe(i) for i in c.out_infos) or "nothing"
        raise DTypeError(f"{op}: cond_fun must return a boolean scalar, it returns {got}.")
    _same(op, "body_fun's output", b.tree, b.out_infos, tree, infos, "init_val")
    consts = captures.tensors
    _refuse_reverse_mode(op, [*consts, *leaves])
    # (the graphs take the captured tensors first: as the kernel's consts)
    cond_g = _consts_first(graph_of(c, captures), len(leaves))
    body_g = _consts_first(graph_of(b, captures), len(leaves))
    out = _run(WHILE, [*consts, *leaves], {"cond": cond_g, "body": body_g, "n_consts": len(consts)})
    return tree_unflatten(tree, out)


def _consts_first(graph: Graph, n_arguments: int) -> Graph:
    """`graph` with its inputs reordered: the captured tensors (after its `n_arguments`) first."""
    inputs = graph.inputs[n_arguments:] + graph.inputs[:n_arguments]
    return Graph(inputs, graph.constants, graph.steps, graph.outputs, graph.infos)


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    """``val = body_fun(i, val)`` for i from `lower` to `upper` (excluded), from `init_val`
    (``jax.lax.fori_loop``). With Python int bounds it is a ``tp.scan`` (reverse-differentiable);
    with tensor bounds a ``tp.while_loop`` (forward mode only)."""
    op = "tp.fori_loop"
    body_f = _function(body_fun, op, "body_fun")
    if isinstance(lower, int) and isinstance(upper, int) and not isinstance(lower, bool) \
            and not isinstance(upper, bool):
        def step(carry: Any, _: Any) -> Any:
            i, val = carry
            return (i + 1, body_f(i, val)), None
        (_, val), _ = scan(step, (asarray(lower), init_val), None, length=max(upper - lower, 0))
        return val
    lo, hi = asarray(lower), asarray(upper)
    for name, t in (("lower", lo), ("upper", hi)):
        if t.shape != () or not t.dtype.is_integer:
            raise DTypeError(f"{op}: {name} must be an integer scalar, got {describe(tensor_info(t))}.")
    hi = astype(hi, lo.dtype)

    def body(carry: Any) -> Any:
        i, stop, val = carry
        return i + 1, stop, body_f(i, val)

    _, _, val = while_loop(lambda carry: carry[0] < carry[1], body, (lo, hi, init_val))
    return val


def scan(f: Callable[[Any, Any], Any], init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False) -> tuple[Any, Any]:
    """``jax.lax.scan``: ``carry, y = f(carry, x)`` for each slice x of `xs` along axis 0 (from
    the last if `reverse`), from `init`; returns the last carry and the ys stacked. `xs` may be
    None (then `length` gives the number of steps); `f` keeps the carry's structure, shapes and
    dtypes."""
    op = "tp.scan"
    body_f = _function(f, op, "f")
    reverse = valid.flag(reverse, op, "reverse")
    carry, carry_tree, weak = _leaves(init, op, "init")
    xs_leaves, xs_tree, _ = _leaves(xs, op, "xs")
    n = _length(op, xs_leaves, length)
    slice_infos = [TensorInfo(tuple(x.shape[1:]), x._dtype) for x in xs_leaves]
    n_carry = len(carry)

    def body(*values: Tensor) -> Any:
        c = tree_unflatten(carry_tree, values[:n_carry])
        out = body_f(c, tree_unflatten(xs_tree, values[n_carry:]))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise ArgumentError(f"{op}: f must return a pair (carry, y), got {valid.shown(out)}.")
        return tuple(out)

    for attempt in range(2):  # (once more with the carry's Python numbers of the body's dtypes)
        carry_infos = [tensor_info(t) for t in carry]
        captures = Captures()
        traced = trace(body, [*carry_infos, *slice_infos], f"{op} (f)", captures)
        new_carry, ys_tree = _pair_trees(traced.tree)
        new_infos = traced.out_infos[:new_carry.num_leaves]
        if attempt or new_carry != carry_tree or not _weak_promoted(carry, weak, carry_infos, new_infos):
            break
    _same(op, "the carry f returns", new_carry, new_infos, carry_tree, carry_infos, "init")
    consts = captures.tensors
    graph = _consts_first(graph_of(traced, captures), n_carry + len(xs_leaves))
    inputs = [*consts, *carry, *xs_leaves]
    dummy = not inputs  # (a kernel takes at least one input: give it an unused int32 carry)
    if dummy:
        graph = _with_unused_input(graph)
        inputs = [asarray(0, dtype=int32)]
        n_carry = 1
    out = _run(SCAN, inputs, {"body": graph, "n_consts": len(consts), "n_carry": n_carry, "length": n,
                                "reverse": reverse})
    if dummy:
        out = out[1:]
        n_carry = 0
    return tree_unflatten(carry_tree, out[:n_carry]), tree_unflatten(ys_tree, out[n_carry:])


def _length(op: str, xs: Sequence[Tensor], length: Any) -> int:
    if any(not x.shape for x in xs):
        raise ShapeError(f"{op}: every leaf of xs needs a leading axis to scan over; got a 0-d one.")
    lengths = {x.shape[0] for x in xs}
    if length is not None:
        length = valid.integer(length, op, "length")
        if length < 0:
            raise ShapeError(f"{op}: length must be >= 0, got {length}.")
        lengths.add(length)
    if len(lengths) > 1:
        raise ShapeError(f"{op}: the leaves of xs (and length, if given) must agree on the length along "
                         f"axis 0; got {sorted(lengths)}.")
    if not lengths:
        raise ArgumentError(f"{op}: with no xs, give length (the number of steps).")
    return int(next(iter(lengths)))


def _pair_trees(tree: PyTreeDef) -> tuple[PyTreeDef, PyTreeDef]:
    """The structures of the carry and of y in the structure of f's ``(carry, y)`` result."""
    pair = tree_unflatten(tree, range(tree.num_leaves))
    return tree_flatten(pair[0])[1], tree_flatten(pair[1])[1]


def _with_unused_input(graph: Graph) -> Graph:
    """`graph` with one more input first, an int32 scalar it passes through as its first output."""
    number = max(graph.infos, default=-1) + 1
    infos = dict(graph.infos)
    infos[number] = TensorInfo((), int32)
    return Graph((number, *graph.inputs), graph.constants, graph.steps, (number, *graph.outputs), infos)
