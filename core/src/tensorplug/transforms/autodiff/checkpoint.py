"""``tp.checkpoint``: rematerialization. A checkpointed function keeps none of its intermediates
for the backward pass and recomputes them there (``jax.checkpoint``,
``torch.utils.checkpoint.checkpoint``).

While the autodiff tapes record, ``f`` runs with them suspended (other recorders, such as
profiles, kernel counters and tp.jit's planner, go on recording), and every tape gets one entry
linking f's tensor inputs to its outputs. That entry's gradient runs ``f`` again under a tape of
its own and backpropagates through it; it is written with ops, so a tape recording the backward
pass records it (higher-order gradients through a checkpoint are exact).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.context import CustomRule, push_recorder, record_custom, recorders_var, remove_recorder
from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError
from tensorplug.families._common.convert import asarray
from tensorplug.families.creation.ops import zeros_like
from tensorplug.kernels.dispatcher import wrap
from tensorplug.transforms.autodiff.forward import JvpRecorder
from tensorplug.transforms.autodiff.tape import Tape, backward, fresh
from tensorplug.tree_util import tree_flatten, tree_unflatten

__all__ = ["checkpoint"]


class _Captures(Tape):
    """The tape standing in for the suspended tapes while a checkpointed function runs. It
    records no entry: it collects the tensors the function's ops read that a suspended tape
    watches, or that have a tangent on a suspended forward-mode recorder, but that were not
    passed as arguments (closed over: weights, Variables, values computed before), and those
    it returns as they are. Being a Tape, it keeps what asks whether a tape records (tp.jit
    runs eagerly, a nested checkpoint suspends it) as it was."""

    __slots__ = ("known", "found", "forward")

    def __init__(self, tapes: Sequence[Tape], forward: Sequence[JvpRecorder],
                 arguments: Sequence[Tensor]) -> None:
        super().__init__(())
        # (read only here: one tape's set is shared, not copied)
        self.watched = tapes[0].watched if len(tapes) == 1 else set().union(*(t.watched for t in tapes))
        self.forward = forward
        self.known = {id(t) for t in arguments}
        self.found: list[Tensor] = []

    def record(self, name: str, inputs: tuple[Tensor, ...], attrs: Any, outputs: tuple[Tensor, ...],
               custom: Any = None, start: int = 0, direct: Any = None) -> None:
        self.note(inputs)

    def note(self, tensors: Sequence[Tensor]) -> None:
        watched, known = self.watched, self.known
        for t in tensors:
            key = id(t)
            if key not in known and (key in watched
                                     or any(r.tangent_of(t) is not None for r in self.forward)):
                known.add(key)
                self.found.append(t)


def checkpoint(f: Callable[..., Any]) -> Callable[..., Any]:
    """A function like `f` whose forward pass saves none of f's intermediates for the gradient:
    the backward pass runs `f` again to recompute them (less memory, one more forward pass).

    Arguments may be pytrees (lists, tuples, dicts) of tensors; other values pass through, and
    tensors `f` reads from its closure (weights, Variables) get gradients too. `f` may return a
    pytree of tensors. `f` must compute the same thing when it runs again: its randomness comes
    from explicit seeds, and it should not assign Variables (an assignment would happen again
    in the backward pass, and the recomputation reads Variables as they are then). Values and
    gradients are those of `f`, eagerly and under ``tp.jit`` (bit for bit on the numpy backend
    unless an argument is also used outside, whose gradient parts are then summed in another
    order). The numpy backend's plans replay the recomputation as eager code runs it; under
    jax's compiler XLA may merge it with the forward pass (there is no ``prevent_cse`` option),
    which then saves neither time nor memory.

    ```python
    def block(h, layers):  # a block of layers whose activations are not kept
        for w, b in layers:
            h = tp.tanh(h @ w + b)
        return h

    def loss(params, x):
        for i in range(0, len(params), 4):
            x = tp.checkpoint(block)(x, params[i:i + 4])
        return tp.mean(x * x)

    params = [(tp.ones((8, 8)) * 0.1, tp.zeros(8)) for _ in range(8)]
    grads = tp.grad(loss)(params, tp.ones((2, 8)))  # each block runs twice
    ```
    """
    valid.function(f, "checkpoint")
    name = f"checkpoint({getattr(f, '__name__', 'f')})"

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        recorders = recorders_var.get()
        tapes = [r for r in recorders if isinstance(r, Tape)]
        if not tapes:  # nothing is differentiated: nothing to save or recompute
            return f(*args, **kwargs)
        leaves, structure = tree_flatten((args, kwargs))
        arguments = [x for x in leaves if isinstance(x, Tensor)]
        forward = [r for r in recorders if isinstance(r, JvpRecorder)]
        captures = _Captures(tapes, forward, arguments)
        # (forward mode does not look inside either: the entry's jvp runs f again, like its gradient)
        kept = tuple(r for r in recorders if not isinstance(r, (Tape, JvpRecorder)))
        token = recorders_var.set(kept + (captures,))
        try:
            result = f(*args, **kwargs)
        finally:
            recorders_var.reset(token)
        out_leaves, out_structure = tree_flatten(result)
        computed = [x for x in out_leaves if isinstance(x, Tensor)]
        captures.note(computed)
        captured = captures.found
        if not computed:
            return result
        outputs = tuple(wrap(t._data, t._backend, t._dtype) for t in computed)
        inputs = tuple(arguments + captured)
        expected = [(t.shape, t._dtype) for t in computed]

        def gradient(dy: Any) -> list[Tensor | None]:
            upstream = dy if len(outputs) > 1 else (dy,)
            return _recompute_and_backward(f, name, leaves, structure, captured, expected, upstream)

        def tangents(ts: tuple[Tensor, ...]) -> Any:
            found = _recompute_forward(f, leaves, structure, arguments, captured, ts)
            return found[0] if len(found) == 1 else tuple(found)

        record_custom(name, inputs, outputs, gradient, tangents)
        it = iter(outputs)
        return tree_unflatten(out_structure, [next(it) if isinstance(x, Tensor) else x for x in out_leaves])

    return wrapper


def _recompute_and_backward(f: Callable[..., Any], name: str, leaves: list[Any], structure: Any,
                            captured: list[Tensor], expected: list[tuple[Any, Any]],
                            upstream: Sequence[Tensor]) -> list[Tensor | None]:
    """The checkpoint entry's gradients, one per input (the tensor arguments, then the captured
    tensors): `f` run again under a tape of its own on the same values, and `upstream`
    backpropagated through it. Arguments are linked to fresh tensors (so that one passed twice
    gets each position's gradient) of the active backend: when the gradient runs under a vmap
    opened after the forward pass (jacrev, hessian), the link is then made at the batching
    level, whose ops the tapes outside see (one made beneath it would be seen by none, and a
    gradient of this gradient would be zero). Captured tensors are watched as they are."""
    new_leaves = [fresh(asarray(x)) if isinstance(x, Tensor) and x._dtype.is_inexact else x for x in leaves]
    sources = [x for x in new_leaves if isinstance(x, Tensor)] + captured
    differentiable = [s for s in sources if s._dtype.is_inexact]
    tape = Tape(differentiable)
    outs = _run_recorded(f, structure, new_leaves, tape)
    if [(t.shape, t._dtype) for t in outs] != expected:
        raise AutodiffError(
            f"{name}: run again for the backward pass, the function returned tensors of (shape, "
            f"dtype) {[(s, d.name) for s, d in ((t.shape, t._dtype) for t in outs)]}, not "
            f"{[(s, d.name) for s, d in expected]} as in the forward pass. A checkpointed function "
            "must compute the same thing every time: take randomness from explicit seeds and make "
            "its control flow depend on its arguments only."
        )
    if len(outs) == 1:
        root, seed = outs[0], upstream[0]
    else:  # one entry joining the outputs, whose gradient hands each its upstream gradient
        first = next((t for t in outs if t._dtype.is_inexact), outs[0])
        root = seed = wrap(first._data, first._backend, first._dtype)
        tape.record(name, tuple(outs), {}, (root,), CustomRule(lambda _: tuple(upstream)))
    grads = iter(backward(tape, root, seed, differentiable))
    return [next(grads) if s._dtype.is_inexact else None for s in sources]


def _recompute_forward(f: Callable[..., Any], leaves: list[Any], structure: Any, arguments: list[Tensor],
                       captured: list[Tensor], tangents: Sequence[Tensor]) -> list[Tensor]:
    """The checkpoint entry's output tangents, for `tangents` of its inputs (the tensor
    arguments, then the captured tensors): `f` run again under a forward-mode recorder of its
    own, seeded with them."""
    recorder = JvpRecorder()
    seeds = iter(tangents[:len(arguments)])
    new_leaves = []
    for x in leaves:
        if isinstance(x, Tensor):
            x, t = fresh(asarray(x)), next(seeds)
            if x._dtype.is_inexact:
                recorder.seed(x, t)
        new_leaves.append(x)
    for x, t in zip(captured, tangents[len(arguments):]):
        if x._dtype.is_inexact:
            recorder.seed(x, t)
    outs = _run_recorded(f, structure, new_leaves, recorder)
    return [_tangent_or_zero(recorder, t) for t in outs]


def _run_recorded(f: Callable[..., Any], structure: Any, leaves: list[Any], recorder: Any) -> list[Tensor]:
    """`f` run again on the arguments `leaves` rebuild, with `recorder` recording; its output
    tensors."""
    args, kwargs = tree_unflatten(structure, leaves)
    push_recorder(recorder)
    try:
        result = f(*args, **kwargs)
    finally:
        remove_recorder(recorder)
    return [x for x in tree_flatten(result)[0] if isinstance(x, Tensor)]


def _tangent_or_zero(recorder: JvpRecorder, t: Tensor) -> Tensor:
    found = recorder.tangent_of(t)
    return found if found is not None else zeros_like(t)
