"""Default gradient of Einsum: with respect to each operand, an einsum of dy with the other
operands giving that operand's letters, generalized from TF.js's two-operand one
(Einsum_grad.ts): letters only that operand has are broadcast back, letters it has at size 1
(broadcast against the others) summed, and a letter it repeats (a diagonal, 'ii->i') put back
on the diagonal with an identity matrix. Written with tp.einsum, so it differentiates again."""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient
from tensorplug.families.einsum.spec import parse_einsum

Grads = Mapping[str, Callable[[], Any]]


def _einsum_part(dy: Tensor, operands: tuple[Tensor, ...], equation: str, i: int) -> Tensor:
    """The gradient of Einsum(equation) with respect to operand i, given dy."""
    parsed = parse_einsum(equation, [o.shape for o in operands])
    term, x = parsed.inputs[i], operands[i]
    others = [(t, o) for j, (t, o) in enumerate(zip(parsed.inputs, operands)) if j != i]
    distinct = "".join(dict.fromkeys(term))
    size = {c: d for c, d in zip(term, x.shape)}
    reach = set(parsed.output).union(*(t for t, _ in others))
    keep = "".join(c for c in distinct if c in reach)
    if keep == parsed.output and not others:
        g = dy
    else:
        terms = ",".join([parsed.output, *(t for t, _ in others)])
        g = tp.einsum(f"{terms}->{keep}", dy, *(o for _, o in others))
    squeezed = tuple(a for a, c in enumerate(keep) if size[c] == 1 and g.shape[a] != 1)
    if squeezed:  # letters x has at size 1, broadcast against the others
        g = tp.sum(g, axis=squeezed, keepdims=True)
    if keep != distinct:  # letters only x has: broadcast back
        g = tp.reshape(g, tuple(g.shape[keep.index(c)] if c in keep else 1 for c in distinct))
    g = tp.broadcast_to(g, tuple(size[c] for c in distinct))
    if distinct == term:
        return g
    spare = iter(c for c in string.ascii_letters if c not in equation)
    fresh, eyes, seen = [], [], set()
    for c in term:  # a repeated letter: a fresh one, tied to the first by an identity matrix
        if c in seen:
            f = next(spare)
            fresh.append(f)
            eyes.append(c + f)
        else:
            fresh.append(c)
            seen.add(c)
    identity = [tp.eye(size[e[0]], dtype=x.dtype) for e in eyes]
    return tp.einsum(f"{distinct},{','.join(eyes)}->{''.join(fresh)}", g, *identity)


@gradient("Einsum", inputs=("operands",))
def _einsum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    operands = saved
    return {"operands": lambda: [_einsum_part(dy, operands, attrs["equation"], i)
                                 for i in range(len(operands))]}
