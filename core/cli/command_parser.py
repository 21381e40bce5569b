"""The argparse parser of every ``parastudio`` command: a refusal is one line, numbers are read one way.

argparse's own ``error()`` prints the usage block (up to twenty lines for ``generate``) before the message, so
the one line that says what was wrong is the last of many. Here it is the only one, as every other refusal of
the command line is said (``parastudio: error: --stack-size: expected a whole number of at least 1, not
'0x10'``), exit status 2; ``--help`` still prints the usage. A bare ``type=int`` or ``type=float`` is read as
:mod:`core.cli.number_options` reads numbers, whoever declares the option.

Subparsers are made with their parent's class (argparse's default), so one parser of this class at the top
gives every subcommand, a plugin's included, the same behaviour.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from parastudio.core.cli.number_options import RealNumber, WholeNumber
from parastudio.core.terminal_text import escape_controls


class CommandParser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # argparse looks every type= up in this registry before calling it (groups share their parser's).
        self.register("type", int, WholeNumber())
        self.register("type", float, RealNumber())

    def error(self, message: str) -> NoReturn:
        # argparse says "argument --top: ..."; the option's name alone reads as our file:line messages do.
        self.exit(2, f"parastudio: error: {one_line(message.removeprefix('argument '))}\n")


def one_line(message: str) -> str:
    """``message`` with control characters escaped and line breaks shown as ``\\n`` (a value typed with one)."""
    return escape_controls(message).replace("\n", "\\n")
