"""A paraphrase table's binary form: written once next to the text table, memory-mapped, opened at once.

``parastudio table binarize T`` writes ``T.pstable`` (:func:`binary_path`,
:mod:`core.engine.tables.table_binary_writer`); this module reads it.
:meth:`ParaphraseTable.load <core.engine.tables.paraphrase_table.ParaphraseTable.load>`
opens it instead of parsing ``T`` when it is fresh (:func:`freshness`) and was
written with the same loading options. Opening reads a small header and checks
the file; a span lookup is a hash probe into the mapped file, so the process
holds only the pages it reads (and the rules it asked for, built on demand).

The file (little-endian, every array 64-byte aligned)::

    b"PSTABLE\\0", version u32, header length u32, header CRC-32 u32, data CRC-32 u32
    header: JSON (counts, the text table's size and mtime, loading options, the array directory)
    arrays: source_text + source_offsets     distinct sources, space-joined UTF-8, in the text's order
            source_hash, slots               open addressing: slot -> source index + 1 (0 empty)
            rule_offsets                      the rules of source s: [rule_offsets[s], rule_offsets[s + 1])
            rule_target, rule_prob            per rule: its target (an index into target_text) and probability
            target_text + target_offsets      distinct targets
            rule_schema, feature_offsets      per rule: the names of its features and where their values start
            feature_values                    floats; a string feature (PPDB's lhs) holds an index into strings
            string_text + string_offsets      the string feature values

Rules keep the in-memory table's order (each source's rules by decreasing
probability, ties in file order; sources in order of first appearance), so
every query answers exactly as the text table does (``tests/test_table_binary.py``).
The data CRC is checked at open: a damaged file is refused with a clear error
(:class:`BinaryTableError`), never read into wrong answers or a traceback.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
import sys
import zlib
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from parastudio.core.engine.tables.rules import Phrase, Rule
from parastudio.core.errors import InputFileError
from parastudio.core.file_fingerprint import checked_before, remember_check

SUFFIX = ".pstable"
MAGIC = b"PSTABLE\x00"
VERSION = 1
PREFIX = struct.Struct("<8sIIII")  # magic, version, header length, header CRC, data CRC
ALIGN = 64
_ARRAYS = {  # name -> memoryview format (itemsize): what the header's directory must say
    "source_text": "B", "source_offsets": "Q", "source_hash": "Q", "slots": "I", "rule_offsets": "Q",
    "rule_target": "I", "rule_prob": "d", "target_text": "B", "target_offsets": "Q", "rule_schema": "I",
    "feature_offsets": "Q", "feature_values": "d", "string_text": "B", "string_offsets": "Q",
}
_ITEMSIZE = {"B": 1, "I": 4, "Q": 8, "d": 8}
_CACHE_LIMIT = 1 << 17  # buckets (and misses) kept built; beyond it the cache starts again


class BinaryTableError(InputFileError):
    """A binary table that cannot be used: damaged, truncated, another version, not ours."""


def binary_path(table: str | os.PathLike) -> Path:
    """Where the binary form of ``table`` lives: beside it, ``T.pstable``."""
    return Path(str(table) + SUFFIX)


def cached_binary_path(table: str | os.PathLike) -> Path:
    """Where the binary form of a table in a folder we may not write goes: the user's cache folder, named by the
    table's real path (so two tables of one name never share it)."""
    base = os.environ.get("PARASTUDIO_CACHE")
    root = Path(base) if base else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "paraphrase-studio"
    real = os.path.realpath(table).encode("utf-8", "surrogateescape")
    return root / "tables" / f"{hashlib.blake2b(real, digest_size=8).hexdigest()}-{Path(table).name}{SUFFIX}"


def is_ours(path: str | os.PathLike) -> bool:
    """Whether ``path`` starts as a binary table does (any version): only such a file may be replaced."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def binary_paths(table: str | os.PathLike) -> list[Path]:
    """Where a load looks for the binary form, in order: beside the table, then the user's cache folder."""
    return [binary_path(table), cached_binary_path(table)]


def phrase_key(phrase: Sequence[str]) -> bytes | None:
    """The bytes a phrase is stored under; None for a phrase no table line can have (a token with a space)."""
    try:
        return " ".join(phrase).encode("utf-8", "surrogatepass")
    except TypeError:
        return None


def key_hash(key: bytes) -> int:
    """The hash a source phrase's key is stored under (BLAKE2b, 8 bytes); the native core computes the same."""
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


