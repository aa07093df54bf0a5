"""The Python Array API standard's own test suite (data-apis/array-api-tests, vendored with the
spec it reads and its offline runner in third_party/array-api-tests) against `tensorplug` on each
first-party backend: every one of its tests passes, but those named in
tests/array_api_xfails.txt, each under a comment saying why, which must fail (strict xfails: one
that passes fails the run, so that the list shrinks as tensorplug grows), and those named in
tests/array_api_skips.txt, whose outcome depends on the examples drawn, and on a backend, those
of tests/array_api_xfails_<backend>.txt and tests/array_api_skips_<backend>.txt where it has
them (torch: what its missing unsigned dtypes keep it from). CI runs fewer hypothesis examples
per test than the runner's default (jax compiles for every new shape): `TENSORPLUG_AAT_EXAMPLES`
sets them (100 gives the full figure)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tensorplug as tp
from _jax_absent import FIRST_PARTY_BACKENDS
from tensorplug.dtypes import STANDARD_DTYPES

ROOT = Path(__file__).resolve().parents[1]
SUITE = Path(os.environ.get("TENSORPLUG_ARRAY_API_TESTS", ROOT / "third_party" / "array-api-tests"))
XFAILS = Path(__file__).with_name("array_api_xfails.txt")
SKIPS = Path(__file__).with_name("array_api_skips.txt")
TORCH_XFAILS = Path(__file__).with_name("array_api_xfails_torch.txt")
TORCH_SKIPS = Path(__file__).with_name("array_api_skips_torch.txt")
EXAMPLES = {"numpy": "25", "jax": "10", "torch": "25"}
#: the backends the suite runs on
SUITE_BACKENDS = [b for b in FIRST_PARTY_BACKENDS if b in EXAMPLES]


def unheld_standard_dtypes(backend: str) -> list[str]:
    """The standard's dtypes `backend` declares it does not hold (torch: uint16, uint32, uint64),
    which the suite leaves out when ARRAY_API_TESTS_SKIP_DTYPES names them (as torch's own runs
    of it do)."""
    (config,) = [b for b in tp.extend.backend_info() if b["name"] == backend]
    held = config["dtypes"]
    return [] if held is None else [d.name for d in STANDARD_DTYPES if d not in held]


def test_the_suite_and_the_spec_it_reads_are_in_the_repository_with_their_licenses():
    """A fresh clone runs the suite offline: nothing is read from outside the repository."""
    vendored = ROOT / "third_party" / "array-api-tests"
    assert (vendored / "run.sh").is_file() and (vendored / "suite" / "array_api_tests").is_dir()
    for license_file in ("suite/LICENSE", "suite/array-api/LICENSE"):
        assert (vendored / license_file).read_text().startswith("MIT License"), license_file
    assert (vendored / "suite" / "array-api" / "spec" / "2025.12").is_dir()


def for_backend(listing: Path, backend: str, folder: Path) -> Path:
    """The entries of `listing` (the xfails or the skips of every backend) and those of
    `backend`'s own file beside it (``array_api_xfails_torch.txt``), if any, in one file in
    `folder` (the suite reads one of each)."""
    own = listing.with_name(f"{listing.stem}_{backend}.txt")
    joined = folder / listing.name
    joined.write_text(listing.read_text() + ("\n" + own.read_text() if own.is_file() else ""))
    return joined


@pytest.mark.parametrize("listing", [XFAILS, SKIPS, TORCH_XFAILS, TORCH_SKIPS],
                         ids=["xfails", "skips", "torch-xfails", "torch-skips"])
def test_every_xfail_says_why_and_names_a_test(listing):
    """Each entry of the xfails (and skips) file is a test id of the suite, under a '# why' comment."""
    lines = [line for line in listing.read_text().splitlines() if line.strip()]
    assert lines
    reason = None
    for line in lines:
        if line.startswith("#"):
            reason = line
            continue
        assert line.startswith("array_api_tests/"), line
        assert reason is not None, f"{line} has no '# why' comment above it"


@pytest.mark.slow
@pytest.mark.parametrize("backend", SUITE_BACKENDS)
def test_the_array_api_suite_passes(backend, tmp_path):
    runner = SUITE / "run.sh"
    assert runner.is_file(), (f"the Array API test suite is not at {SUITE}; set "
                              "TENSORPLUG_ARRAY_API_TESTS to its folder (the one holding run.sh)")
    env = {**os.environ, "TENSORPLUG_BACKEND": backend, "AAT_JOBS": "1",
           "AAT_MAX_EXAMPLES": os.environ.get("TENSORPLUG_AAT_EXAMPLES", EXAMPLES.get(backend, "10")),
           "AAT_OUT": str(tmp_path), "TMPDIR": str(tmp_path),
           "AAT_TIMEOUT_S": "0",  # (no wall-clock limit: a busy machine is no failure)
           "ARRAY_API_TESTS_SKIP_DTYPES": ",".join(unheld_standard_dtypes(backend))}
    done = subprocess.run(["bash", str(runner), "tensorplug", sys.executable, "--",
                           f"--xfails-file={for_backend(XFAILS, backend, tmp_path)}",
                           f"--skips-file={for_backend(SKIPS, backend, tmp_path)}",
                           "-o", "xfail_strict=true",
                           "array_api_tests/"],
                          env=env, capture_output=True, text=True)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    failures = [line for line in done.stdout.splitlines() if "FAIL" in line]
    assert done.returncode == 0 and last.endswith(" 0 failed"), (
        f"backend {backend}: {last}\n" + "\n".join(failures) +
        f"\n(the log with each failure: {tmp_path}/tensorplug.log)\n{done.stderr[-2000:]}")
