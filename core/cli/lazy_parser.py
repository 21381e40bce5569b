"""Subcommands whose arguments are added when they are used, not when ``parastudio --help`` lists them.

Listing a subcommand needs only its name and one line of help; its arguments may need the module that runs
it (the experiments, the build stages, the generators), which costs tenths of a second to import. A
:class:`LazyArgumentsParser` adds them the first time it parses or prints its own help.
"""

from __future__ import annotations

import argparse
from typing import Callable

from parastudio.core.cli.command_parser import CommandParser


class LazyArgumentsParser(CommandParser):
    def __init__(self, *args, **kwargs):
        self._add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
        super().__init__(*args, **kwargs)

    def _load(self) -> None:
        add, self._add_arguments = self._add_arguments, None
        if add is not None:
            add(self)

    def parse_known_args(self, args=None, namespace=None):
        self._load()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._load()
        return super().format_help()

    def format_usage(self) -> str:
        self._load()
        return super().format_usage()


def add_lazy_parser(subparsers: argparse._SubParsersAction, name: str,
                    add_arguments: Callable[[argparse.ArgumentParser], None], **kwargs) -> argparse.ArgumentParser:
    """``subparsers.add_parser(name, **kwargs)`` whose arguments ``add_arguments(parser)`` adds on first use."""
    # add_parser builds its parser with the action's parser class; there is no per-parser argument for it.
    default_class = subparsers._parser_class
    subparsers._parser_class = LazyArgumentsParser
    try:
        parser = subparsers.add_parser(name, **kwargs)
    finally:
        subparsers._parser_class = default_class
    parser._add_arguments = add_arguments
    return parser
