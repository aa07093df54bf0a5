"""Each distribution stands alone on a package index: its wheel carries the license and its
README (as the long description, with no link into this repository), classifiers that match
the Python versions it declares, and the extras the docs tell readers to install."""

from __future__ import annotations

import re
import sys
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import pytest

from _wheels import build_wheels

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTIONS = ["core", "plugins/cpu_numpy", "plugins/jax_backend", "plugins/example_ops",
                 "plugins/torch_backend"]
SUPPORTED = ["3.10", "3.11", "3.12", "3.13"]  # the Pythons CI and the Makefile know


def project(folder: str) -> dict:
    return tomllib.loads((ROOT / folder / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """{folder: its wheel}."""
    built = build_wheels(DISTRIBUTIONS, tmp_path_factory.mktemp("packaging") / "wheels")
    by_name = {w.name.split("-")[0]: w for w in built}
    return {f: by_name[project(f)["name"].replace("-", "_")] for f in DISTRIBUTIONS}


@pytest.mark.parametrize("folder", DISTRIBUTIONS)
def test_every_distribution_ships_the_license(folder):
    assert project(folder)["license"] == "MIT"
    assert (ROOT / folder / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert "MIT License" in (ROOT / "LICENSE").read_text()


@pytest.mark.parametrize("folder", DISTRIBUTIONS)
def test_every_readme_stands_alone(folder):
    """No relative link (it would be dead on a package index) and no path outside the repo."""
    text = (ROOT / folder / "README.md").read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    relative = [t for t in links if not re.match(r"[a-z]+:", t)]
    assert not relative, f"{folder}/README.md has relative links: {relative}"
    assert "../" not in text
    assert len(text.splitlines()) > 5, f"{folder}/README.md says next to nothing"


@pytest.mark.slow
@pytest.mark.parametrize("folder", DISTRIBUTIONS)
def test_every_wheel_holds_license_readme_and_classifiers(folder, wheels):
    with zipfile.ZipFile(wheels[folder]) as whl:
        names = whl.namelist()
        licenses = [n for n in names if re.search(r"\.dist-info/licenses/LICENSE$", n)]
        assert licenses, f"no LICENSE in {wheels[folder].name}: {names}"
        assert whl.read(licenses[0]).decode() == (ROOT / "LICENSE").read_text()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = HeaderParser().parsestr(whl.read(metadata_name).decode())
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().strip() == (ROOT / folder / "README.md").read_text().strip()
    classifiers = metadata.get_all("Classifier")
    declared = [c.rsplit(" :: ", 1)[1] for c in classifiers
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    minimum = metadata["Requires-Python"].removeprefix(">=")
    expected = [v for v in SUPPORTED if tuple(map(int, v.split("."))) >= tuple(map(int, minimum.split(".")))]
    assert declared == expected, f"{folder}: classifiers {declared} vs Requires-Python {minimum}"
    assert "Typing :: Typed" in classifiers


def test_the_jax_backend_declares_the_pythons_jax_runs_on():
    assert project("plugins/jax_backend")["requires-python"] == ">=3.11"  # jax 0.8 and later need 3.11


def test_the_testing_kit_is_an_extra_of_core():
    """``pip install 'tensorplug-core[testing]'`` brings what the conformance suite imports."""
    extras = project("core")["optional-dependencies"]
    assert any(req.startswith("pytest") for req in extras["testing"])


def test_saving_is_an_extra_of_core_installed_for_the_tests_and_the_demo():
    """``pip install 'tensorplug-core[save]'`` brings what tp.save and tp.load import."""
    assert project("core")["optional-dependencies"]["save"] == ["safetensors>=0.8"]
    requirements = (ROOT / "requirements-dev.txt").read_text().splitlines()
    assert any(line.startswith("safetensors") for line in requirements)
    assert '"./core[demo,save]" ./plugins/cpu_numpy' in (ROOT / "Makefile").read_text()
