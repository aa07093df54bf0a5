"""The kernel families: one folder per family, holding side by side what the core says about
its kernels. In ``families/<family>/``: ``spec.py`` (the kernel specs), ``ops.py`` (the public
ops that dispatch them), ``gradients.py``, ``jvps.py`` and ``batching.py`` (the rules, each
declared as data: ``registry/core_entries.py``). ``_common/`` holds what every family's modules
use. ``registration.register_core`` imports every folder's modules and registers their rules."""
