"""Text files in and out: nothing half-written, plain or gzip read the same way, gzip overlapped with formatting.

* :func:`atomic_output` is the one door of every output (issue 22): it refuses an output that is
  one of the command's inputs, writes a device, a FIFO or standard output directly, and
  a regular file (a symlink's target) through a temporary sibling renamed over it once
  complete and flushed, so a reader never sees a half-written file; the temporary of a
  killed writer is removed by the next write of the same file (:mod:`core.stale_temporaries`).
  :func:`staged_output` is the same door for an output another program builds (SQLite, lmplz).
  A full disk or a file past ``ulimit -f`` is one ``OSError`` naming the output
  (:mod:`core.out_of_space`), and nothing is left behind.
* :func:`open_text_maybe_gzip` (:class:`CheckedText`) opens a plain or gzip UTF-8 file by its
  magic bytes and turns every defect of the input (not UTF-8, NUL, overlong line, broken gzip)
  into ``file:line: expected ...``; :func:`read_lines` gives numbered lines.
* :func:`open_standard_input` reads standard input through the same checks.
* :func:`read_csv` reads CSV/TSV records through the same checks.
* :func:`read_token_lines` reads whitespace-tokenized sentences, one per line.
* :class:`WriteBehind` writes through a background thread: zlib releases the GIL
  while it compresses, so a thread that writes (and so compresses) one batch while
  the caller formats the next uses a second core. The bytes are the same: deflate's
  output does not depend on how its input is chunked.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import errno
import gzip
import io
import os
import queue
import shutil
import stat
import sys
import tempfile
import threading
import zlib
from pathlib import Path
from typing import IO, Iterator

from parastudio.core.csv_cells import restore
from parastudio.core.errors import InputFileError, InputFormatError, OutputFileError
from parastudio.core.out_of_space import OUT_OF_SPACE, out_of_space
from parastudio.core.output_files import DESCRIPTOR, FILE, STDOUT, OutputTarget, resolve_output, take_mode

# Re-exported: the writers of work folders (pivot's, Spark's) name theirs the same way.
from parastudio.core.stale_temporaries import (  # noqa: F401
    owner_is_gone,
    owner_tag,
    remove_stale_temporaries,
    temporary_prefix,
    temporary_sibling,
)
from parastudio.core.whole_writes import WholeWrites, is_unbuffered


@contextlib.contextmanager
def atomic_output(
    path: str | os.PathLike, mode: str = "w", *, inputs=(), encoding: str | None = "utf-8", compresslevel: int = 9,
    file_mode: int | None = None,
) -> Iterator[IO]:
    """Open the output ``path`` for writing: the one door every writer goes through (issue 22).

    ``inputs``: the files the command reads; naming one of them (also through a
    symlink or a hard link) as the output is refused before anything is written
    (:func:`core.output_files.resolve_output` decides every case). A regular file
    is written through a temporary sibling renamed over it once complete and
    flushed (a symlink's target so, the link kept); a device, a FIFO, ``-`` or
    ``/dev/stdout`` is written directly. A path ending in ``.gz`` is
    gzip-compressed (``compresslevel`` 9 by default; 6 is about three times faster
    for 2% more bytes). On an exception the temporary file is removed and the
    destination is left as it was. The new file keeps the mode (and, where this
    process may set them, the owner and group) of the file it replaces, so a
    ``chmod 600`` export stays private; a new file gets ``file_mode`` when given
    (a credential: 0o600, whatever was there), else what a plain open() gives.
    """
    target = resolve_output(path, inputs)
    compressed = os.fspath(path).endswith(".gz")
    if target.kind != FILE:
        with _direct_output(target) as raw, _layers(raw, mode, encoding, compressed, compresslevel) as handle:
            yield handle
        return
    destination = target.path
    destination.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(destination)
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=temporary_prefix(destination), suffix=".part",
                                                 dir=destination.parent)
    except OSError as error:
        raise _named(error, target.shown) from None
    take_mode(temporary, destination, file_mode)
    try:
        with os.fdopen(descriptor, "wb") as raw:
            with _layers(raw, mode, encoding, compressed, compresslevel) as handle:
                yield handle
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(temporary, destination)
    except BaseException as error:
        named = _named(error, target.shown, temporary)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        if named is not error:
            raise named from None
        raise


@contextlib.contextmanager
def staged_output(path: str | os.PathLike, *, inputs=(), what: str, text: bool = False) -> Iterator[Path]:
    """A path to build the output ``path`` at, for a writer that another program fills (SQLite, lmplz).

    The same decisions as :func:`atomic_output`: the path given is a new name
    beside the destination (a symlink's target), renamed over it when the block
    ends without error; for a device or a FIFO it is in the system's temporary
    folder and its bytes are copied in. ``-`` is taken only when ``text``
    (``what`` names the output in the refusal).
    """
    target = resolve_output(path, inputs)
    if target.kind == FILE:
        destination = target.path
        destination.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(destination)
        temporary = temporary_sibling(destination)
        try:
            try:  # made here, so a folder that takes no new file is said plainly, not as SQLite's "unable to open"
                temporary.touch(exist_ok=False)
            except OSError as error:
                if error.errno in OUT_OF_SPACE:
                    raise _named(error, target.shown) from None
                raise OutputFileError(target.shown, f"cannot be written ({error.strerror})") from None
            try:
                yield temporary
                with open(temporary, "rb") as handle:
                    os.fsync(handle.fileno())
                os.replace(temporary, destination)
            except BaseException as error:  # the program that filled it met the full disk in its own words
                named = _named(error, target.shown, temporary)
                if named is not error:
                    raise named from None
                raise
        finally:
            temporary.unlink(missing_ok=True)
        return
    if target.kind == STDOUT and not text:
        raise OutputFileError(target.shown, f"standard output takes text, and this writes {what}; name a file")
    with tempfile.TemporaryDirectory(prefix="parastudio-") as folder:
        temporary = Path(folder) / "output.part"
        yield temporary
        with open(temporary, "rb") as built, _direct_output(target) as raw:
            shutil.copyfileobj(built, raw, 1 << 20)


def _named(error: BaseException, shown: str, *written) -> BaseException:
    """``error``, or the one ``OSError`` naming the output when it says the disk or the file-size limit was reached
    (:mod:`core.out_of_space`)."""
    if not isinstance(error, Exception):
        return error  # Ctrl+C stays itself
    return out_of_space(error, "standard output" if shown == "-" else shown, files=written) or error


@contextlib.contextmanager
def _direct_output(target: OutputTarget) -> Iterator[IO[bytes]]:
    """The binary stream of a device, FIFO, descriptor or standard output, written in place and never closed
    before its last byte is flushed; a full disk behind it is said naming it."""
    try:
        with _direct_stream(target) as stream:
            yield stream
    except BaseException as error:
        named = _named(error, target.shown)
        if named is not error:
            raise named from None
        raise


@contextlib.contextmanager
def _direct_stream(target: OutputTarget) -> Iterator[IO[bytes]]:
    if target.kind == STDOUT:
        # The CLI's standard output escapes control characters from data (core.terminal_text's writer, which has
        # an ``unescaped``): the bytes go through it as text, not around it to its buffer.
        stream = None if hasattr(sys.stdout, "unescaped") else getattr(sys.stdout, "buffer", None)
        sys.stdout.flush()
        if is_unbuffered(stream):  # PYTHONUNBUFFERED: a partial write would lose bytes silently
            stream = WholeWrites(stream)
        if stream is None:  # a text stream put in its place (an escaping writer, a caller in process): decoded
            stream = _TextSink(sys.stdout)
        yield stream
        stream.flush()
        return
    if target.kind == DESCRIPTOR:
        raw = os.fdopen(os.dup(target.descriptor), "wb")
    else:
        raw = open(target.path, "wb")  # O_TRUNC does nothing to a device or a FIFO
    with raw:
        yield raw
        raw.flush()


class _TextSink(io.RawIOBase):
    """Bytes written into a text stream (``sys.stdout`` replaced by a ``StringIO``), as UTF-8."""

    def __init__(self, text_stream) -> None:
        super().__init__()
        self._text = text_stream
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._text.write(self._decoder.decode(bytes(data)))
        return len(data)

    def flush(self) -> None:
        self._text.flush()


@contextlib.contextmanager
def _layers(raw, mode: str, encoding: str | None, compressed: bool, compresslevel: int) -> Iterator[IO]:
    """``raw`` as the caller asked for it: gzip-compressed or not, bytes or UTF-8 text."""
    binary = "b" in mode
    if compressed:
        # mtime=0 keeps the bytes reproducible across rebuilds.
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=compresslevel) as zipped:
            if binary:
                yield zipped
            else:
                with _text(zipped, encoding) as handle:
                    yield handle
    elif binary:
        yield raw
    else:
        with _text(raw, encoding) as handle:
            yield handle


@contextlib.contextmanager
def _text(binary_handle, encoding: str | None) -> Iterator[IO[str]]:

    wrapper = io.TextIOWrapper(binary_handle, encoding=encoding or "utf-8", newline="\n", write_through=False)
    try:
        yield wrapper
        wrapper.flush()
    finally:
        wrapper.detach()


def require_regular_file(path: str | os.PathLike, why: str = "it is read twice") -> None:
    """Refuse a named pipe, a device or a folder given to a reader that must seek or read twice: a pipe
    would give its bytes once and then nothing (a silent ``rules: 0``) or block forever."""
    status = os.stat(path)  # a missing file: the system's own "No such file or directory"
    if stat.S_ISREG(status.st_mode):
        return
    raise InputFileError(path, f"a regular file ({why})", file_kind(status.st_mode))


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words (for a message)."""
    for test, name in ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a regular file"


def read_token_lines(path: str | os.PathLike, limit: int | None = None) -> list[list[str]]:
    """Tokenized sentences, one per line (plain or gzip); blank lines are kept as empty sentences,
    so line ``i`` of a source file and of its reference file stay sentence ``i`` of both."""
    with open_text_maybe_gzip(path) as handle:
        sentences = [line.split() for line in handle]
    return sentences[:limit] if limit is not None else sentences


# A sentence longer than this is refused before a search starts (issue 39): the searches' memory grows with the
# sentence (one 100,000-token line drove generate to 13.7 GB); the test sets' longest sentences have about 150.
MAX_SENTENCE_TOKENS = 1000

# A line longer than this is refused, not read: no table, sentence or JSON record of ours comes near it,
# and a file of one 10 MB line (or 2.6 million tokens) would otherwise be parsed in memory.
MAX_LINE_BYTES = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"


class CheckedText:
    """A UTF-8 text file (plain or gzip) read line by line, every defect an :class:`InputFormatError`.

    The one place text input is checked (issue 18): a UTF-8 byte-order mark at
    the start is dropped, CRLF read as LF, and a line that is not UTF-8, holds a
    NUL byte, a carriage return not before its line feed, a byte-order mark
    (issue 22: anywhere but the start) or is longer
    than ``max_line_bytes``, or a gzip stream that is truncated or corrupt, stops
    the read with ``file:line: expected ...``.
    Iterating yields lines ending in ``"\\n"`` (except perhaps the last), as a
    text file object does; ``line_number`` is the number of the last line read.
    """

    def __init__(self, path: str | os.PathLike, *, max_line_bytes: int = MAX_LINE_BYTES,
                 stream: io.BufferedReader | None = None, inner_carriage_returns: bool = False):
        self.path = str(path)
        self._inner_carriage_returns = inner_carriage_returns  # a CSV reader says where its fields hold one
        self.name = self.path
        self.max_line_bytes = max_line_bytes
        self.line_number = 0
        # A stream (standard input) is read as a file is, and left open: it is not ours to close.
        self._owns_raw = stream is None
        raw = open(self.path, "rb") if stream is None else stream
        try:
            magic = raw.peek(2)[:2]
        except BaseException:
            if self._owns_raw:
                raw.close()
            raise
        self.compressed = magic == _GZIP_MAGIC
        # Named .gz but not gzip: a defect then says the file is neither, not merely "not UTF-8".
        self._misnamed_gzip = not self.compressed and self.path.endswith(".gz")
        self._raw = raw
        # A buffered reader over the gzip stream: its readline runs in C, about twice as fast as GzipFile's.
        self._gzip = gzip.GzipFile(fileobj=raw, mode="rb") if self.compressed else None
        self._binary = io.BufferedReader(self._gzip, 1 << 20) if self._gzip is not None else raw

    def _fail(self, expected: str, got: str | None = None) -> InputFormatError:
        return InputFormatError(self.path, max(1, self.line_number), expected, got)

    def _bad_text(self, expected: str, got: str, what_is_wrong: str) -> InputFormatError:
        """A line that is not text: for a file named .gz that is not gzip either, say it is neither."""
        if self._misnamed_gzip:
            return self._fail("a gzip file, as its name ends in .gz (or plain UTF-8 text)",
                              f"a file that is neither: it does not begin with gzip's bytes 1f 8b, and {what_is_wrong}")
        return self._fail(expected, got)

    def readline(self) -> str:
        try:
            data = self._binary.readline(self.max_line_bytes + 1)
        except (EOFError, OSError, zlib.error) as error:
            self.line_number += 1
            raise self._fail("a complete gzip file", f"{type(error).__name__}: {error}") from None
        if not data:
            return ""
        self.line_number += 1
        if len(data) > self.max_line_bytes and not data.endswith(b"\n"):
            raise self._bad_text(f"a line of at most {self.max_line_bytes:,} bytes",
                                 data[:60].decode("utf-8", "replace"),
                                 f"line {self.line_number} is longer than {self.max_line_bytes:,} bytes")
        if self.line_number == 1 and data.startswith(_BOM):
            data = data[len(_BOM):]
        if _BOM in data:  # files pasted together: read as text, it would glue itself to a word (a new item, a new rule)
            raise self._bad_text("a byte-order mark (U+FEFF) only at the start of the file",
                                 data[:60].decode("utf-8", "replace"),
                                 f"line {self.line_number} holds a byte-order mark")
        if b"\x00" in data:
            raise self._bad_text("text without NUL bytes", data[:60].decode("utf-8", "replace"),
                                 f"line {self.line_number} holds a NUL byte")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self._bad_text(f"UTF-8 text (byte {error.start + 1} of the line is not)",
                                 data[max(0, error.start - 20):error.start + 20].decode("utf-8", "replace"),
                                 f"byte {error.start + 1} of line {self.line_number} is not UTF-8") from None
        if text.endswith("\r\n"):
            text = text[:-2] + "\n"
        if "\r" in text and not self._inner_carriage_returns:  # lines ended by CR alone (old Mac files): read as one line, two sentences would become one
            raise self._bad_text("lines ending in LF or CRLF (a carriage return only before a line feed)",
                                 text[:60], f"line {self.line_number} holds a carriage return")
        return text

    def __iter__(self) -> Iterator[str]:
        while True:
            line = self.readline()
            if not line:
                return
            yield line

    def read(self) -> str:
        return "".join(self)

    def close(self) -> None:
        try:
            if self._gzip is not None:
                self._gzip.close()
        finally:
            if self._owns_raw:
                self._raw.close()

    def __enter__(self) -> "CheckedText":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def open_text_maybe_gzip(path: str | os.PathLike, *, max_line_bytes: int = MAX_LINE_BYTES) -> CheckedText:
    """Open a plain or gzip-compressed UTF-8 text file for reading, every defect a clear error (:class:`CheckedText`)."""
    return CheckedText(path, max_line_bytes=max_line_bytes)


def open_standard_input(max_line_bytes: int = MAX_LINE_BYTES) -> CheckedText:
    """Standard input as a checked text file named ``<stdin>`` (UTF-8 whatever the locale says)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream put in its place (a caller in process): its text, as UTF-8 bytes
        stream = io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))
    if not hasattr(stream, "peek"):
        stream = io.BufferedReader(stream)
    return CheckedText("<stdin>", max_line_bytes=max_line_bytes, stream=stream)


def read_csv(path: str | os.PathLike, *, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of every record of a CSV (or TSV) file read through :class:`CheckedText`.

    A record's number is that of its last line (``csv.reader.line_num``: a
    quoted field may hold a newline). A cell our CSV exports quoted so that a
    spreadsheet would not run it (``'=...``, :mod:`core.csv_cells`) is read as it was. A quote out of place, a carriage return
    inside a field or a field longer than the csv module takes stops the read
    with ``file:line: expected ...``.
    """
    with CheckedText(path, inner_carriage_returns=True) as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                raise InputFormatError(str(path), max(1, reader.line_num), "CSV fields (every quote closed, no "
                                       "carriage return inside a field)", str(error)) from None
            yield reader.line_num, [restore(cell) for cell in row]  # our exports' quoted formulas, as they were


def read_lines(path: str | os.PathLike, *, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """``(line number, text without its end of line)`` for every line of a checked text file."""
    with CheckedText(path, max_line_bytes=max_line_bytes) as handle:
        for line in handle:
            yield handle.line_number, line.rstrip("\n")


class WriteBehind:
    """``with WriteBehind(handle) as writer: writer.write(text)``; at exit every batch has been written."""

    def __init__(self, handle: IO[str], *, depth: int = 4) -> None:
        self._handle = handle
        self._batches: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, name="write-behind", daemon=True)

    def _drain(self) -> None:
        while True:
            batch = self._batches.get()
            if batch is None:
                return
            if self._error is None:
                try:
                    self._handle.write(batch)
                except BaseException as error:  # re-raised in the caller's thread
                    self._error = error

    def write(self, text: str) -> None:
        if self._error is not None:
            raise self._error
        self._batches.put(text)

    def __enter__(self) -> "WriteBehind":
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._batches.put(None)
        self._thread.join()
        if self._error is not None and exc_info[0] is None:
            raise self._error


def missing_input(path: str | os.PathLike, what: str) -> OSError:
    """The error for an input ``path`` that is not a file to read: a symlink loop as one (``ELOOP``, which the CLI
    shows as ``PATH: symlink loop``), not as a file "not found" that is plainly there; else ``PATH: WHAT not found``."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
    if os.path.isdir(path):
        return IsADirectoryError(f"{path}: a folder, not a {what}")
    return FileNotFoundError(f"{path}: {what} not found")
