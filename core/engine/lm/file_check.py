"""Check a KenLM model file before KenLM reads it: a truncated or malformed file is refused with a clear message.

KenLM maps a binary file and trusts it: cut at 99 % it loads and scores
(the cut only removes vocabulary strings); cut shorter, or with a broken
header, it raises from deep inside. An ARPA file with wrong n-gram counts,
NaN or positive log10 probabilities is read without complaint or with a
C++ message. So before KenLM sees a file we check:

* **binary** (KenLM's ``lm/binary_format.cc``, format version 5): the
  sanity block and the fixed parameters (order 1-6, probing multiplier >= 1,
  a known model type), the n-gram counts, and, when the file carries its
  vocabulary (``has_vocabulary``), that it ends with exactly ``counts[0]``
  NUL-terminated UTF-8 words, the first of which is ``<unk>``: KenLM writes
  the vocabulary strings last, in word-id order, and id 0 is ``<unk>``, so a
  file missing any of its end fails this. KenLM itself refuses a file shorter
  than its header claims (checked too, by KenLM, on load).
* **ARPA** (plain or gzip), as KenLM's ``lm/read_arpa.cc`` reads it: no
  byte-order mark, only blank or ``#`` lines before ``\\data\\``, the
  ``ngram N=COUNT`` lines (orders 1-6) ended by a blank line, one section per
  order with exactly the announced number of entries, each with a finite
  log10 probability <= 0, a tab after a unigram's probability, the right
  number of words, all of them unigrams, and a finite back-off (none but 0 at
  the highest order); ``<s>`` and ``</s>`` among the unigrams; ``\\end\\``
  and nothing after it but blank lines. It reads the whole file once (KenLM
  reads it all anyway).
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

from parastudio.core.errors import InputFileError, InputFormatError
from parastudio.core.textio import read_lines, require_regular_file

BINARY_MAGIC_PREFIX = b"mmap lm http://kheafield.com/code"
BINARY_MAGIC = b"mmap lm http://kheafield.com/code format version 5\n\0"
INCOMPLETE_MAGIC = b"mmap lm http://kheafield.com/code incomplete\n"
SANITY_BYTES = 88  # ALIGN8(sizeof magic) + 3 floats + 3 word indexes + one uint64
PARAMETERS_FORMAT = "<B3xfi?3xI"  # order, probing multiplier, model type, has vocabulary, search version
MODEL_TYPES = 6  # probing, rest probing, trie, quantized trie, array trie, quantized array trie
# The words KenLM writes last are short; this bounds how much of the end is read to find them.
MAX_WORD_BYTES = 1024


def check_lm_file(path: str | os.PathLike) -> None:
    """Raise :class:`InputFileError` or :class:`InputFormatError` unless ``path`` looks like a whole KenLM model."""
    path = Path(path)
    require_regular_file(path)  # its head and tail are read here, then KenLM reads it again
    with open(path, "rb") as handle:
        head = handle.read(len(BINARY_MAGIC_PREFIX))
    if head.startswith(BINARY_MAGIC_PREFIX):
        check_binary(path)
    else:
        check_arpa(path)


def check_binary(path: Path) -> None:
    size = path.stat().st_size
    with open(path, "rb") as handle:
        header = handle.read(SANITY_BYTES + struct.calcsize(PARAMETERS_FORMAT) + 8 * 6)
        if header.startswith(INCOMPLETE_MAGIC):
            raise InputFileError(path, "a finished KenLM binary", "a binary whose build did not finish")
        if not header.startswith(BINARY_MAGIC):
            raise InputFileError(path, "a KenLM binary of format version 5", repr(header[:60]))
        if len(header) < SANITY_BYTES + struct.calcsize(PARAMETERS_FORMAT):
            raise InputFileError(path, "a KenLM binary header", f"a file of {size} bytes")
        floats = struct.unpack("<fff", header[56:68])
        if floats != (0.0, 1.0, -0.5):
            raise InputFileError(path, "a KenLM binary built on a little-endian 64-bit machine",
                                 f"test values {floats}")
        order, multiplier, model_type, has_vocabulary, _version = struct.unpack_from(
            PARAMETERS_FORMAT, header, SANITY_BYTES)
        if not 1 <= order <= 6 or multiplier < 1.0 or not 0 <= model_type < MODEL_TYPES:
            raise InputFileError(path, "a KenLM binary header (order 1-6, probing multiplier >= 1, a known "
                                 "model type)", f"order {order}, multiplier {multiplier}, type {model_type}")
        counts_at = SANITY_BYTES + struct.calcsize(PARAMETERS_FORMAT)
        handle.seek(counts_at)
        raw_counts = handle.read(8 * order)
        if len(raw_counts) < 8 * order:
            raise InputFileError(path, f"the {order} n-gram counts of the header", f"a file of {size} bytes")
        counts = struct.unpack(f"<{order}Q", raw_counts)
        header_bytes = (counts_at + 8 * order + 7) // 8 * 8
        if not all(counts) or size <= header_bytes + counts[0]:
            raise InputFileError(path, f"a whole KenLM binary of {order}-grams with counts {list(counts)}",
                                 f"a file of {size} bytes")
        if has_vocabulary:
            _check_vocabulary_tail(path, handle, size, counts[0])


def _check_vocabulary_tail(path: Path, handle, size: int, words: int) -> None:
    span = min(size, words * MAX_WORD_BYTES)
    handle.seek(size - span)
    tail = handle.read(span)
    if not tail.endswith(b"\0"):
        raise InputFileError(path, f"a KenLM binary that ends with its {words} vocabulary words",
                             "a file cut short (it does not end with a word's terminating NUL)")
    end = len(tail) - 1  # the terminator of the last word
    intact = True
    for _ in range(words - 1):  # walk back over the last words to the terminator of the first
        start = tail.rfind(b"\0", 0, end) + 1
        if start == 0 or start == end:  # ran out of the tail, or an empty word: not KenLM's word list
            intact = False
            break
        end = start - 1
    if intact and tail[max(0, end - 5):end] == b"<unk>":
        return
    raise InputFileError(path, f"a KenLM binary that ends with its {words} vocabulary words, <unk> first",
                         "a file cut short or not written by KenLM")


# KenLM's ARPA reader (lm/read_arpa.cc), mirrored: isspace() for blank lines, kARPASpaces (space, tab, CR)
# between words, double-conversion numbers; the entry regexes are stricter than KenLM, never looser.
_BLANK = " \t\n\v\f\r"
_NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_WORD = r"[^ \t\r]+"
_COUNT = re.compile(r"ngram ([1-9][0-9]*)=([0-9]+)")
FLOAT32_MAX = 3.4028234663852886e38  # KenLM stores float: a larger magnitude is infinite there
MAX_ORDER = 6  # KenLM's default KENLM_MAX_ORDER, that of the kenlm module


def _entry_pattern(order: int) -> re.Pattern:
    # A unigram needs a tab after its probability (Read1Gram); then words, and a back-off after a tab.
    after_probability = "\t[ \t\r]*" if order == 1 else "[ \t\r]+"
    words = "[ \t\r]+".join([_WORD] * order)
    return re.compile(rf"[ \t\v\f]*({_NUMBER}){after_probability}({words})(?:\t[ \t\v\f]*({_NUMBER}))?")


def _is_blank(line: str) -> bool:
    return not line.strip(_BLANK)


def check_arpa(path: Path) -> None:
    """Every line of the ARPA file as KenLM reads it (module docstring)."""
    with open(path, "rb") as handle:
        if handle.read(3) == b"\xef\xbb\xbf":  # our readers skip it, KenLM does not: say so here
            raise InputFormatError(path, 1, "an ARPA file without a byte-order mark (KenLM reads none)",
                                   "a UTF-8 byte-order mark before \\data\\")
    reading = _ArpaReading(path)
    number = 0
    for number, text in read_lines(path):
        reading.line(number, text)
    reading.finish(number)


class _ArpaReading:
    """Where a read of an ARPA file is: start -> counts -> header -> entries (per order) -> end -> after; each
    line is checked against what may come there (:func:`check_arpa`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.counts: list[int] = []
        self.vocabulary: set[str] = set()
        self.state = "start"
        self.order = self.seen = self.blank = 0
        self.pattern: re.Pattern | None = None
        self.read_line = {"start": self._start, "counts": self._count, "header": self._header,
                          "entries": self._entry, "end": self._end, "after": self._after}

    def line(self, number: int, text: str) -> None:
        self.read_line[self.state](number, text)

    def _start(self, number: int, text: str) -> None:
        if _is_blank(text) or text.startswith("#"):
            return
        if text != "\\data\\":
            raise InputFormatError(self.path, number, "an ARPA model ('\\data\\' first, after blank or '#' lines) "
                                   "or a KenLM binary", text)
        self.state = "counts"

    def _count(self, number: int, text: str) -> None:
        counts = self.counts
        if _is_blank(text):
            if not counts:
                raise InputFormatError(self.path, number, "'ngram 1=COUNT' after \\data\\", text)
            self.state, self.order = "header", 1
            return
        match = _COUNT.fullmatch(text)
        if not match or int(match.group(1)) != len(counts) + 1 or int(match.group(2)) < 1 \
                or len(counts) == MAX_ORDER:
            raise InputFormatError(self.path, number, f"'ngram {len(counts) + 1}=COUNT' with a count >= 1 (orders "
                                   f"1-{MAX_ORDER}, then a blank line)", text)
        counts.append(int(match.group(2)))

    def _header(self, number: int, text: str) -> None:
        if _is_blank(text):
            return
        if text != f"\\{self.order}-grams:":
            raise InputFormatError(self.path, number, f"the \\{self.order}-grams: section next (the header lists "
                                   f"orders 1-{len(self.counts)})", text)
        self.state, self.seen, self.pattern, self.blank = "entries", 0, _entry_pattern(self.order), 0

    def _entry(self, number: int, text: str) -> None:
        order = self.order
        if _is_blank(text):
            self.blank = self.blank or number
            return
        if text.startswith("\\"):  # a section ends early
            raise InputFormatError(self.path, number, f"{self.counts[order - 1]} {order}-grams as the header says",
                                   f"{self.seen} before {text}")
        if self.blank:
            raise InputFormatError(self.path, self.blank, f"no blank line inside the \\{order}-grams: section "
                                   "(KenLM reads none)", "a blank line")
        _check_entry(self.path, number, text, self.pattern, order, order == len(self.counts), self.vocabulary)
        self.seen += 1
        if self.seen == self.counts[order - 1]:
            self.state, self.order = ("header", order + 1) if order < len(self.counts) else ("end", order)

    def _end(self, number: int, text: str) -> None:
        if _is_blank(text):
            return
        if text != "\\end\\":
            raise InputFormatError(self.path, number, f"{self.counts[self.order - 1]} {self.order}-grams as the "
                                   "header says, then \\end\\", text)
        self.state = "after"

    def _after(self, number: int, text: str) -> None:
        if not _is_blank(text):
            raise InputFormatError(self.path, number, "nothing but blank lines after \\end\\", text)

    def finish(self, number: int) -> None:
        """At the end of the file (``number``: its last line, 0 when empty): the model is whole and has
        ``<s>`` and ``</s>``."""
        state, order = self.state, self.order
        if state != "after":
            expected = "an ARPA model ('\\data\\' header) or a KenLM binary" if state == "start" else \
                f"{self.counts[order - 1]} {order}-grams as the header says, and an ARPA model ending with \\end\\" \
                if state == "entries" else "an ARPA model ending with \\end\\"
            raise InputFormatError(self.path, max(1, number), expected, "the end of the file")
        missing = [word for word in ("<s>", "</s>") if word not in self.vocabulary]
        if missing:
            raise InputFormatError(self.path, number, f"unigrams that include {' and '.join(missing)} (KenLM needs "
                                   "both)", "a vocabulary without them")


def _check_entry(path: Path, number: int, text: str, pattern: re.Pattern, order: int, last: bool,
                 vocabulary: set[str]) -> None:
    expected = (f"'log10p<TAB>{order} word{'s' if order > 1 else ''}[<TAB>backoff]' with a finite log10 p <= 0"
                + (", no back-off at the highest order" if last else ""))
    match = pattern.fullmatch(text)
    if match is None:
        raise InputFormatError(path, number, expected, text)
    probability, words, backoff = float(match.group(1)), match.group(2), match.group(3)
    if probability > 0.0 or not abs(probability) <= FLOAT32_MAX:
        raise InputFormatError(path, number, expected, text)
    if backoff is not None and (not abs(float(backoff)) <= FLOAT32_MAX or (last and float(backoff) != 0.0)):
        raise InputFormatError(path, number, expected, text)
    if order == 1:
        vocabulary.add(words)
        return
    for word in re.split("[ \t\r]+", words):
        if word not in vocabulary and word not in ("<unk>", "<UNK>"):
            raise InputFormatError(path, number, f"{expected}, every word among the unigrams", text)
