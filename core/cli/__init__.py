"""The ``parastudio`` command line: one entry point, one module per subcommand.

Each module named in ``SUBCOMMAND_MODULES`` defines ``register(subparsers)``,
which adds its subcommand(s) and sets ``func`` (taking the parsed arguments,
returning an exit code) as the parser default. Packages outside ``core`` (the
desktop app) add commands through the ``parastudio.commands`` entry-point
group, so ``core`` never imports them.
"""

from __future__ import annotations

import argparse
import errno
import functools
import importlib
import os
import sys

from parastudio.core.cli.closed_streams import ClosedStreamError, stand_in_for_closed_streams
from parastudio.core.cli.command_parser import CommandParser
from parastudio.core.cli.study_access import StudyChoiceError
from parastudio.core.errors import BadNameError, InputFileError, InputFormatError, OptionsError, OutputFileError
from parastudio.core.interruption import Terminated, end_cleanly_on_sigterm
from parastudio.core.out_of_space import (
    OUT_OF_SPACE,
    WHY,
    ignore_file_size_signal,
    out_of_space,
    standard_output_is_out_of_space,
)
from parastudio.core.terminal_text import escape_controls, escaping_streams
from parastudio.core.whole_writes import whole_writes_on_standard_output

SUBCOMMAND_MODULES = [
    "parastudio.core.cli.table_cmd",
    "parastudio.core.cli.truescore_cmd",
    "parastudio.core.cli.lm_cmd",
    "parastudio.core.cli.pivot_cmd",
    "parastudio.core.cli.agreement_cmd",
    "parastudio.core.cli.data_cmd",
    "parastudio.core.cli.study_cmd",
    "parastudio.core.cli.generate_cmd",
    "parastudio.core.cli.reproduce_cmd",
    "parastudio.core.cli.experiment_cmd",
    "parastudio.core.cli.inspect_cmd",
    "parastudio.core.cli.suggest_cmd",
    "parastudio.core.cli.serve_cmd",
    "parastudio.core.cli.patterns_cmd",
    "parastudio.core.cli.devset_cmd",
    "parastudio.core.cli.tune_cmd",
    "parastudio.core.cli.metrics_cmd",
    "parastudio.core.cli.metaeval_cmd",
]
PLUGIN_GROUP = "parastudio.commands"


