"""``python -m tensorplug.cli``: the same as the ``tensorplug`` command."""

import sys

from tensorplug.cli import main

if __name__ == "__main__":  # (not when a documentation tool imports every module)
    sys.exit(main())
