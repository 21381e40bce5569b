"""Text from other people's files shown on a terminal: control characters escaped, never obeyed (issue 22).

A name, a sentence or a candidate may carry bytes a terminal acts on: ESC
starts sequences that set the window title, clear the screen or rewrite what
was printed; C1 controls (U+0080-U+009F) do the same on some terminals; a
carriage return or backspaces hide what came before. :func:`escape_controls`
writes each as ``\\xNN`` (C0 but tab and newline, DEL, C1), so the text reads as
it is and does nothing. :class:`EscapingWriter` applies it to a whole stream:
the CLI puts it in front of standard error, and of standard output unless the
command writes JSON there (JSON escapes C0 itself, and a JSON reader must get
the JSON's own bytes).
"""

from __future__ import annotations

import contextlib
import sys
from typing import IO, Iterator

_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
_ESCAPES = {code: f"\\x{code:02x}" for code in _CONTROLS}


def escape_controls(text: str) -> str:
    """``text`` with every C0 control but tab and newline, DEL and every C1 control as ``\\xNN``."""
    return text.translate(_ESCAPES)


class EscapingWriter:
    """A text stream whose writes go through :func:`escape_controls`; ``unescaped`` is the stream behind it,
    for our own terminal output (a progress bar's carriage returns)."""

    def __init__(self, stream: IO[str]):
        self.unescaped = stream

    def write(self, text: str) -> int:
        self.unescaped.write(escape_controls(text))
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
    """Standard error, and standard output unless ``json_on_stdout``, escaped for the duration (then restored)."""
    saved = sys.stdout, sys.stderr
    sys.stderr = EscapingWriter(sys.stderr)
    if not json_on_stdout:
        sys.stdout = EscapingWriter(sys.stdout)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
