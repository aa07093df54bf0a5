"""One small case per dtype a spec accepts beyond a reference's own grid: the first case's
inputs cast (a float input to each other float, an integer one to each other integer; floats
wanted as integers are sampled afresh), so every accepted dtype is run without growing the grid."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensorplug.dtypes import DType
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import Case, accepted, sample


def _cast(a: np.ndarray, dtype: DType, key: object) -> np.ndarray:
    if dtype.is_integer and a.dtype.kind not in "iu":
        return sample(a.shape, dtype, key=key)
    return a.astype(dtype.numpy)


def with_every_dtype(spec: KernelSpec, cases: Sequence[Case]) -> list[Case]:
    """`cases` and the first case recast so that every input gets each dtype the spec accepts for
    it that no case gives it (inputs that must share a dtype are cast together; the k-th missing
    dtype of each input goes in the k-th new case, so a compiling backend compiles few)."""
    names, first = list(spec.inputs), cases[0]
    units = sorted({tuple(j for j, n in enumerate(names) if n in spec.same_dtype) if name in spec.same_dtype
                    else (i,) for i, name in enumerate(names)})
    missing = {u: [d for d in accepted(spec, names[u[0]])
                   if not any(c.infos()[u[0]].dtype == d for c in cases)] for u in units}
    out = list(cases)
    for k in range(max(map(len, missing.values()), default=0)):
        inputs = list(first.inputs)
        for u, dtypes in missing.items():
            for j in u if k < len(dtypes) else ():
                inputs[j] = _cast(inputs[j], dtypes[k], (spec.name, dtypes[k].name, j))
        out.append(Case(tuple(inputs), first.attrs, first.label))
    return out
