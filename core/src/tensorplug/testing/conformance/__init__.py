"""tensorplug's conformance suite for backends, run by the kit's pytest plugin:

    pytest --pyargs tensorplug.testing.conformance --tensorplug-backend NAME

One test per kernel spec (``test_kernel[<kernel name>]``) and one per differentiable kernel
(``test_gradient[<kernel name>]``); see ``tensorplug.testing.pytest_plugin`` for the options.
"""
