"""The core's JVP rules (forward mode), one module per kernel family (importing declares
them). A differentiable kernel without a rule here gets its JVP by transposing its gradient."""

from tensorplug._families import import_families

import_families(__name__)
