"""``python -m tensorplug.cli``: the same as the ``tensorplug`` command."""

import sys

from . import main

sys.exit(main())
