"""Kernel spec of Einsum: Einstein summation over any number of operands (numpy's subscripts:
letters, at most one '...' per term, an optional '->' output; without it the output is the
letters used once, sorted, after the ellipsis' axes).

``parse_einsum`` is the family's rule, shared with ``tp.einsum`` and Einsum's gradient: it checks
an equation against the operands' shapes and gives it explicit, one letter per axis (the
ellipsis' axes get letters of their own), with each letter's size. A letter's sizes broadcast
(1 or one common size), as numpy's do; so do the ellipsis' axes, aligned from the right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from tensorplug.core.lazy_modules import lazy_module
from tensorplug.dtypes import ALL_NUMERIC_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import op_prefix
from tensorplug.registry.core_entries import declare_spec

if TYPE_CHECKING:
    import string
else:  # (its letters are read at the first einsum: run then, issue 37)
    string = lazy_module("string")

__all__ = ["Subscripts", "parse_einsum", "as_equation"]


class Subscripts(NamedTuple):
    """An einsum equation made explicit: one letter per axis of each operand and the output."""

    inputs: tuple[str, ...]
    output: str
    sizes: dict[str, int]

    @property
    def equation(self) -> str:
        return f"{','.join(self.inputs)}->{self.output}"


def as_equation(value: Any) -> str:
    """An equation with its whitespace removed; TypeError unless it is a str."""
    if not isinstance(value, str):
        raise TypeError(f"the equation must be a str such as 'ij,jk->ik', got {type(value).__name__}")
    return "".join(value.split())


def _terms(equation: str, count: int, op: str | None) -> tuple[list[str], str | None]:
    head, arrow, out = equation.partition("->")
    terms = head.split(",")
    bad = sorted(set(equation) - set(string.ascii_letters) - set(",.->"))
    why = ""
    if bad:
        why = f"it holds {bad}; use letters, ',', '...' and '->'"
    elif len(terms) != count:
        why = f"it has {len(terms)} input term(s) for {count} operand(s)"
    elif "-" in out or ">" in out or "," in out or any(t.count("-") or t.count(">") for t in terms):
        why = "its '->' is misplaced"
    elif any(t.replace("...", "").count(".") for t in [*terms, out]) or \
            any(t.count("...") > 1 for t in [*terms, out]):
        why = "a '.' is not part of one '...' per term"
    if why:
        raise ShapeError(f"{op_prefix(op)}equation {equation!r} is invalid: {why} (e.g. 'ij,jk->ik').")
    return terms, (out if arrow else None)


def parse_einsum(equation: str, shapes: Sequence[Sequence[int]], op: str | None = None) -> Subscripts:
    """`equation` (whitespace removed) for operands of `shapes`, made explicit; ShapeError
    naming `op` for a malformed equation, terms that do not match the operands' ranks, sizes
    that do not broadcast, or an output letter that is repeated or not among the inputs."""
    terms, out = _terms(equation, len(shapes), op)
    spare = [c for c in string.ascii_letters if c not in equation]
    ell_rank = 0
    for term, shape in zip(terms, shapes):
        named = len(term.replace("...", ""))
        if len(shape) < named or ("..." not in term and len(shape) != named):
            raise ShapeError(f"{op_prefix(op)}term {term!r} of {equation!r} names {named} axes, but its "
                             f"operand has shape {tuple(shape)}; give one letter per axis (or '...').")
        ell_rank = max(ell_rank, len(shape) - named)
    ell = "".join(spare[:ell_rank])
    inputs = []
    sizes: dict[str, int] = {}
    for term, shape in zip(terms, shapes):
        full = term.replace("...", ell[ell_rank - (len(shape) - len(term.replace("...", ""))):])
        for letter, size in zip(full, shape):
            known = sizes.get(letter, 1)
            if size != 1 and known not in (1, size):
                raise ShapeError(f"{op_prefix(op)}letter {letter!r} of {equation!r} has sizes {known} and "
                                 f"{size} (shapes {[tuple(s) for s in shapes]}); sizes must be equal or 1.")
            sizes[letter] = size if size != 1 else known
        inputs.append(full)
    if out is None:
        once = sorted(c for c in set("".join(terms)) if c != "." and "".join(terms).count(c) == 1)
        output = ell + "".join(once)
    else:
        if ell and "..." not in out:
            raise ShapeError(f"{op_prefix(op)}equation {equation!r} has '...' in its inputs covering "
                             f"{ell_rank} axes but not in its output; add '...' to the output.")
        output = out.replace("...", ell)
        dup = sorted({c for c in output if output.count(c) > 1})
        missing = sorted(set(output) - set(sizes))
        if dup or missing:
            why = f"repeats {dup}" if dup else f"names {missing}, which no input has"
            raise ShapeError(f"{op_prefix(op)}the output of {equation!r} {why}; name each output "
                             "letter once, from the inputs.")
    return Subscripts(tuple(inputs), output, sizes)


def _einsum_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    parsed = parse_einsum(attrs["equation"], [i.shape for i in infos])
    return [TensorInfo(tuple(parsed.sizes[c] for c in parsed.output), infos[0].dtype)]


EINSUM = declare_spec(KernelSpec(
    name="Einsum", inputs=("operands",), infer=_einsum_rule, variadic=True, same_dtype=("operands",),
    input_dtypes={"operands": ALL_NUMERIC_DTYPES},
    attrs=(AttrSpec("equation", validate=as_equation, doc="numpy's subscripts, e.g. 'ij,jk->ik'"),),
    doc="Einstein summation of the operands (np.einsum)",
))
