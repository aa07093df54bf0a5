"""Reference values of the optimizer-update kernels: AdamUpdate (three outputs)."""

from __future__ import annotations

import numpy as np

from tensorplug.dtypes import DType
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, Domain, accepted, sample
from tensorplug.testing.references._base import reference

#: (attributes, (step_size, epsilon_hat)): the 0-d inputs of one step
_STEPS = (({"beta1": 0.9, "beta2": 0.999}, (0.01, 1e-7)),
          ({"beta1": 0.5, "beta2": 0.75}, (1.0, 1e-3)))
_SECOND_MOMENT = Domain(0.0, 2.0)


def _cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in accepted(spec, "param"):
        for i, shape in enumerate(((), (0,), (1,), (2, 3))):
            arrays = (sample(shape, d, key=(i, "p")), sample(shape, d, key=(i, "g")),
                      sample(shape, d, key=(i, "m")), sample(shape, d, _SECOND_MOMENT, key=(i, "v")))
            out += [Case(arrays + _scalars(scalars, d), attrs) for attrs, scalars in _STEPS]
    return out


def _scalars(values: tuple[float, float], dtype: DType) -> tuple[np.ndarray, np.ndarray]:
    """step_size and epsilon_hat: 0-d arrays of `dtype`."""
    return np.array(values[0], dtype.numpy), np.array(values[1], dtype.numpy)


def _bad(spec: KernelSpec) -> list[BadCase]:
    d = accepted(spec, "param")[0]
    (attrs, scalars), two = _STEPS[0], sample((2,), d)
    step_size, epsilon_hat = _scalars(scalars, d)
    return [BadCase((two, sample((3,), d), two, two, step_size, epsilon_hat), attrs, error=ShapeError,
                    why="inputs of different shapes"),
            BadCase((two, two, two, two, np.full((2,), step_size), epsilon_hat), attrs, error=ShapeError,
                    why="a step_size that is not 0-d")]


@reference("AdamUpdate", _cases, _bad)
def _adam_update(param: np.ndarray, grad: np.ndarray, m: np.ndarray, v: np.ndarray, step_size: np.ndarray,
                 epsilon_hat: np.ndarray, beta1: float, beta2: float) -> tuple[np.ndarray, ...]:
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = beta2 * v + (1 - beta2) * grad * grad
    return param - step_size * m_new / (np.sqrt(v_new) + epsilon_hat), m_new, v_new