def build_parser(argv: list[str] | None = None, modules: tuple[str, ...] | None = None) -> argparse.ArgumentParser:
    """Every subcommand; the plugins' too unless ``argv`` names one of ours first (reading the installed
    packages' entry points is most of what a command of ours would otherwise spend before starting).
    ``modules``: only these of ``SUBCOMMAND_MODULES`` (the app bundle, which carries only the commands it runs)."""
    parser = CommandParser(  # one-line refusals, numbers read one way: every subcommand's parser is one too
        prog="parastudio",
        description="Paraphrase Studio: generate, judge, measure, inspect, export and tune paraphrases.",
    )
    parser.add_argument("--version", action=_CodeVersion, nargs=0,
                        help="show the code's version and commit (core/code_identity.py) and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES if modules is None else modules:
        importlib.import_module(name).register(subparsers)
    if argv and argv[0] in subparsers.choices:
        return parser
    from importlib import metadata

    for entry_point in sorted(metadata.entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        entry_point.load()(subparsers)
    return parser


class _CodeVersion(argparse.Action):
    """``--version``: the version every candidate records, read only when asked (git runs for it)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from parastudio.core.code_identity import version_line

        print(version_line())
        parser.exit()


@functools.lru_cache(maxsize=64)
def _parser(first: str | None, modules: tuple[str, ...] | None = None) -> argparse.ArgumentParser:
    # Built once per process (per first word): a caller running many commands in process (the fuzz tests)
    # pays for it once; the plugins are read only when the first word is not one of our commands.
    return build_parser([first] if first is not None else None, modules)


def _tolerant_output() -> None:
    """A terminal that cannot show a character gets an escape, not a traceback."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream already in use by a wrapper that cannot change
                pass


def main(argv: list[str] | None = None, *, commands: tuple[str, ...] | None = None) -> int:
    """Run one command; bad input exits 2 with ``file:line: expected ...``, never a traceback. ``commands``: the
    modules of ``SUBCOMMAND_MODULES`` to offer (default all)."""
    stand_in_for_closed_streams()  # `cmd >&-`: one line when it writes there, not an AttributeError
    ignore_file_size_signal()  # past `ulimit -f` a write fails with EFBIG, said in one line
    whole_writes_on_standard_output()  # PYTHONUNBUFFERED: a partial write raises, never drops bytes
    _tolerant_output()
    words = sys.argv[1:] if argv is None else argv
    parser = _parser(words[0] if words else None, commands)
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
    except ClosedStreamError as error:  # --help or --version with standard output closed
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    end_cleanly_on_sigterm()
    try:
        with escaping_streams(json_on_stdout=writes_json(args)):  # names and texts from files: shown, not obeyed
            status = int(args.func(args) or 0)
            if sys.stdout is not None:  # None: a caller in process silenced it
                sys.stdout.flush()  # here, so that a full disk behind standard output is said like any other
            return status
    except (InputFormatError, InputFileError, OptionsError, OutputFileError, BadNameError,
            ClosedStreamError) as error:
        print(f"parastudio: error: {escape_controls(str(error))}", file=sys.stderr)
        return 2
    except StudyChoiceError as error:  # no such study, or which of several (core.cli.study_access)
        print(f"parastudio: error: {escape_controls(str(error))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # before OSError, of which it is one
        return _reader_went_away()
    except OSError as error:  # a missing file, a full disk, no permission: the system's words, no traceback
        if error.errno in OUT_OF_SPACE:
            return _out_of_space(args, error)
        if error.errno == errno.ELOOP:  # an input, not the system: "not found" would send the user looking for it
            print(f"parastudio: error: {error.filename}: symlink loop (a symbolic link that leads back to itself)",
                  file=sys.stderr)
            return 2
        print(f"parastudio: error: {escape_controls(str(error))}", file=sys.stderr)
        return 1
    except Terminated:
        print("parastudio: terminated (SIGTERM); what it was writing was not kept", file=sys.stderr)
        return _end_workers(143)
    except KeyboardInterrupt:
        print("parastudio: interrupted; what it was writing was not kept", file=sys.stderr)
        return _end_workers(130)
    except Exception as error:  # a study file damaged where only a later query reads: say so, no traceback
        if _interrupted_inside(error):  # DuckDB's own word for Ctrl+C during a query
            print("parastudio: interrupted; what it was writing was not kept", file=sys.stderr)
            return 130
        exhausted = out_of_space(error, _written_file(args) or "the output")
        if exhausted is not None:  # SQLite's or DuckDB's words for a full disk: said as every writer says it
            return _out_of_space(args, exhausted)
        spark_failed = _spark_failure(error)
        if spark_failed is not None:  # a job that failed on the cluster: its cause in one line
            print(f"parastudio: error: {escape_controls(spark_failed)}", file=sys.stderr)
            return 1
        damaged = _damaged_study(args, error)
        if damaged is None:
            raise
        print(f"parastudio: error: {escape_controls(str(damaged))}", file=sys.stderr)
        return 2


def writes_json(args: argparse.Namespace) -> bool:
    """Whether the command writes JSON to standard output (``--json``, ``--format json`` or ``jsonl``): JSON
    escapes C0 itself, and its DEL and C1 are escaped the JSON way (the same values), not as ``\\xNN``."""
    return bool(getattr(args, "json", False)) or getattr(args, "format", None) in ("json", "jsonl")


def _out_of_space(args: argparse.Namespace, error: OSError) -> int:
    """A full disk or a file past ``ulimit -f``: the file, the cause, exit 1. Standard output is then pointed at
    /dev/null, so the interpreter's own flush at exit does not fail again on what could not be written."""
    # A print() names no file: standard output when it is the full one, else the file the command writes.
    shown = error.filename or ("standard output" if standard_output_is_out_of_space() else _written_file(args))
    cause = WHY.get(error.errno, error.strerror)
    print(f"parastudio: error: {escape_controls(str(shown)) + ': ' if shown else ''}{cause}", file=sys.stderr)
    _silence_standard_output()
    return 1


def _written_file(args: argparse.Namespace) -> str | None:
    """The file a command writes, to name when the system did not say which (a ``write()`` knows no name)."""
    for name in ("output", "out", "db", "study"):
        value = getattr(args, name, None)
        if value is not None and not isinstance(value, (bool, int, list)):
            return str(value)
    return None


def _end_workers(status: int) -> int:
    """Worker processes a pool started again after a signal ended its first ones would keep the exit waiting."""
    if "multiprocessing" in sys.modules:
        import multiprocessing

        for child in multiprocessing.active_children():
            child.kill()
            child.join(1)
    return status


def _interrupted_inside(error: Exception) -> bool:
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(error, getattr(duckdb, "InterruptException", ()))


def _spark_failure(error: Exception) -> str | None:
    if "pyspark" not in sys.modules and "py4j" not in sys.modules:  # no Spark ran: nothing to import
        return None
    from parastudio.core.cli.spark_failure import spark_failure_line

    return spark_failure_line(error)


def _damaged_study(args: argparse.Namespace, error: Exception):
    if "sqlalchemy" not in sys.modules:  # no database was opened
        return None
    from parastudio.core.store.database import shown_study_name, study_error

    shown = getattr(args, "db", None) or getattr(args, "study", None) or getattr(args, "file", None)
    try:
        shown = shown_study_name(shown) if shown else "the study database"
    except Exception:  # noqa: BLE001 - a name SQLAlchemy cannot parse: show it as given
        pass
    return study_error(str(shown), error)


def _reader_went_away() -> int:
    """The reader of our output closed it (``| head``): stop quietly, as a shell tool does.

    Standard output is pointed at /dev/null first, so the interpreter's own flush at exit
    does not raise again."""
    _silence_standard_output()
    return 141  # 128 + SIGPIPE, what a shell reports for a tool stopped by a closed pipe


def _silence_standard_output() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor behind stdout (a test's capture, a closed one)
        pass
    finally:
        os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
