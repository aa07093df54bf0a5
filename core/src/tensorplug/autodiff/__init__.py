"""Autodiff: the tape that records kernel calls (``tape``), the functional API (``api``: grad,
value_and_grad, vjp, variable_grads, custom_grad, stop_gradient), ``checkpoint``
(rematerialization) and pytree helpers."""
