"""Text from other people's files shown on a terminal: control characters escaped, never obeyed (issue 22).

A name, a sentence or a candidate may carry bytes a terminal acts on: ESC
starts sequences that set the window title, clear the screen or rewrite what
was printed; C1 controls (U+0080-U+009F) do the same on some terminals; a
carriage return or backspaces hide what came before. :func:`escape_controls`
writes each as ``\\xNN`` (C0 but tab and newline, DEL, C1), so the text reads as
it is and does nothing. :class:`EscapingWriter` applies it to a whole stream:
the CLI puts it in front of standard error and standard output. A command that
writes JSON there gets :func:`escape_json_controls` instead: JSON escapes C0
itself but may carry DEL and C1 raw inside its strings, and ``\u009b`` is the
same JSON value as a raw U+009B, so a JSON reader gets the same values.
"""

from __future__ import annotations

import contextlib
import sys
from typing import IO, Iterator

_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
# Bidirectional controls reorder what a terminal shows around them (a name can make a row read otherwise,
# issue 39): shown as \uNNNN, in plain and in JSON output alike.
_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ESCAPES = {**{code: f"\\x{code:02x}" for code in _CONTROLS}, **{code: f"\\u{code:04x}" for code in _BIDI}}
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in (0x7F, *range(0x80, 0xA0), *_BIDI)}


def escape_controls(text: str) -> str:
    """``text`` with every C0 control but tab and newline, DEL and every C1 control as ``\\xNN``, and every
    bidirectional control as ``\\uNNNN``."""
    return text.translate(_ESCAPES)


def escape_json_controls(text: str) -> str:
    """JSON text with DEL and C1 controls (raw only inside its strings) as ``\\u00NN``: the same JSON values."""
    return text.translate(_JSON_ESCAPES)


class EscapingWriter:
    """A text stream whose writes go through ``escape`` (:func:`escape_controls` by default); ``unescaped`` is
    the stream behind it, for our own terminal output (a progress bar's carriage returns)."""

    def __init__(self, stream: IO[str], escape=escape_controls):
        self.unescaped = stream
        self._escape = escape

    def write(self, text: str) -> int:
        self.unescaped.write(self._escape(text))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):  # flush, fileno, isatty, encoding, buffer...: the stream's own
        return getattr(self.unescaped, name)


def unescaped(stream: IO[str]) -> IO[str]:
    """The stream behind an :class:`EscapingWriter` (``stream`` itself otherwise)."""
    return getattr(stream, "unescaped", stream)


@contextlib.contextmanager
def escaping_streams(*, json_on_stdout: bool) -> Iterator[None]:
    """Standard error and standard output escaped for the duration (then restored); standard output as JSON
    (:func:`escape_json_controls`) when ``json_on_stdout``."""
    saved = sys.stdout, sys.stderr
    # Only a terminal obeys control characters; a pipe or a file gets the bytes as they are (a CSV's CRLF, a
    # cell's own characters), since what reads it is a program, not a screen.
    if _terminal(sys.stderr):
        sys.stderr = EscapingWriter(sys.stderr)
    if _terminal(sys.stdout):
        sys.stdout = EscapingWriter(sys.stdout, escape_json_controls if json_on_stdout else escape_controls)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _terminal(stream) -> bool:
    """Whether ``stream`` is a terminal (None: a caller that silenced it; a test's capture: not one)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False
