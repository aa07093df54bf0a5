"""The first-party backends (numpy, jax and torch) pass the conformance kit with full coverage:
every kernel spec is implemented and passes, every gradient passes, nothing is excluded. To run it for another
installed backend, add its name to BACKENDS. numpy runs every case; jax, which compiles each
distinct case, runs at most MAX_CASES per kernel (every combination of input dtypes still among
them: --tensorplug-max-cases) and checks each batching rule on one of them, in each batch layout
(--tensorplug-batching-cases: the rules are the core's, the same on every backend, checked on
four cases each on numpy here, and on jax on four cases of 25 families in test_vmap), which keeps
CI's time bounded as the kernels grow (~30 CPU-s of the jax run); `make conformance BACKEND=jax`
runs them all."""

from __future__ import annotations

import re

import pytest

from _conformance_run import run_kit

BACKENDS = ["numpy", "jax", "torch"]
MAX_CASES = {"jax": 12}
BATCHING_CASES = {"jax": 1}


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_full_conformance(backend, tmp_path):
    bound = ["--tensorplug-max-cases", str(MAX_CASES[backend])] if backend in MAX_CASES else []
    if backend in BATCHING_CASES:
        bound += ["--tensorplug-batching-cases", str(BATCHING_CASES[backend])]
    # (in one process: two xdist workers would each start the backend and compile, for jax,
    # the kernels and shapes they share; test_conformance_toy checks the kit's parallel run)
    run = run_kit(backend, *bound, cwd=tmp_path)
    assert run.returncode == 0, f"{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    summary = run.summary
    counts = re.search(r"backend '(\w+)': (\d+) kernel specs, (\d+) implemented; (\d+) passing, 0 failing, "
                       r"0 missing, 0 excluded\n", summary)
    assert counts, summary
    name, specs, implemented, passing = counts.groups()
    assert name == backend and int(specs) >= 65 and specs == implemented == passing, summary
    assert f"passing ({specs}): every checked kernel" in summary
    grads = re.search(r"gradients: (\d+) checked, (\d+) passing, 0 failing, 0 blocked", summary)
    assert grads and grads.group(1) == grads.group(2) and int(grads.group(1)) >= 45, summary
    # (a kernel test and a batching test per kernel, a gradient test per differentiable one)
    assert re.search(rf"\n{2 * int(specs) + int(grads.group(1))} passed in ", run.stdout), run.stdout[-500:]
    # (plugins' kernels included: the example plugin gives Erf's reference from its hook)
    for absent in ("not run", "not selected", "blocked (", "note:", "no reference values"):
        assert absent not in summary, summary
