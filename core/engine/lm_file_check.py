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
* **ARPA** (plain or gzip): the ``\\data\\`` header, one section per order
  with exactly the announced number of entries, each with a finite log10
  probability <= 0, the right number of words and a finite back-off, and
  ``\\end\\``. It reads the whole file once (KenLM reads it all anyway).
"""

from __future__ import annotations

import math
import os
import struct
from pathlib import Path

from core.errors import InputFileError, InputFormatError
from core.textio import read_lines

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


def check_arpa(path: Path) -> None:
    """Every line of the ARPA file against its header (module docstring)."""
    lines = read_lines(path)
    counts: dict[int, int] = {}
    state = "start"  # start -> data -> ngrams(order) -> end
    order, seen = 0, 0
    number = 0
    for number, text in lines:
        line = text.strip()
        if not line:
            continue
        if state == "start":
            if line == "\\data\\":
                state = "data"
            continue  # text before \data\ is allowed (KenLM skips it)
        if state == "data":
            if line.startswith("ngram "):
                key, _, value = line[6:].partition("=")
                try:
                    counts[int(key)] = int(value)
                except ValueError:
                    raise InputFormatError(path, number, "'ngram N=COUNT' in the \\data\\ section", text) from None
                if int(key) != len(counts) or int(value) < 1:
                    raise InputFormatError(path, number, f"'ngram {len(counts)}=COUNT' with a count >= 1", text)
                continue
            state = "ngrams"
        if state == "ngrams" and line.startswith("\\") and line.endswith("-grams:"):
            if order and seen != counts[order]:
                raise InputFormatError(path, number, f"{counts[order]} {order}-grams as the header says",
                                       f"{seen} before {line}")
            try:
                section = int(line[1:-len("-grams:")])
            except ValueError:
                raise InputFormatError(path, number, "a section header '\\N-grams:'", text) from None
            if section != order + 1 or section not in counts:
                raise InputFormatError(path, number, f"the \\{order + 1}-grams: section next (the header lists "
                                       f"orders 1-{len(counts)})", text)
            order, seen = section, 0
            continue
        if line == "\\end\\":
            if not counts or order != len(counts) or seen != counts[order]:
                raise InputFormatError(path, number, f"{counts.get(order, 0)} {order}-grams before \\end\\ and "
                                       f"every order's section", f"{seen}")
            state = "end"
            break
        if state != "ngrams" or not order:
            raise InputFormatError(path, number, "'\\data\\' with 'ngram N=COUNT' lines, then '\\1-grams:'", text)
        _check_entry(path, number, text, order, last=order == len(counts))
        seen += 1
        if seen > counts[order]:
            raise InputFormatError(path, number, f"at most {counts[order]} {order}-grams as the header says", text)
    if state != "end":
        raise InputFormatError(path, max(1, number), "an ARPA model ending with \\end\\" if counts
                               else "an ARPA model ('\\data\\' header) or a KenLM binary", "the end of the file")


def _check_entry(path: Path, number: int, text: str, order: int, last: bool) -> None:
    fields = text.split("\t") if "\t" in text else text.split()
    if "\t" in text:
        words = fields[1].split() if len(fields) > 1 else []
        backoff = fields[2:] if len(fields) > 2 else []
    else:  # space-separated: probability, words, maybe back-off
        words = fields[1:1 + order]
        backoff = fields[1 + order:]
    expected = f"'log10p<TAB>{order} words[<TAB>backoff]' with a finite log10 p <= 0"
    try:
        probability = float(fields[0])
        backoffs = [float(value) for value in backoff]
    except (ValueError, IndexError):
        raise InputFormatError(path, number, expected, text) from None
    if len(words) != order or not math.isfinite(probability) or probability > 0.0 or len(backoffs) > 1 \
            or (backoffs and not math.isfinite(backoffs[0])) or (last and backoffs):
        raise InputFormatError(path, number, expected + ("" if not last else ", no back-off at the highest order"),
                               text)