def text_stamp(table: str | os.PathLike) -> dict:
    stat = os.stat(table)
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def freshness(table: str | os.PathLike, binary: str | os.PathLike, recorded: dict) -> str | None:
    """Why ``binary`` may not stand for ``table`` (None: it may).

    It is fresh when it is at least as new as the text table and the text
    still has the size it had when the binary was written (a copy of both
    keeps it usable; an edited text table makes it stale).
    """
    text, stat = os.stat(table), os.stat(binary)
    if text.st_size != recorded.get("size"):
        return "the text table changed since it was written"
    if text.st_mtime_ns > stat.st_mtime_ns:
        return "the text table is newer"
    return None


class BinaryTable:
    """An opened binary table: the header, checked, and the arrays as views of the mapped file."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        if sys.byteorder != "little":
            raise BinaryTableError(self.path, "a machine of the byte order it was written on", "a big-endian one")
        with open(self.path, "rb", buffering=0) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < PREFIX.size:
                raise BinaryTableError(self.path, "a binary paraphrase table", f"a file of {size} bytes")
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            try:
                self._open(size, handle)
            except BinaryTableError:
                self.close()
                raise

    def _fail(self, what: str) -> BinaryTableError:
        return BinaryTableError(self.path, "a binary paraphrase table written by `parastudio table binarize`", what)

    def _open(self, size: int, handle) -> None:
        magic, version, header_length, header_crc, data_crc = PREFIX.unpack_from(self._map, 0)
        if magic != MAGIC:
            raise self._fail("another kind of file (no PSTABLE signature)")
        if version != VERSION:
            raise self._fail(f"format version {version} (this program reads {VERSION})")
        start = PREFIX.size + header_length
        if start > size:
            raise self._fail("a truncated file (the header runs past its end)")
        raw = self._map[PREFIX.size:start]
        if zlib.crc32(raw) != header_crc:
            raise self._fail("a damaged header (checksum mismatch)")
        try:
            header = json.loads(raw)
            self.header = header
            self.rules, self.sources, self.capacity = int(header["rules"]), int(header["sources"]), int(header["capacity"])
            self.schemas = [tuple((str(k), bool(s)) for k, s in schema) for schema in header["schemas"]]
            # per schema: its keys in order, and those whose values are strings
            self._schema_keys = [(tuple(k for k, _ in schema), tuple(k for k, s in schema if s))
                                 for schema in self.schemas]
            directory = header["arrays"]
            data_size = int(header["data_size"])
            self.max_source_length, self.longest_phrase = int(header["max_source_length"]), int(header["longest_phrase"])
            self.skipped, self.first_errors = int(header["skipped"]), [str(e) for e in header["first_errors"]]
            self.load_options, self.text_stamp = dict(header["load"]), dict(header["text"])
            if not isinstance(self.load_options.get("format"), str):
                raise ValueError("no table format")
        except (ValueError, KeyError, TypeError) as error:
            raise self._fail(f"a header without what it needs ({type(error).__name__}: {error})") from None
        if start + data_size != size:
            raise self._fail(f"{size} bytes where the header says {start + data_size} (truncated or extended)")
        # Reading every byte to check the CRC costs more than the rest of a start-up; it runs once per version of
        # the file (a write changes its ctime, so damage after the check is caught the next time it opens).
        checked_key, checked_crc = checked_before(self.path, "pstable-crc32")
        if checked_crc != f"{data_crc:08x}":
            if self._data_crc(handle, start) != data_crc:
                raise self._fail("damaged data (checksum mismatch)")
            remember_check(self.path, checked_key, "pstable-crc32", f"{data_crc:08x}")
        views = {}
        for name, code in _ARRAYS.items():
            try:
                offset, length = (int(v) for v in directory[name])
            except (KeyError, TypeError, ValueError):
                raise self._fail(f"no valid entry for array {name}") from None
            if offset < 0 or length < 0 or offset + length > data_size or offset % ALIGN or length % _ITEMSIZE[code]:
                raise self._fail(f"array {name} out of place")
            view = memoryview(self._map)[start + offset:start + offset + length]
            views[name] = view if code == "B" else view.cast(code)
        self._views = views
        self._check_shapes(views)
        self._targets: dict[int, Phrase] = {}  # target index -> its words, built once
        self._rules: dict[tuple[int, bool], Rule] = {}  # (rule number, with features) -> rule()
        self._word_strings: dict[str, str] = {}
        v = views
        self.source_text, self.source_offsets, self.source_hash = v["source_text"], v["source_offsets"], v["source_hash"]
        self.slots, self.rule_offsets, self.rule_target = v["slots"], v["rule_offsets"], v["rule_target"]
        self.rule_prob, self.target_text, self.target_offsets = v["rule_prob"], v["target_text"], v["target_offsets"]
        self.rule_schema, self.feature_offsets, self.feature_values = (v["rule_schema"], v["feature_offsets"],
                                                                      v["feature_values"])
        self.string_text, self.string_offsets = v["string_text"], v["string_offsets"]

    @staticmethod
    def _data_crc(handle, start: int) -> int:
        """CRC-32 of the data, read through a small buffer: pages of the map are touched only by lookups."""
        crc, buffer = 0, bytearray(1 << 20)
        handle.seek(start)
        while count := handle.readinto(buffer):
            crc = zlib.crc32(memoryview(buffer)[:count], crc)
        return crc

    def _check_shapes(self, v: dict) -> None:
        """Counts that must agree (the checksum vouches for the values our writer put in between)."""
        s, r = self.sources, self.rules
        shapes = {"source_offsets": s + 1, "source_hash": s, "slots": self.capacity, "rule_offsets": s + 1,
                  "rule_target": r, "rule_prob": r, "rule_schema": r, "feature_offsets": r + 1,
                  "target_offsets": int(self.header.get("targets", -1)) + 1}
        for name, count in shapes.items():
            if len(v[name]) != count:
                raise self._fail(f"array {name} of {len(v[name])} items where {count} belong")
        ends = {"source_offsets": len(v["source_text"]), "rule_offsets": r, "target_offsets": len(v["target_text"]),
                "feature_offsets": len(v["feature_values"]), "string_offsets": len(v["string_text"])}
        for name, end in ends.items():
            if len(v[name]) == 0 or v[name][0] != 0 or v[name][-1] != end:
                raise self._fail(f"array {name} that does not span its data")
        if self.capacity & (self.capacity - 1) or self.capacity < 2 * s:
            raise self._fail("a hash index of the wrong size")

    def __reduce__(self):  # a mapped file does not pickle: the copy opens the file again
        return (BinaryTable, (self.path,))

    def close(self) -> None:
        views = getattr(self, "_views", {})
        for view in views.values():
            view.release()
        self._views = {}
        for name in ("source_text", "source_offsets", "source_hash", "slots", "rule_offsets", "rule_target",
                     "rule_prob", "target_text", "target_offsets", "rule_schema", "feature_offsets",
                     "feature_values", "string_text", "string_offsets"):
            self.__dict__.pop(name, None)
        try:
            self._map.close()
        except BufferError:  # a view still held by a caller; the map closes with the process
            pass

    # -- queries ---------------------------------------------------------------------------------
    def find(self, key: bytes) -> int:
        """The index of the source stored under ``key``, -1 if none."""
        value = key_hash(key)
        mask = self.capacity - 1
        slot = value & mask
        slots, hashes, offsets, text = self.slots, self.source_hash, self.source_offsets, self.source_text
        while True:
            entry = slots[slot]
            if not entry:
                return -1
            index = entry - 1
            if hashes[index] == value and text[offsets[index]:offsets[index + 1]] == key:
                return index
            slot = (slot + 1) & mask

    def _words(self, raw) -> Phrase:
        """The words of a stored phrase, each word one string for the whole table (as the text reader does)."""
        words = self._word_strings
        return tuple([words.setdefault(word, word) for word in bytes(raw).decode("utf-8").split(" ")])

    def source(self, index: int) -> Phrase:
        return self._words(self.source_text[self.source_offsets[index]:self.source_offsets[index + 1]])

    def _target(self, index: int) -> Phrase:
        found = self._targets.get(index)
        if found is None:
            if len(self._targets) >= _CACHE_LIMIT:
                self._targets.clear()
            offsets = self.target_offsets
            found = self._targets[index] = self._words(self.target_text[offsets[index]:offsets[index + 1]])
        return found

    def _string(self, index: int) -> str:
        offsets = self.string_offsets
        return bytes(self.string_text[offsets[index]:offsets[index + 1]]).decode("utf-8")

    def target_of(self, number: int) -> Phrase:
        """The target phrase of rule ``number`` of the rule arrays."""
        return self._target(self.rule_target[number])

    def targets_of(self, numbers: Sequence[int]) -> list[Phrase]:
        """:meth:`target_of` each of ``numbers`` (one call for a phrase's options)."""
        known, target_of, rule_target = self._targets, self._target, self.rule_target
        out = []
        for number in numbers:
            index = rule_target[number]
            found = known.get(index)
            out.append(found if found is not None else target_of(index))
        return out

    def rule(self, number: int, source: Phrase, keep_features: bool) -> Rule:
        """Rule ``number`` of the rule arrays (one of ``source``'s), as :meth:`bucket` builds it; kept, since the
        true score of every sentence asks again for the rules of its common words."""
        made = self._rules.get((number, keep_features))
        if made is not None:
            return made
        target, probability = self.target_of(number), self.rule_prob[number]
        if not keep_features:
            made = Rule(source, target, probability)
        else:
            keys, textual = self._schema_keys[self.rule_schema[number]]
            features = dict(zip(keys, self.feature_values[self.feature_offsets[number]:
                                                          self.feature_offsets[number + 1]].tolist()))
            for key in textual:
                features[key] = self._string(int(features[key]))
            made = Rule(source, target, probability, features)
        if len(self._rules) >= _CACHE_LIMIT:
            self._rules.clear()
        self._rules[(number, keep_features)] = made
        return made

    def bucket(self, index: int, source: Phrase, keep_features: bool) -> list[Rule]:
        """The rules of source ``index`` (whose words are ``source``), in the table's order."""
        first, last = self.rule_offsets[index], self.rule_offsets[index + 1]
        probs = self.rule_prob[first:last].tolist()
        targets = self.rule_target[first:last].tolist()
        if not keep_features:
            return [Rule(source, self._target(t), p) for t, p in zip(targets, probs)]
        schemas = self.rule_schema[first:last].tolist()
        starts = self.feature_offsets[first:last + 1].tolist()
        values = self.feature_values[starts[0]:starts[-1]].tolist()
        base = starts[0]
        rules = []
        target_of = self._target
        for k, (t, p) in enumerate(zip(targets, probs)):
            keys, textual = self._schema_keys[schemas[k]]
            features = dict(zip(keys, values[starts[k] - base:starts[k + 1] - base]))
            for key in textual:
                features[key] = self._string(int(features[key]))
            rules.append(Rule(source, target_of(t), p, features))
        return rules


class MappedBuckets(Mapping):
    """``source phrase -> its rules`` over a :class:`BinaryTable`: the store a mapped ParaphraseTable reads.

    Built buckets (and phrases without rules) are cached; iteration builds
    rules without caching them, so walking a whole table does not keep it.
    """

    def __init__(self, binary: BinaryTable, keep_features: bool = True):
        self.binary = binary
        self.keep_features = keep_features
        self._cache: dict[Phrase, list[Rule] | None] = {}

    def get(self, phrase, default=None):
        cache = self._cache
        if phrase in cache:
            found = cache[phrase]
            return default if found is None else found
        key = phrase_key(phrase)
        index = self.binary.find(key) if key is not None else -1
        # A token holding a space would join into another phrase's key: the word count tells them apart.
        found = (self.binary.bucket(index, tuple(phrase), self.keep_features)
                 if index >= 0 and key.count(b" ") + 1 == len(phrase) else None)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[phrase] = found
        return default if found is None else found

    def __getitem__(self, phrase) -> list[Rule]:
        found = self.get(phrase)
        if found is None:
            raise KeyError(phrase)
        return found

    def __contains__(self, phrase) -> bool:
        return self.get(phrase) is not None

    def __len__(self) -> int:
        return self.binary.sources

    def __iter__(self) -> Iterator[Phrase]:
        return (self.binary.source(index) for index in range(self.binary.sources))

    def values(self) -> Iterator[list[Rule]]:
        binary = self.binary
        return (binary.bucket(index, binary.source(index), self.keep_features) for index in range(binary.sources))

    def items(self) -> Iterator[tuple[Phrase, list[Rule]]]:
        binary = self.binary
        for index in range(binary.sources):
            source = binary.source(index)
            yield source, binary.bucket(index, source, self.keep_features)

    def index_of(self, text: str) -> int:
        """The index (order of first appearance) of the source space-joined as ``text``, -1 if none."""
        return self.binary.find(text.encode("utf-8", "surrogatepass"))
