"""A numerical gradient checker: reverse-mode gradients against central finite differences,
in float64 (or float32 on a backend without float64), to first and higher order (the approach
of HIPS autograd's ``check_grads``).

Order 1 compares ``vjp(f)(c)`` with finite differences of ``<f(x), c>`` for a random fixed
cotangent ``c`` (1 for a scalar output). Order k + 1 does the same for the scalar function
``x -> sum over arguments of <gradient of order k at x, u>`` with fresh random directions
``u``: that checks Hessian-vector (and higher) products through reverse-over-reverse mode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, as_dtype, float64, is_floating_numpy
from tensorplug.families._common.convert import asarray
from tensorplug.families.reductions.ops import sum as sum_
from tensorplug.kernels.kernel_spec import TensorInfo, describe
from tensorplug.transforms.autodiff.api import vjp

__all__ = ["check_gradients", "run_gradients"]

_DEFAULT_EPS = 1e-6
_DEFAULT_ATOL = 1e-5
_DEFAULT_RTOL = 1e-5

Level = Callable[..., tuple[Tensor, ...]]


def check_gradients(f: Callable[..., Any], *args: Any, order: int = 1, eps: float | None = None,
                    atol: float | None = None, rtol: float | None = None,
                    argnums: int | Sequence[int] | None = None, seed: int = 0,
                    dtype: Any = None) -> None:
    """Check the reverse-mode gradients of `f` at `args` against central finite differences.

    Differentiates with respect to the positional arguments `argnums` (default: every
    floating argument, i.e. float Tensors, float numpy arrays, Python floats and sequences of
    them); they are cast to float64 (or to `dtype`, e.g. float32 on a backend without
    float64: then pass a larger `eps` and tolerances). Other arguments are passed through
    unchanged. `f` may
    return a tensor of any shape: it is projected onto a random cotangent (fixed by `seed`).
    With ``order=k`` the gradients of order 1..k are checked. An element passes when
    ``|analytic - numeric| <= atol + rtol * |numeric|``.

    Raises AssertionError naming the argument, the order and the worst element (index,
    analytic and numeric values, absolute and relative error) on a mismatch.
    """
    eps = _DEFAULT_EPS if eps is None else float(eps)
    atol = _DEFAULT_ATOL if atol is None else float(atol)
    rtol = _DEFAULT_RTOL if rtol is None else float(rtol)
    run = _Run(f, args, order, argnums, seed, dtype)
    for level, value, weight, gradient in run.levels():
        analytic = [np.asarray(g.numpy(), dtype=np.float64) for g in gradient(*run.tensors)]
        for k, n in enumerate(run.nums):
            numeric = _finite_differences(value, weight, run.points, k, eps, run.dtype)
            _compare(analytic[k], numeric, n, level, atol, rtol, eps, run.context)


def run_gradients(f: Callable[..., Any], *args: Any, order: int = 1,
                  argnums: int | Sequence[int] | None = None, seed: int = 0, dtype: Any = None) -> None:
    """Compute the reverse-mode gradients of `f` at `args` to `order` exactly as
    ``check_gradients`` does (same arguments), without finite differences or comparisons:
    what the kit runs abstractly to learn every kernel a gradient check dispatches."""
    run = _Run(f, args, order, argnums, seed, dtype)
    for _, _, _, gradient in run.levels():
        gradient(*run.tensors)


class _Run:
    """One gradient computation of check_gradients: the differentiated arguments (host points
    and tensors of `dtype`), the output, and the levels of reverse mode to `order`."""

    def __init__(self, f: Callable[..., Any], args: Sequence[Any], order: int,
                 argnums: int | Sequence[int] | None, seed: int, dtype: Any) -> None:
        if not isinstance(order, int) or order < 1:
            raise ValueError(f"check_gradients: order must be an int >= 1, got {order!r}")
        self.order = order
        self.nums = nums = _argnums(argnums, args)
        self.points = [np.asarray(_host(args[n]), dtype=np.float64) for n in nums]
        self.rng = np.random.default_rng(seed)
        name = getattr(f, "__name__", type(f).__name__)
        self.dtype = dt = float64 if dtype is None else as_dtype(dtype)
        if not dt.is_floating:
            raise ValueError(f"check_gradients: dtype must be a floating dtype, got {dt.name}")

        def call(*diff: Tensor) -> Tensor:
            full = list(args)
            for n, d in zip(nums, diff):
                full[n] = d
            out = f(*full)
            if not isinstance(out, Tensor):
                raise TypeError(f"check_gradients: {name} must return a Tensor, got {type(out).__name__}")
            if out.dtype.kind != "float":
                raise TypeError(f"check_gradients: {name} returned dtype {out.dtype.name}; gradients "
                                "need a floating output")
            return out

        self.call = call
        self.tensors = [asarray(p, dtype=dt) for p in self.points]
        out = call(*self.tensors)
        self.cotangent = np.ones(()) if out.shape == () else self.rng.standard_normal(out.shape)
        self.context = _context(name, nums, self.points, out, dt)
        if out.dtype is not dt and out.dtype.itemsize < dt.itemsize:
            self.context += (f"\n  note: the output is {out.dtype.name}, not {dt.name}; something in "
                             f"{name} computes in lower precision, so finite differences are unreliable")

    def levels(self) -> Iterator[tuple[int, Callable[..., Tensor], np.ndarray, Level]]:
        """(level, the function whose gradient this level checks, its cotangent, the gradient
        function): level 1 is f's; level k + 1 is that of a random projection of level k's."""
        value: Callable[..., Tensor] = self.call
        weight = self.cotangent
        for level in range(1, self.order + 1):
            gradient = _reverse(value, weight)
            yield level, value, weight, gradient
            if level < self.order:
                directions = [self.rng.standard_normal(p.shape) for p in self.points]
                value, weight = _projected(gradient, directions, self.dtype), np.ones(())


def _reverse(value: Callable[..., Tensor], weight: np.ndarray) -> Level:
    """x -> the vector-Jacobian product of `value` at x with `weight` (one per argument)."""
    def gradient(*diff: Tensor) -> tuple[Tensor, ...]:
        out, vjp_fn = vjp(value, *diff)
        return vjp_fn(asarray(weight, dtype=out.dtype))
    return gradient


def _projected(gradient: Level, directions: list[np.ndarray], dtype: DType) -> Callable[..., Tensor]:
    """x -> sum over arguments of <gradient(x)[i], directions[i]>, a differentiable scalar."""
    units = [asarray(d, dtype=dtype) for d in directions]

    def value(*diff: Tensor) -> Tensor:
        total: Tensor | None = None
        for g, u in zip(gradient(*diff), units):
            term = sum_(g * u)
            total = term if total is None else total + term
        assert total is not None
        return total
    return value


def _finite_differences(value: Callable[..., Tensor], weight: np.ndarray, points: list[np.ndarray],
                        k: int, eps: float, dtype: DType) -> np.ndarray:
    """Central differences of <value(x), weight> with respect to argument k, elementwise."""
    def at(shifted: np.ndarray) -> float:
        diff = [asarray(shifted if i == k else p, dtype=dtype) for i, p in enumerate(points)]
        return float(np.sum(np.asarray(value(*diff).numpy(), dtype=np.float64) * weight))

    x = points[k]
    out = np.empty(x.shape, dtype=np.float64)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        out[idx] = (at(up) - at(down)) / (2 * eps)
    return out


def _compare(analytic: np.ndarray, numeric: np.ndarray, argnum: int, level: int, atol: float,
             rtol: float, eps: float, context: str) -> None:
    if analytic.shape != numeric.shape:
        raise AssertionError(
            f"check_gradients: the order-{level} gradient of argument {argnum} has shape "
            f"{analytic.shape}; the argument has shape {numeric.shape}.{context}")
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(analytic - numeric)
        both_nan = np.isnan(analytic) & np.isnan(numeric)
        same_inf = np.isinf(analytic) & (analytic == numeric)
        err = np.where(both_nan | same_inf, 0.0, np.where(np.isnan(err), np.inf, err))
        allowed = atol + rtol * np.abs(np.nan_to_num(numeric, nan=0.0, posinf=0.0, neginf=0.0))
        excess = err / allowed
    bad = excess > 1
    if not bad.any():
        return
    worst = np.unravel_index(int(np.argmax(excess)), excess.shape) if excess.ndim else ()
    a, n, e = float(analytic[worst]), float(numeric[worst]), float(err[worst])
    rel = e / abs(n) if n != 0 else float("inf")
    what = ("gradient" if level == 1 else
            f"order-{level} gradient (reverse mode of a random projection of the order-{level - 1} "
            "gradient)")
    raise AssertionError(
        f"check_gradients: the {what} of argument {argnum} disagrees with finite differences.\n"
        f"  worst element: index {tuple(int(i) for i in worst)}: analytic {a:.10g}, numeric {n:.10g}, "
        f"abs error {e:.3g}, rel error {rel:.3g}\n"
        f"  {int(bad.sum())} of {bad.size} element(s) out of tolerance "
        f"(|analytic - numeric| <= atol + rtol * |numeric|, atol={atol:g}, rtol={rtol:g}, "
        f"eps={eps:g})\n"
        f"  analytic: {np.array2string(analytic, precision=6, prefix='  analytic: ')}\n"
        f"  numeric:  {np.array2string(numeric, precision=6, prefix='  numeric:  ')}{context}")


def _context(name: str, nums: Sequence[int], points: list[np.ndarray], out: Tensor, dtype: DType) -> str:
    shown = ", ".join(f"arg {n}: {dtype.name}[{', '.join(map(str, p.shape))}]"
                      for n, p in zip(nums, points))
    return (f"\n  function {name}, differentiated arguments {shown}; output "
            f"{describe(TensorInfo(tuple(out.shape), out.dtype))}")


def _host(x: Any) -> Any:
    return x.numpy() if isinstance(x, Tensor) else x


def _is_floating(x: Any) -> bool:
    if isinstance(x, Tensor):
        return x.dtype.kind == "float"
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return False
    try:
        return is_floating_numpy(np.asarray(x).dtype)
    except (TypeError, ValueError):
        return False


def _argnums(argnums: int | Sequence[int] | None, args: Sequence[Any]) -> tuple[int, ...]:
    if argnums is None:
        nums = tuple(i for i, a in enumerate(args) if _is_floating(a))
        if not nums:
            raise ValueError("check_gradients: no floating argument to differentiate; pass float "
                             "arrays (or name them with argnums)")
        return nums
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -len(args) <= n < len(args):
            raise ValueError(f"check_gradients: argnums {argnums!r} is out of range for "
                             f"{len(args)} argument(s)")
    return tuple(n % len(args) for n in nums)
