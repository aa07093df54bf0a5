"""tensorplug.extend.family_configs: a backend's kernels from its family modules (one module per
family, each with a KERNELS dict), made once; a module without KERNELS, or a kernel in two
families, is a RegistrationError naming them."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from tensorplug.errors import RegistrationError
from tensorplug.extend import KernelConfig, family_configs
from tensorplug.registry.family_configs import family_names


def _package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, modules: dict[str, str]) -> str:
    name = f"toy_kernels_{uuid.uuid4().hex[:8]}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    for module, body in modules.items():
        (root / f"{module}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def _make(name: str, backend_name: str, entry: object) -> KernelConfig:
    return KernelConfig(name, backend_name, entry)  # type: ignore[arg-type]


def test_every_family_module_gives_its_kernels_once(tmp_path, monkeypatch):
    package = _package(tmp_path, monkeypatch, {
        "b_family": "KERNELS = {'ToyB': lambda inputs, attrs, backend: inputs[0]}",
        "a_family": "KERNELS = {'ToyA1': lambda i, a, b: i[0], 'ToyA2': lambda i, a, b: i[0]}",
        "_helpers": "X = 1  # (a leading '_': not a family)",
    })
    all_kernels = family_configs(package, _make)
    configs = all_kernels("toy")
    assert [c.kernel_name for c in configs] == ["ToyA1", "ToyA2", "ToyB"]  # (families in name order)
    assert {c.backend_name for c in configs} == {"toy"}
    assert [id(c) for c in all_kernels("toy")] == [id(c) for c in configs]  # the same objects again
    assert all_kernels("other")[0] is not configs[0]
    assert f"{package}._helpers" not in sys.modules  # (not a family: not imported)


@pytest.mark.parametrize(("modules", "match"), [
    ({"fam": "X = 1"}, r"\.fam: a kernel family module must define KERNELS"),
    ({"one": "KERNELS = {'Toy': print}", "two": "KERNELS = {'Toy': print}"},
     r"Kernel 'Toy' is in two families of .*\.one and .*\.two"),
])
def test_bad_families_are_refused_naming_them(tmp_path, monkeypatch, modules, match):
    package = _package(tmp_path, monkeypatch, modules)
    with pytest.raises(RegistrationError, match=match):
        family_configs(package, _make)("toy")


def test_family_names_are_what_pkgutil_lists(tmp_path, monkeypatch):
    """family_names reads a folder once (pkgutil also lists every folder in it): the same
    modules and packages, the helpers (a leading '_'), other files and plain folders left out."""
    name = _package(tmp_path, monkeypatch, {"b_family": "", "a_family": "", "_helper": ""})
    root = tmp_path / name
    (root / "sub").mkdir()
    (root / "sub" / "__init__.py").write_text("")
    (root / "data").mkdir()
    (root / "__pycache__").mkdir()
    (root / "notes.txt").write_text("")
    assert family_names(name) == {"a_family": False, "b_family": False, "sub": True}
    for package in ("tensorplug.families", "tensorplug.families.creation", "tensorplug_numpy.kernels",
                    "tensorplug.testing.references"):
        listed = pkgutil.iter_modules(importlib.import_module(package).__path__)
        assert family_names(package) == {i.name: i.ispkg for i in sorted(listed, key=lambda i: i.name)
                                         if not i.name.startswith("_")}
