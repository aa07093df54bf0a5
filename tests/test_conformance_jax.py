"""The jax backend against the conformance kit, run the way a backend author runs it (in a
subprocess). CI runs the elementwise, linear-algebra, neural-network and optimizer families
(every kernel there must pass, with its gradient); the full kit on jax compiles every case and
takes several minutes, so it runs with ``make conformance BACKEND=jax``."""

from __future__ import annotations

import re

import pytest

from _conformance_run import run_kit
from tensorplug import specs
from tensorplug.extend import KernelSpec

FAMILIES = (specs.elementwise, specs.linalg, specs.nn, specs.optim)
KERNELS = sorted(v.name for family in FAMILIES for v in vars(family).values() if isinstance(v, KernelSpec))


@pytest.mark.slow
def test_conformance_jax_families(tmp_path):
    run = run_kit("jax", "--tensorplug-include", ",".join(KERNELS), "-n", "2", cwd=tmp_path, timeout=600)
    assert run.returncode == 0, f"{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    summary = run.summary
    counts = re.search(r"backend 'jax': (\d+) kernel specs, (\d+) implemented; (\d+) passing, 0 failing, "
                       r"0 missing, 0 excluded", summary)
    assert counts, summary
    assert int(counts.group(3)) == len(KERNELS), summary
    assert re.search(r"gradients: (\d+) checked, \1 passing, 0 failing, 0 blocked", summary), summary
