"""The ``tensorplug`` command: ``tensorplug <subcommand> [options]``.

Each subcommand is a module of this package with ``add_parser(subparsers)``, which registers
its parser and sets ``handler`` (a function from the parsed arguments to an exit code) with
``set_defaults``. Add a subcommand by adding its module to ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tensorplug.core.version import __version__

__all__ = ["main", "build_parser", "SUBCOMMANDS"]

# modules of tensorplug.cli, in the order `tensorplug --help` lists them
SUBCOMMANDS = ("info", "kernels", "doctor", "demo", "export")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensorplug",
        description="tensorplug: a tensor framework built for extension (ops, kernels, gradients "
                    "and backends from plugins).",
    )
    parser.add_argument("--version", action="version", version=f"tensorplug {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="<command>")
    for name in SUBCOMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:  # no subcommand: say what there is
        parser.print_help()
        return 0
    try:
        return int(handler(args) or 0)
    except BrokenPipeError:
        # the reader stopped early (`tensorplug kernels | head`): end quietly, as Unix tools do;
        # stdout goes to devnull so that the interpreter's final flush does not fail again
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # a stdout without a file (captured)
            pass
        return 1
