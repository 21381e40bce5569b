"""Reproductions of the seeds' experiments, one module per analysis."""

from __future__ import annotations

import argparse
import sys
from typing import Callable


def module_main(module: str, description: str, add_arguments: Callable[[argparse.ArgumentParser], None],
                run_from_args: Callable[[argparse.Namespace, str], int], argv: list[str] | None) -> int:
    """``python -m core.experiments.<module>``: parse, record the command as typed, run."""
    prog = f"python -m core.experiments.{module}"
    parser = argparse.ArgumentParser(prog=prog, description=description)
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run_from_args(args, " ".join([prog, *(argv if argv is not None else sys.argv[1:])]))
