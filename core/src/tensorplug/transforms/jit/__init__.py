"""``tp.jit``: ``api`` (the jitted function: the explicit core, and the state holders' layer on
top), ``trees`` (arguments and results as pytrees), ``state`` (how a holder's state goes into a
compiled call and comes out), ``entries`` (what is kept per argument key) and ``planner`` (the
compiler of a backend without one of its own: a trace's kernel calls, replayed)."""
