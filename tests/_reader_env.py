"""An environment like a reader's, made offline: a fresh virtual environment that sees exactly
the distributions a line such as ``pip install 'tensorplug-core[testing]' hatchling`` would
give (and pip), linked from what this test environment has installed; and a runner for a
page's ``python`` blocks in it (in order, in one namespace, as a reader pastes them)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import venv
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from _wheels import build_wheels, run

FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```\s*$", re.DOTALL | re.MULTILINE)


def install_line(text: str) -> list[str]:
    """The requirements of a page's first ``$ pip install ...`` line (a comment after ``#``
    may say how to install the same from a checkout)."""
    for lang, body in FENCE.findall(text):
        for line in body.splitlines():
            if lang == "console" and line.startswith("$ pip install "):
                words = shlex.split(line[len("$ pip install "):], comments=True)
                return [w for w in words if not w.startswith("-")]
    raise AssertionError("the page has no `$ pip install ...` line in a console block")


def dependency_closure(requirements: list[str]) -> set[str]:
    """The installed distributions these requirements bring, recursively, extras included."""
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            raise AssertionError(f"{req.name} is not installed in the test environment") from None
        name = dist.metadata["Name"]
        extras = set(req.extras)
        if (name, frozenset(extras)) in seen:
            continue
        seen.add((name, frozenset(extras)))
        for line in dist.requires or []:
            dep = Requirement(line)
            if dep.marker is None or any(dep.marker.evaluate({"extra": e}) for e in extras | {""}):
                todo.append(dep)
    return {name for name, _ in seen}


def link_installed(names: set[str], folder: Path) -> None:
    """Links in `folder` to every top-level file or package of the installed distributions."""
    folder.mkdir()
    for name in names:
        dist = metadata.distribution(name)
        for top in {Path(str(f)).parts[0] for f in dist.files or []} - {".."}:
            target = Path(str(dist.locate_file(top)))
            if target.exists() and not (folder / top).exists():
                (folder / top).symlink_to(target, target_is_directory=target.is_dir())


def fresh_venv(folder: Path) -> Path:
    """A new virtual environment without pip (ensurepip alone takes ~10 s); its python."""
    venv.EnvBuilder(with_pip=False, clear=True).create(folder)
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def see_installed(python: Path, names: set[str], folder: Path) -> None:
    """Make `names` (installed here) importable in the environment of `python`, via a .pth."""
    link_installed(names, folder)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "reader-env.pth").write_text(str(folder) + "\n")


def venv_with_wheels(folders: list[str], tmp: Path) -> Path:
    """The python of a fresh environment where wheels of `folders` (distribution folders: the
    repository's, relative to it, or absolute paths) are pip-installed offline, their
    dependencies on core and the numpy backend (and those's own) linked from here."""
    wheels = build_wheels(folders, tmp / "wheels")
    python = fresh_venv(tmp / "venv")
    ours = ["tensorplug-core", "tensorplug-backend-numpy"]
    see_installed(python, dependency_closure(ours) - set(ours), tmp / "deps")
    # this environment's pip installs into the new one (--python); the wheels by path, never
    # from an index (there is none: the dependencies are satisfied by the linked ones)
    run([sys.executable, "-m", "pip", "--isolated", "--python", str(python), "install", "--quiet",
         "--no-index", "--disable-pip-version-check", "--only-binary", ":all:", *map(str, wheels)], cwd=tmp)
    return python


def reader_python(requirements: list[str], tmp: Path) -> Path:
    """The python of a fresh environment holding exactly `requirements` and pip."""
    python = fresh_venv(tmp / "venv")
    see_installed(python, dependency_closure([*requirements, "pip"]), tmp / "installed")
    return python


RUNNER = '''
import re, sys, types
path, epilogue = sys.argv[1], sys.argv[2]
text = open(path).read()
namespace = {"__name__": "__guide__"}
for match in re.finditer(r"^```(\\S*)[^\\n]*\\n(.*?)^```\\s*$", text, re.DOTALL | re.MULTILINE):
    if match.group(1) != "python":
        continue
    line = text.count("\\n", 0, match.start(2)) + 1
    code = compile("\\n" * (line - 1) + match.group(2), path, "exec")  # the .md's line numbers
    try:
        exec(code, namespace)
    except BaseException:
        print(f"the python block at {path}:{line} failed", file=sys.stderr)
        raise
exec(epilogue, namespace)
'''


def run_blocks(python: Path, page: Path, cwd: Path, epilogue: str = "") -> subprocess.CompletedProcess[str]:
    """Run the page's python blocks with `python` in `cwd`, then `epilogue` in their namespace."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TENSORPLUG_", "PYTHON", "VIRTUAL_ENV"))}
    return subprocess.run([str(python), "-c", RUNNER, str(page), epilogue], cwd=cwd, env=env,
                          capture_output=True, text=True)
