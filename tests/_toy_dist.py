"""Real toy plugin distributions for tests: a package directory plus a
``<name>-<version>.dist-info/`` folder with ``METADATA`` and ``entry_points.txt`` (group
``tensorplug``), written into a directory that the test puts on ``sys.path``.

Each toy gets a fresh module name, so modules imported by one test never satisfy another's
import; ``forget`` drops them from ``sys.modules`` afterwards.
"""

from __future__ import annotations

import itertools
import os
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HEADER", "ToyDist", "make_dist", "forget"]

_counter = itertools.count()

#: The lines every well-behaved toy plugin module starts with.
HEADER = """\
from tensorplug.extend import (
    API_VERSION, BackendConfig, BatchConfig, GradConfig, JvpConfig, KernelConfig, KernelSpec, OpConfig,
    hookimpl,
)
tensorplug_api_version = API_VERSION
"""


@dataclass(frozen=True)
class ToyDist:
    """What was written: the distribution name, the module the entry point names, and the
    entry point (= plugin) name."""

    dist: str
    module: str
    entry_name: str
    version: str
    root: Path


def make_dist(root: Path, source: str, *, name: str = "toy", version: str = "0.1.0",
              header: bool = True) -> ToyDist:
    """Write a distribution named ``tensorplug-<name>-<n>`` into `root` whose entry point
    ``<name>-<n>`` names a package holding `source` (prefixed with HEADER when `header`)."""
    n = next(_counter)
    module = f"toyplug_{name.replace('-', '_')}_{os.getpid()}_{n}"
    dist = f"tensorplug-{name}-{n}"
    entry_name = f"{name}-{n}"
    package = root / module
    package.mkdir(parents=True)
    body = textwrap.dedent(source)
    (package / "__init__.py").write_text((HEADER if header else "") + body)
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[tensorplug]\n{entry_name} = {module}\n")
    (info / "RECORD").write_text("")
    return ToyDist(dist, module, entry_name, version, root)


def forget(*toys: ToyDist) -> None:
    """Drop the toys' modules from ``sys.modules``."""
    for toy in toys:
        for mod in [m for m in sys.modules if m == toy.module or m.startswith(toy.module + ".")]:
            del sys.modules[mod]
