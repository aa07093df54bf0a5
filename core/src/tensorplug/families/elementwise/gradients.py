"""Default gradients of the elementwise kernels: unary math (inverse trigonometric and
hyperbolic functions included), binary arithmetic, Cast, Where and Clip.

Where the derivative is naturally a function of the output (exp, expm1, sqrt, tanh,
sigmoid) the output is saved and used: it is on the tape, so higher derivatives stay right.
Binary kernels broadcast, so their gradients are summed back to each input's shape.

Complex inputs follow JAX's convention: the gradient passed back for an input z is
``dy * f'(z)`` for a holomorphic f (no conjugate), so the formulas of the real functions hold
as they are; the non-holomorphic kernels (Abs, Real, Imag, Conj) pass back the cotangent of z
as JAX's transpose rules give it (Abs: ``dy * conj(z) / |z|``, Real: ``dy``, Imag:
``-1j * dy``, Conj: ``conj(dy)``), and a real-valued f of z gets ``conj`` of its steepest
ascent direction, as ``jax.grad`` gives.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, relu_grad, unbroadcast

Grads = Mapping[str, Callable[[], Tensor]]


# -- unary ---------------------------------------------------------------------------------
@gradient("Negative")
def _negative(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: tp.negative(dy)}


@gradient("Abs", inputs=("x",))
def _abs(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    if x.dtype.is_complex:  # conj(z) / |z| (0 at z == 0), as JAX: written so that it differentiates again
        return {"x": lambda: dy * tp.conj(x) / tp.where(x == 0, 1.0, tp.abs(x))}
    return {"x": lambda: dy * tp.sign(x)}  # 0 at x == 0, as JAX


@gradient("Real", inputs=("x",))
def _real(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: tp.astype(dy, x.dtype)}


@gradient("Imag", inputs=("x",))
def _imag(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: tp.astype(dy, x.dtype) * -1j}


@gradient("Conj")
def _conj(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: tp.conj(dy)}


def _zero(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """Piecewise-constant kernels: the derivative is zero wherever it exists."""
    return {"x": lambda: tp.zeros_like(dy)}


for _name in ("Sign", "Floor", "Ceil", "Round", "Trunc"):
    gradient(_name)(_zero)


@gradient("Square", inputs=("x",))
def _square(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy * (2 * x)}


@gradient("Exp", outputs=("out",))
def _exp(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: dy * y}


@gradient("Expm1", outputs=("out",))
def _expm1(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: dy * (y + 1)}


@gradient("Erfinv", outputs=("out",))
def _erfinv(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved  # d erfinv(x) / dx = sqrt(pi) / 2 * exp(erfinv(x) ** 2)
    return {"x": lambda: dy * (tp.exp(y * y) * 0.886226925452758)}


@gradient("Log", inputs=("x",))
def _log(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy / x}


@gradient("Log1p", inputs=("x",))
def _log1p(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy / (x + 1)}


@gradient("Sqrt", outputs=("out",))
def _sqrt(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: dy / (2 * y)}


@gradient("Sin", inputs=("x",))
def _sin(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy * tp.cos(x)}


@gradient("Cos", inputs=("x",))
def _cos(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: tp.negative(dy * tp.sin(x))}


@gradient("Tan", outputs=("out",))
def _tan(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: dy * (1 + y * y)}


@gradient("Tanh", outputs=("out",))
def _tanh(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: dy * (1 - y * y)}


@gradient("Sigmoid", outputs=("out",))
def _sigmoid(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (y,) = saved
    return {"x": lambda: dy * (y * (1 - y))}


@gradient("Cosh", inputs=("x",))
def _cosh(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy * tp.sinh(x)}


@gradient("Sinh", inputs=("x",))
def _sinh(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy * tp.cosh(x)}


@gradient("Asin", inputs=("x",))
def _asin(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy / tp.sqrt((1 - x) * (1 + x))}


@gradient("Acos", inputs=("x",))
def _acos(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: tp.negative(dy) / tp.sqrt((1 - x) * (1 + x))}


@gradient("Atan", inputs=("x",))
def _atan(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy / (1 + x * x)}


@gradient("Asinh", inputs=("x",))
def _asinh(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy / tp.sqrt(x * x + 1)}


@gradient("Acosh", inputs=("x",))
def _acosh(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy / tp.sqrt((x - 1) * (x + 1))}


@gradient("Atanh", inputs=("x",))
def _atanh(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: dy / ((1 - x) * (1 + x))}


@gradient("Relu", inputs=("x",))
def _relu(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved  # (only floating x is differentiated: ReluGrad takes floats)
    return {"x": lambda: relu_grad(dy, x)}


@gradient("Clip", inputs=("x",))
def _clip(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    lo, hi = attrs["min"], attrs["max"]

    def dx() -> Tensor:
        inside = None if lo is None else x >= lo
        if hi is not None:
            below = x <= hi
            inside = below if inside is None else tp.logical_and(inside, below)
        return dy if inside is None else tp.where(inside, dy, 0.0)
    return {"x": dx}


@gradient("Cast", inputs=("x",))
def _cast(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    if not x.dtype.is_inexact:
        return {}  # integer and bool inputs take no gradient
    if dy.dtype.is_complex and not x.dtype.is_complex:  # real to complex: the real part, as JAX
        return {"x": lambda: tp.astype(tp.real(dy), x.dtype)}
    return {"x": lambda: tp.astype(dy, x.dtype)}


@gradient("Copy")
def _copy(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: dy}


# -- binary --------------------------------------------------------------------------------
@gradient("Add", inputs=("x", "y"))
def _add(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved
    return {"x": lambda: unbroadcast(dy, x.shape), "y": lambda: unbroadcast(dy, y.shape)}


@gradient("Subtract", inputs=("x", "y"))
def _subtract(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved
    return {"x": lambda: unbroadcast(dy, x.shape),
            "y": lambda: unbroadcast(tp.negative(dy), y.shape)}


@gradient("Multiply", inputs=("x", "y"))
def _multiply(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved
    return {"x": lambda: unbroadcast(dy * y, x.shape), "y": lambda: unbroadcast(dy * x, y.shape)}


@gradient("Divide", inputs=("x", "y"))
def _divide(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved
    return {"x": lambda: unbroadcast(dy / y, x.shape),
            "y": lambda: unbroadcast(tp.negative(dy) * x / tp.square(y), y.shape)}


@gradient("FloorDivide", inputs=("x", "y"))
def _floor_divide(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved  # piecewise constant: zero wherever the derivative exists
    return {"x": lambda: tp.zeros_like(x), "y": lambda: tp.zeros_like(y)}


@gradient("Pow", inputs=("x", "y"), outputs=("out",))
def _pow(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y, out = saved

    def dx() -> Tensor:
        # y * x**(y-1), with the exponent 1 where y == 0 so that 0 * 0**-1 gives 0, not nan
        exponent = tp.where(y == 0, 1, y - 1)
        return unbroadcast(dy * (y * tp.pow(x, exponent)), x.shape)

    def dexp() -> Tensor:
        # x**y * log(x) where x > 0 (complex: x != 0), and 0 elsewhere (log never sees a
        # non-positive x)
        positive = x != 0 if x.dtype.is_complex else x > 0
        log_x = tp.log(tp.where(positive, x, 1))
        return unbroadcast(dy * tp.where(positive, out * log_x, 0.0), y.shape)

    return {"x": dx, "y": dexp}


@gradient("Mod", inputs=("x", "y"))
def _mod(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved  # x - y * floor_divide(x, y), whose quotient is piecewise constant
    return {"x": lambda: unbroadcast(dy, x.shape),
            "y": lambda: unbroadcast(tp.negative(dy) * tp.floor_divide(x, y), y.shape)}


@gradient("Atan2", inputs=("x", "y"))
def _atan2(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved  # the angle of the point (y, x): d/dx = y / r**2, d/dy = -x / r**2

    @functools.cache
    def scaled() -> Tensor:
        return dy / (x * x + y * y)

    return {"x": lambda: unbroadcast(scaled() * y, x.shape),
            "y": lambda: unbroadcast(tp.negative(scaled()) * x, y.shape)}


@gradient("Hypot", inputs=("x", "y"), outputs=("out",))
def _hypot(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y, out = saved  # x / out and y / out; 0 at the origin (as the subgradient of |(x, y)|)

    @functools.cache
    def scaled() -> Tensor:
        return dy / tp.where(out == 0, 1, out)

    return {"x": lambda: unbroadcast(scaled() * x, x.shape),
            "y": lambda: unbroadcast(scaled() * y, y.shape)}


@gradient("Copysign", inputs=("x", "y"))
def _copysign(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved  # +-1 for x as the sign bits agree or not; y only picks a sign: 0
    return {"x": lambda: unbroadcast(tp.where(tp.signbit(x) == tp.signbit(y), dy, tp.negative(dy)), x.shape),
            "y": lambda: tp.zeros_like(y)}


@gradient("Nextafter", inputs=("x", "y"))
def _nextafter(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved  # x moved by one unit in the last place: 1 for x, 0 for y
    return {"x": lambda: unbroadcast(dy, x.shape), "y": lambda: tp.zeros_like(y)}


def _extremum(dy: Tensor, x: Tensor, y: Tensor, wins: Callable[[Tensor, Tensor], Tensor]) -> Grads:
    """Maximum/Minimum: the winner takes dy; a tie splits it 0.5/0.5 (as JAX does)."""
    @functools.cache
    def share() -> Tensor:  # x's part of dy (computed once if both inputs need it)
        return tp.astype(wins(x, y), dy.dtype) + tp.astype(x == y, dy.dtype) * 0.5

    return {"x": lambda: unbroadcast(dy * share(), x.shape),
            "y": lambda: unbroadcast(dy * (1 - share()), y.shape)}


@gradient("Maximum", inputs=("x", "y"))
def _maximum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved
    return _extremum(dy, x, y, tp.greater)


@gradient("Minimum", inputs=("x", "y"))
def _minimum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, y = saved
    return _extremum(dy, x, y, tp.less)


@gradient("Where", inputs=("condition", "x", "y"))
def _where(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    condition, x, y = saved  # the condition is boolean: no gradient
    return {"x": lambda: unbroadcast(tp.where(condition, dy, 0.0), x.shape),
            "y": lambda: unbroadcast(tp.where(condition, 0.0, dy), y.shape)}
