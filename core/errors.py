"""Errors that point a user at the exact place of bad input."""

from __future__ import annotations


class InputFormatError(ValueError):
    """A line of an input file does not have the expected shape.

    The message always names the file, the 1-based line number and what was
    expected, so a user can open the file and fix it.
    """

    def __init__(self, path: str, line_number: int, expected: str, got: str | None = None):
        self.path = str(path)
        self.line_number = line_number
        self.expected = expected
        self.got = got
        message = f"{self.path}:{line_number}: expected {expected}"
        if got is not None:
            shown = got if len(got) <= 120 else got[:117] + "..."
            message += f"; got {shown!r}"
        super().__init__(message)


class InputFileError(ValueError):
    """A whole input file is not what it should be (a binary format, a truncated file): no line to name."""

    def __init__(self, path, expected: str, got: str | None = None):
        self.path = str(path)
        self.expected = expected
        self.got = got
        message = f"{self.path}: expected {expected}"
        if got is not None:
            message += f"; got {got}"
        super().__init__(message)


class OptionsError(ValueError):
    """Options, or a combination of them, that a generator cannot run with (the CLI exits with status 2)."""


class OutputFileError(ValueError):
    """An output the command must not write: one of its own inputs, a directory, standard output for binary data."""

    def __init__(self, path, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class StudyUnavailableError(InputFileError):
    """A study that is there but cannot be used as asked: locked by another program, in a read-only folder,
    on a server out of reach. Not the file's fault, so the message says what to do, not what was expected."""

    def __init__(self, path, reason: str):
        ValueError.__init__(self, f"{path}: {reason}")
        self.path = str(path)
        self.expected = reason
        self.got = None


class BadNameError(ValueError):
    """A name (an annotator's, a system's, a study's) that cannot be stored as given: empty, too long, holding an
    invisible, control or direction character, or reading as another name of the study (core.person_names). The
    CLI says it in one line, exit 2."""
