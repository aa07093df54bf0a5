"""Functions with their own derivatives (``tp.custom_grad``, ``tp.custom_jvp``) are
differentiated with respect to their arguments only. A tensor such a function closes over that
an enclosing tape watches, or that forward mode has a tangent for, would get no derivative
through it: zero, silently. ``refusing_closures`` refuses it while the function runs, as JAX
does for its custom_vjp and custom_jvp."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from tensorplug.core.context import push_recorder, recorders_var, remove_recorder
from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError
from tensorplug.transforms.autodiff.forward import JvpRecorder
from tensorplug.transforms.autodiff.tape import Tape

__all__ = ["refusing_closures"]


class _ClosureCheck:
    """A recorder (not a differentiating one) that raises AutodiffError when an op reads a
    tensor that is neither an argument nor made by the function, and that `tapes` watch or
    `forward` has a tangent for."""

    __slots__ = ("tapes", "forward", "known", "fname", "kind")

    def __init__(self, tapes: list[Tape], forward: list[JvpRecorder], arguments: Sequence[Tensor],
                 fname: str, kind: str) -> None:
        self.tapes, self.forward = tapes, forward
        self.known = {id(t) for t in arguments}
        self.fname, self.kind = fname, kind

    def record(self, name: str, inputs: tuple[Tensor, ...], attrs: Any, outputs: tuple[Tensor, ...],
               custom: Any = None, start: int = 0, direct: Any = None) -> None:
        known = self.known
        for t in inputs:
            key = id(t)
            if key not in known and (any(key in tape.watched for tape in self.tapes)
                                     or any(r.tangent_of(t) is not None for r in self.forward)):
                raise AutodiffError(
                    f"{self.kind}: {self.fname} reads a tensor of shape {t.shape} that it closes over "
                    f"(kernel '{name}'), which is being differentiated; its own derivatives are with "
                    "respect to its arguments only, so this one would be zero. Pass the tensor as an "
                    "argument (and give its derivative), or wrap it in tp.stop_gradient.")
        for o in outputs:
            known.add(id(o))


@contextlib.contextmanager
def refusing_closures(arguments: Sequence[Tensor], fname: str, kind: str) -> Iterator[None]:
    """While the block runs `fname` (a `kind`: custom_grad, custom_jvp) on `arguments`: its
    reads of differentiated tensors it closes over are refused. Nothing is checked when
    nothing is differentiated."""
    recorders = recorders_var.get()
    tapes = [r for r in recorders if isinstance(r, Tape)]
    forward = [r for r in recorders if isinstance(r, JvpRecorder)]
    if not tapes and not forward:
        yield
        return
    check = _ClosureCheck(tapes, forward, arguments, fname, kind)
    push_recorder(check)
    try:
        yield
    finally:
        remove_recorder(check)
