"""Plain-text output (the ``tensorplug`` subcommands, the profiler's report): aligned tables and
headings that read well in any terminal (no colour, no dependency)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["table", "heading", "plural"]


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: int = 2) -> str:
    """Columns aligned to their widest cell, a rule under the headers; the last column is not
    padded (it may be long)."""
    cells = [list(headers), *([str(c) for c in row] for row in rows)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    pad = " " * indent

    def line(row: Sequence[str]) -> str:
        parts = [c.ljust(w) for c, w in zip(row[:-1], widths)] + [row[-1]]
        return (pad + "  ".join(parts)).rstrip()

    rule = pad + "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


def heading(text: str) -> str:
    return f"{text}\n{'=' * len(text)}"


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else (words or word + 's')}"
