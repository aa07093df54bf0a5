"""What ``opcheck`` found about one kernel on one backend, and how it reads."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

__all__ = ["Problem", "OpCheckResult", "OpCheckError", "KINDS"]

#: The kinds of problem, in the order reports list them.
KINDS = ("missing", "raised", "outputs", "dtype", "shape", "values", "mutated", "error", "gradient", "jvp",
         "blocked", "batching", "onnx", "kit")
_SHOWN_PER_KIND = 3


class OpCheckError(AssertionError):
    """A kernel failed opcheck; the message is the report (kernel, inputs, expected vs got)."""

    def __init__(self, result: OpCheckResult) -> None:
        super().__init__(result.report())
        self.result = result


@dataclass(frozen=True)
class Problem:
    """One thing wrong: its kind (one of KINDS), the case (inputs and attrs) and what happened."""

    kind: str
    case: str
    message: str

    def render(self) -> str:
        """The problem as an indented list item of a report."""
        where = f" with {self.case}" if self.case else ""
        body = self.message.replace("\n", "\n    ")
        return f"- {self.kind}{where}:\n    {body}"


@dataclass
class OpCheckResult:
    """The outcome of ``opcheck(kernel, backend=...)``.

    ``implemented``: the backend has the kernel. ``blocked_by``: kernels the backend lacks that
    the gradient needs. ``reference``: "values" (checked against
    the kit's numpy reference), "properties" (random kernels) or "none" (a kernel the kit
    does not know: only shapes and dtypes from the spec's rule, and the gradient). ``gradient``
    and ``jvp`` say what was done about the gradient and forward mode, ``batching`` about the
    batching rule (``tp.vmap``). ``problems`` is empty when everything passed.
    """

    kernel: str
    backend: str
    implemented: bool = True
    reference: str = "values"
    cases: int = 0
    bad_cases: int = 0
    gradient: str = "not checked"
    gradient_cases: int = 0
    jvp: str = "not checked"
    batching: str = "not checked"
    onnx: str = "not checked"
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    blocked_by: list[str] = field(default_factory=list)
    rerun: str = ""

    @property
    def ok(self) -> bool:
        """True if no check found a problem."""
        return not self.problems

    @property
    def status(self) -> str:
        """'passed', 'missing', 'blocked' (only problem: the gradient needs kernels the backend
        lacks, named in ``blocked_by``) or 'failed'."""
        if not self.implemented:
            return "missing"
        if self.ok:
            return "passed"
        return "blocked" if all(p.kind == "blocked" for p in self.problems) else "failed"

    def add(self, kind: str, case: str, message: str) -> None:
        """Record a problem of `kind` found with `case`."""
        self.problems.append(Problem(kind, case, message))

    def summary(self) -> str:
        """One line: what was checked and how it went."""
        if not self.implemented:
            return f"kernel '{self.kernel}' is missing on backend '{self.backend}'"
        how = {"values": "", "properties": " (property checks)", "none": " (no reference values)"}
        checked = [f"{self.cases} case(s){how.get(self.reference, '')}",
                   f"{self.bad_cases} bad input(s)", f"gradient: {self.gradient}"]
        if self.jvp != "not checked":
            checked.append(f"jvp: {self.jvp}")
        if self.batching != "not checked":
            checked.append(f"batching: {self.batching}")
        if self.onnx != "not checked":
            checked.append(f"onnx: {self.onnx}")
        verdict = "passed" if self.ok else f"{len(self.problems)} problem(s)"
        return f"opcheck '{self.kernel}' on backend '{self.backend}': {verdict} ({', '.join(checked)})"

    def report(self) -> str:
        """The summary, the problems (the first few of each kind), notes and the rerun command."""
        lines = [self.summary()]
        counts = Counter(p.kind for p in self.problems)
        shown: Counter[str] = Counter()
        for kind in KINDS:
            for p in (p for p in self.problems if p.kind == kind):
                if shown[kind] < _SHOWN_PER_KIND:
                    lines.append(p.render())
                shown[kind] += 1
            if counts[kind] > _SHOWN_PER_KIND:
                lines.append(f"  ... and {counts[kind] - _SHOWN_PER_KIND} more '{kind}' problem(s)")
        lines += [f"note: {n}" for n in self.notes]
        if self.rerun and self.problems:
            lines.append(f"rerun: {self.rerun}")
        return "\n".join(lines)

    def assert_ok(self) -> OpCheckResult:
        """Raise OpCheckError (an AssertionError) with the report unless everything passed."""
        if self.problems:
            raise OpCheckError(self)
        return self

    def __str__(self) -> str:
        return self.report()
