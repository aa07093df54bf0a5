"""Reference values of the optimizer-update kernels: AdamUpdate (three outputs)."""

from __future__ import annotations

import numpy as np

from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, Domain, accepted, sample
from tensorplug.testing.references._base import reference

_ATTRS = ({"beta1": 0.9, "beta2": 0.999, "step_size": 0.01, "epsilon_hat": 1e-7},
          {"beta1": 0.5, "beta2": 0.75, "step_size": 1.0, "epsilon_hat": 1e-3})
_SECOND_MOMENT = Domain(0.0, 2.0)


def _cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in accepted(spec, "param"):
        for i, shape in enumerate(((), (0,), (1,), (2, 3))):
            arrays = (sample(shape, d, key=(i, "p")), sample(shape, d, key=(i, "g")),
                      sample(shape, d, key=(i, "m")), sample(shape, d, _SECOND_MOMENT, key=(i, "v")))
            out += [Case(arrays, attrs) for attrs in _ATTRS]
    return out


def _bad(spec: KernelSpec) -> list[BadCase]:
    d = accepted(spec, "param")[0]
    arrays = (sample((2,), d), sample((3,), d), sample((2,), d), sample((2,), d))
    return [BadCase(arrays, _ATTRS[0], error=ShapeError, why="inputs of different shapes")]


@reference("AdamUpdate", _cases, _bad)
def _adam_update(param: np.ndarray, grad: np.ndarray, m: np.ndarray, v: np.ndarray, beta1: float,
                 beta2: float, step_size: float, epsilon_hat: float) -> tuple[np.ndarray, ...]:
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = beta2 * v + (1 - beta2) * grad * grad
    return param - step_size * m_new / (np.sqrt(v_new) + epsilon_hat), m_new, v_new
