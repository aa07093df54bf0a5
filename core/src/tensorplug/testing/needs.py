"""Which kernels each gradient needs, found at once by running it abstractly.

Each gradient in force (the core's, or a plugin's override) runs on the abstract backend
(``tensorplug.transforms.abstract``: kernels that give placeholders of the spec's output shapes and
dtypes) over the kit's sample inputs of its kernel, the way ``tp.grad``'s backward pass calls
it; the kernel names it dispatched are what it needs. A backend lacking any of them cannot run
``tp.grad`` through that kernel. ``tensorplug kernels --needs``, ``tensorplug doctor`` and the
conformance kit report from here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from tensorplug.core.runtime import current
from tensorplug.dtypes import float32, float64, from_numpy_dtype, is_inexact_numpy
from tensorplug.families.reductions.ops import sum as sum_
from tensorplug.kernels.dispatcher import dispatcher_of, wrap
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.plugins.manager import load_plugins
from tensorplug.registry.generic_kernels import GENERIC_SOURCE
from tensorplug.registry.gradients import GradConfig, find_gradient, override_gradient
from tensorplug.registry.specs import get_kernel_spec
from tensorplug.testing.gradient_cases import MAX_ELEMENTS, gradient_cases
from tensorplug.testing.inputs import Case, generic_cases
from tensorplug.testing.references import get_reference
from tensorplug.transforms.abstract import AbstractBackend, abstract_backend
from tensorplug.transforms.autodiff.api import grad
from tensorplug.transforms.autodiff.tape import Entry, gradient_thunks

__all__ = ["GradientNeeds", "gradient_needs", "needs_of", "sample_cases", "grad_closure",
           "minimum_grad_kernels", "unmet_gradient_needs"]


@dataclass(frozen=True)
class GradientNeeds:
    """What the gradient of `kernel` registered by `source` dispatched when run abstractly:
    ``needs``, sorted kernel names; ``untraced`` says why it could not be run to the end (then
    ``needs`` holds what it dispatched before)."""

    kernel: str
    source: str
    needs: tuple[str, ...]
    untraced: str = ""

    def missing_on(self, backend: str) -> tuple[str, ...]:
        """The needed kernels `backend` has no kernel for."""
        active = current().kernels.active
        return tuple(k for k in self.needs if (k, backend) not in active)


def sample_cases(spec: KernelSpec) -> list[Case]:
    """Every small case of float inputs (float64, else float32) among the kit's reference cases
    for `spec`'s kernel, or among cases built from the spec alone: every shape path a gradient
    may take (broadcasting or not, ...) is run; abstractly, each costs well under a millisecond."""
    ref = get_reference(spec.name)
    cases = list(ref.cases(spec)) if ref is not None else generic_cases(spec)
    every = len(cases)
    return (gradient_cases(spec, cases, float64, every) or gradient_cases(spec, cases, float32, every)
            or _inexact_cases(cases))


def _inexact_cases(cases: list[Case]) -> list[Case]:
    """The small non-empty cases of inexact inputs: for a kernel with complex inputs or outputs
    (an FFT), which has no case of floating inputs with outputs of their dtype."""
    return [c for c in cases if not c.label and c.inputs
            and all(is_inexact_numpy(a.dtype) and 0 < a.size <= MAX_ELEMENTS for a in c.inputs)]


def _source(kernel: str, config: GradConfig) -> str:
    reg = current().gradients.registration(kernel)
    return reg.source if reg is not None and reg.config is config else "a scoped override_gradient"


def _run_gradient(spec: KernelSpec, case: Case, backend: AbstractBackend) -> None:
    """Run `spec`'s kernel on `case`, then its gradient in force as backward would, calling
    every floating input's gradient; ``backend.called`` ends up holding what the gradient
    dispatched (on the abstract backend, which is active: values are placeholders)."""
    inputs = tuple(wrap(np.asarray(a), backend, from_numpy_dtype(a.dtype)) for a in case.inputs)
    attrs = spec.normalize_attrs(case.attrs)
    out = dispatcher_of(spec.name)(inputs, attrs)
    outputs = out if isinstance(out, tuple) else (out,)
    backend.called.clear()  # the forward kernel is not the gradient's need
    zeros = tuple(wrap(np.zeros(o.shape, o.dtype.numpy), backend, o.dtype) for o in outputs)
    thunks = gradient_thunks(Entry(spec.name, inputs, attrs, outputs), zeros[0] if len(zeros) == 1 else zeros)
    for t, thunk in zip(inputs, thunks):
        if thunk is not None and t.dtype.is_inexact:
            thunk()


def needs_of(kernel: str, config: GradConfig | None = None) -> GradientNeeds:
    """What gradient `config` of `kernel` (default: the one in force) needs; see gradient_needs."""
    return _trace([kernel], {kernel: config} if config is not None else {})[kernel]


def gradient_needs(kernels: Iterable[str] | None = None) -> dict[str, GradientNeeds]:
    """For each kernel with a gradient in force (or each of `kernels` that has one), in name
    order: what its gradient needs (plugins are loaded first: their gradients and overrides
    count). One abstract run for all of them."""
    load_plugins()
    names = sorted(current().gradients.active) if kernels is None else list(kernels)
    return _trace([n for n in names if find_gradient(n) is not None], {})


def _trace(names: list[str], configs: dict[str, GradConfig]) -> dict[str, GradientNeeds]:
    found: dict[str, tuple[GradConfig, str]] = {}
    for name in names:
        config = configs.get(name) or find_gradient(name)
        if config is not None:
            found[name] = (config, _source(name, config))
    out = {}
    with abstract_backend() as backend:
        for name, (config, source) in found.items():
            spec = get_kernel_spec(name)
            cases = sample_cases(spec)
            needs: set[str] = set()
            why = "" if cases else (
                "no sample inputs: the kit has no reference cases for it and cannot build any from "
                "its spec (register one with tensorplug.testing.register_reference)")
            scope = (override_gradient(config) if config is not find_gradient(name)
                     else contextlib.nullcontext())
            with scope:
                for case in cases:
                    backend.called.clear()
                    try:
                        _run_gradient(spec, case, backend)
                    except Exception as exc:  # a gradient that needs values, or a broken one
                        why = f"{type(exc).__name__}: {exc}"
                        break
                    finally:
                        needs |= backend.called
            out[name] = GradientNeeds(name, source, tuple(sorted(needs)), why)
    return out


def grad_closure(kernels: Iterable[str], needs: dict[str, GradientNeeds]) -> set[str]:
    """`kernels` and, for each of them with a gradient, what that gradient needs, repeatedly:
    the kernels a backend needs for tp.grad through all of them, to any order."""
    out: set[str] = set()
    todo = list(kernels)
    while todo:
        name = todo.pop()
        if name not in out:
            out.add(name)
            todo.extend(needs[name].needs if name in needs else ())
    return out


def minimum_grad_kernels() -> list[str]:
    """The fewest kernels with which ``tp.grad`` works on a backend: what
    ``tp.grad(lambda x: tp.sum(x * x))`` dispatches on a vector (a product, a reduction to a
    scalar, reverse mode's own accumulation of two paths), closed under gradient needs."""
    with abstract_backend() as backend:
        grad(lambda x: sum_(x * x))(np.zeros(3, np.float64))
        used = set(backend.called)
    return sorted(grad_closure(used, gradient_needs()))


def unmet_gradient_needs(backend: str, needs: dict[str, GradientNeeds] | None = None
                         ) -> list[tuple[GradientNeeds, tuple[str, ...]]]:
    """(needs, the needed kernels `backend` lacks) for each gradient in force of a kernel that
    `backend` has (of its own: the core's generic control flow, whose gradients' needs follow
    the functions they run, is left out) whose needs it does not all have: tp.grad through that
    kernel fails there."""
    runtime = current()
    found = gradient_needs() if needs is None else needs
    return [(n, missing) for n in found.values()
            if (reg := runtime.kernels.registration((n.kernel, backend))) is not None
            and reg.source != GENERIC_SOURCE and (missing := n.missing_on(backend))]
