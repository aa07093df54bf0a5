"""Cond, While and Scan as jax's own control flow (``lax.switch``, ``lax.while_loop``,
``lax.scan``): the branches and bodies are the kernels' graphs run with this backend's kernels
(``tensorplug.extend.run_graph``), so that under tp.jit the loop is one XLA loop, its body
compiled once, rather than a Python loop over the steps. Eagerly, each kernel is compiled once
per function (``jax.jit``, kept by the graphs' fingerprint: the same function traced again at
the next eager call takes the compiled one), as jax compiles an eager ``lax.cond``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
from jax import lax

from tensorplug.extend import Graph, run_graph


def _function(graph: Graph, backend: Any) -> Callable[..., tuple[Any, ...]]:
    def run(*arrays: Any) -> tuple[Any, ...]:
        # (run while jax traces: the graph's constants made concrete, not values of this trace,
        # as the backend makes them under tp.jit; the plan is not kept for another trace)
        with jax.ensure_compile_time_eval():
            return tuple(run_graph(graph, backend, arrays, cache=False))
    return run


def _cond(attrs: dict[str, Any], backend: Any, *inputs: Any) -> tuple[Any, ...]:
    branches = [_function(g, backend) for g in attrs["branches"]]
    return tuple(lax.switch(inputs[0], branches, *inputs[1:]))


def _while(attrs: dict[str, Any], backend: Any, *inputs: Any) -> tuple[Any, ...]:
    n_consts = attrs["n_consts"]
    consts = inputs[:n_consts]
    cond, body = _function(attrs["cond"], backend), _function(attrs["body"], backend)
    return tuple(lax.while_loop(lambda carry: cond(*consts, *carry)[0],
                                lambda carry: body(*consts, *carry), tuple(inputs[n_consts:])))


def _scan(attrs: dict[str, Any], backend: Any, *inputs: Any) -> tuple[Any, ...]:
    n_consts, n_carry = attrs["n_consts"], attrs["n_carry"]
    consts = inputs[:n_consts]
    body = _function(attrs["body"], backend)

    def step(carry: tuple[Any, ...], xs: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        out = body(*consts, *carry, *xs)
        return out[:n_carry], out[n_carry:]

    carry, ys = lax.scan(step, tuple(inputs[n_consts:n_consts + n_carry]), tuple(inputs[n_consts + n_carry:]),
                         length=attrs["length"], reverse=attrs["reverse"])
    return (*carry, *ys)


# the compiled kernels, by the fingerprint of their attributes (a kernel whose graphs have none is
# compiled per call); bounded, as jax's own caches are
_compiled: dict[Any, Callable[..., Any]] = {}
_LIMIT = 256


def _kernel(impl: Callable[..., tuple[Any, ...]]) -> Callable[..., tuple[Any, ...]]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> tuple[Any, ...]:
        key = _fingerprint(attrs, backend)
        compiled = _compiled.get(key) if key is not None else None
        if compiled is None:
            compiled = jax.jit(functools.partial(impl, attrs, backend))
            if key is not None:
                if len(_compiled) >= _LIMIT:
                    _compiled.clear()
                _compiled[key] = compiled
        return tuple(compiled(*inputs))
    kernel.__name__ = impl.__name__.strip("_")
    return kernel


def _fingerprint(attrs: dict[str, Any], backend: Any) -> Any:
    parts = []
    for name, value in attrs.items():
        if isinstance(value, Graph):
            value = value.fingerprint()
        elif isinstance(value, tuple):
            value = tuple(g.fingerprint() for g in value)
        if value is None or (isinstance(value, tuple) and None in value):
            return None
        parts.append((name, value))
    return (id(backend), tuple(parts))


KERNELS: dict[str, Callable[..., Any]] = {
    "Cond": _kernel(_cond), "While": _kernel(_while), "Scan": _kernel(_scan),
}
