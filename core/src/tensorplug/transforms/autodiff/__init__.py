"""Autodiff: the tape that records kernel calls (``tape``), the functional API (``api``: grad,
value_and_grad, vjp, variable_grads, custom_grad, stop_gradient), forward mode (``forward``: jvp,
linearize; ``transpose``: a gradient transposed into a JVP and back), ``jacobians`` (jacfwd,
jacrev, hessian, hvp), ``custom_jvp``, ``checkpoint`` (rematerialization) and pytree helpers."""
