"""``tp.jit``: ``api`` (the jitted function's call path), ``trees`` (arguments and results as
pytrees), ``state`` (how a state holder's state goes into a compiled call and comes out),
``trace`` (the function the backend compiles: `f` run with the holders bound to traced state),
``entries`` (what is kept per argument key) and ``planner`` (the compiler of a backend without
one of its own: a trace's kernel calls, replayed)."""
