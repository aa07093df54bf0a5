"""Which kernels a conformance run checks: glob patterns of kernel names to include and to
exclude, from the command line and from a file in the backend's repository.

A file is TOML: ``[tool.tensorplug.conformance]`` in the rootdir's ``pyproject.toml`` (or in
the file given with ``--tensorplug-conformance-file``, where the keys may also sit at the top
level)::

    [tool.tensorplug.conformance]
    include = ["*"]                    # optional; default: every kernel
    exclude = ["Cumprod", "Random*"]   # or a table of pattern = "reason"

Command-line includes replace the file's (so that one kernel can be rerun); excludes add up.
A kernel is checked when it matches an include (or there is none) and no exclude.
"""

from __future__ import annotations

import fnmatch
import importlib
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Selection", "SelectionError", "load_selection", "split_patterns"]

_KEYS = {"include", "exclude"}


class SelectionError(ValueError):
    """A selection file or pattern is malformed; the message names the file and the fix."""


def split_patterns(values: Iterable[str]) -> list[str]:
    """Patterns from repeated, comma-separated option values."""
    return [p.strip() for v in values for p in v.split(",") if p.strip()]


@dataclass(frozen=True)
class Selection:
    """Include patterns (empty: everything) and exclude patterns with why (source or reason)."""

    include: tuple[str, ...] = ()
    exclude: Mapping[str, str] = field(default_factory=dict)
    include_source: str = ""

    def included(self, name: str) -> bool:
        """Whether `name` matches an include pattern (or there are none)."""
        return not self.include or any(fnmatch.fnmatchcase(name, p) for p in self.include)

    def excluded_by(self, name: str) -> str | None:
        """Why `name` is excluded (where its pattern came from, or the reason given), or None."""
        for pattern, why in self.exclude.items():
            if fnmatch.fnmatchcase(name, pattern):
                return why
        return None

    def selects(self, name: str) -> bool:
        return self.included(name) and self.excluded_by(name) is None

    def describe_include(self) -> str:
        where = self.include_source or "--tensorplug-include"
        return f"{where}: {', '.join(self.include)}"

    def unused(self, names: Sequence[str]) -> list[str]:
        """Patterns that match none of `names` (probably a typo)."""
        return [p for p in (*self.include, *self.exclude) if not fnmatch.filter(names, p)]


def _read_toml(path: Path) -> dict[str, Any]:
    try:  # tomllib from Python 3.11 on, tomli (the same module) before
        tomllib: Any = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
    except ModuleNotFoundError:
        raise SelectionError(f"reading {path} needs Python >= 3.11 or the tomli package") from None
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise SelectionError(f"cannot read the conformance file {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SelectionError(f"{path} is not valid TOML: {exc}") from None


def _table(path: Path, explicit: bool) -> dict[str, Any] | None:
    data = _read_toml(path)
    table = data.get("tool", {}).get("tensorplug", {}).get("conformance")
    if table is None and explicit:
        table = {k: v for k, v in data.items() if k in _KEYS}
        if not table:
            raise SelectionError(f"{path} has neither a [tool.tensorplug.conformance] table nor top-level "
                                 "'include'/'exclude' keys")
    if table is None:
        return None
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise SelectionError(f"{path}: unknown key(s) {unknown} in the conformance settings; the keys are "
                             "'include' and 'exclude'")
    return table


def _patterns(value: Any, path: Path, key: str) -> dict[str, str]:
    if isinstance(value, str):
        value = [value]
    if isinstance(value, Mapping):
        return {str(p): f"{path.name}: {why}" if why else f"excluded in {path.name}"
                for p, why in value.items()}
    if isinstance(value, list) and all(isinstance(p, str) for p in value):
        return {p: f"{key}d in {path.name}" for p in value}
    raise SelectionError(f"{path}: '{key}' must be a list of glob patterns of kernel names (or, for "
                         f"exclude, a table of pattern = \"reason\"); got {value!r}")


def load_selection(include: Iterable[str] = (), exclude: Iterable[str] = (), file: Path | None = None,
                   rootdir: Path | None = None) -> Selection:
    """The selection from command-line patterns plus `file` (explicit) or, without one,
    ``[tool.tensorplug.conformance]`` in ``rootdir/pyproject.toml`` if it has that table."""
    table: dict[str, Any] | None = None
    path: Path | None = None
    if file is not None:
        path, table = file, _table(file, explicit=True)
    elif rootdir is not None and (rootdir / "pyproject.toml").is_file():
        path = rootdir / "pyproject.toml"
        if "tensorplug" in path.read_text(errors="replace"):  # parse only what may hold the table
            table = _table(path, explicit=False)
    cli_include = split_patterns(include)
    file_include: list[str] = []
    if table and path and "include" in table:
        file_include = list(_patterns(table["include"], path, "include"))
    excluded: dict[str, str] = {}
    if table and path and "exclude" in table:
        excluded.update(_patterns(table["exclude"], path, "exclude"))
    excluded.update({p: "--tensorplug-exclude" for p in split_patterns(exclude)})
    if cli_include:
        return Selection(tuple(cli_include), excluded)
    source = path.name if file_include and path else ""
    return Selection(tuple(file_include), excluded, include_source=source)
