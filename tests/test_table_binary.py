"""The binary form of a paraphrase table (core/engine/tables/table_binary.py) answers exactly as the text table does.

The text table is the oracle: every query of a table opened from ``T.pstable``
is compared with the same query of ``T`` parsed (``binary=False``), on tables
hypothesis makes up (Moses with varying score counts, PPDB with string
features, TSV; duplicated rules, tied probabilities, non-ASCII words).
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import struct
import tempfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main as cli_main
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from parastudio.core.engine.tables.table_binary import BinaryTable, BinaryTableError, binary_path
from parastudio.core.engine.tables.table_formats import LoadReport, TableLoading
from parastudio.core.errors import InputFormatError

WORDS = ["a", "b", "c", "the", "lord", "é", "日本", "x|y", "'s", ","]
word = st.sampled_from(WORDS)
phrase = st.lists(word, min_size=1, max_size=4)
probability = st.sampled_from([0.5, 0.25, 1.0, 0.125, 1e-7]) | st.floats(1e-9, 1.0)


def moses_line(source, target, scores) -> str:
    return f"{' '.join(source)} ||| {' '.join(target)} ||| {' '.join(repr(s) for s in scores)}"


def ppdb_line(source, target, scores) -> str:
    features = " ".join(f"{name}={value!r}" for name, value in zip(["p(e|f)", "p(f|e)", "Abstract"], scores))
    return f"[X{len(source)}] ||| {' '.join(source)} ||| {' '.join(target)} ||| {features} ||| 0-0 ||| Equivalence"


def tsv_line(source, target, scores) -> str:
    return "\t".join([" ".join(source), " ".join(target), *(repr(s) for s in scores)])


tables = st.lists(st.tuples(phrase, phrase, st.lists(probability, min_size=1, max_size=3)), min_size=1, max_size=25)


def write(directory: Path, lines: list[str], gz: bool, name: str = "table") -> Path:
    path = directory / (name + (".gz" if gz else ".txt"))
    text = "".join(line + "\n" for line in lines)
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as out:
            out.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def rule_view(rule: Rule) -> tuple:
    return rule.source, rule.target, rule.prob, rule.log10_prob, list(rule.features.items())


def assert_same(text: ParaphraseTable, mapped: ParaphraseTable, queries, sentences) -> None:
    assert list(text.sources()) == list(mapped.sources())
    assert [rule_view(r) for r in text] == [rule_view(r) for r in mapped]
    assert (len(text), text.stats(), text.max_source_length, text.longest_phrase, text.name) == \
        (len(mapped), mapped.stats(), mapped.max_source_length, mapped.longest_phrase, mapped.name)
    # A token holding a space must not find the source its words make (("a b",) is not ("a", "b")).
    joined = [(" ".join(source),) for source in text.sources()] + [(" ".join(s[:2]), *s[2:]) for s in text.sources()]
    for query in [*text.sources(), *queries, *joined]:
        assert [rule_view(r) for r in text.rules_for(query)] == [rule_view(r) for r in mapped.rules_for(query)]
        assert text.best_probability(query) == mapped.best_probability(query)
    for sentence in sentences:
        assert [(i, j, [rule_view(r) for r in rules]) for i, j, rules in text.span_rules(sentence)] == \
            [(i, j, [rule_view(r) for r in rules]) for i, j, rules in mapped.span_rules(sentence)]
        assert text.matches(sentence, limit_per_span=2) == mapped.matches(sentence, limit_per_span=2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=tables, form=st.sampled_from(["moses", "ppdb", "tsv"]), gz=st.booleans(),
       queries=st.lists(st.lists(st.sampled_from([*WORDS, "a b", "", "zzz"]), max_size=4).map(tuple), max_size=8),
       sentences=st.lists(st.lists(word, max_size=9), max_size=4), keep_features=st.booleans())
def test_binary_table_answers_every_query_like_the_text_table(rows, form, gz, queries, sentences, keep_features):
    line = {"moses": moses_line, "ppdb": ppdb_line, "tsv": tsv_line}[form]
    rows = rows + rows[: len(rows) // 3]  # duplicated rules: ties in every bucket
    with tempfile.TemporaryDirectory() as directory:
        path = write(Path(directory), [line(s, t, scores) for s, t, scores in rows], gz)
        ParaphraseTable.binarize(path)
        report = LoadReport(str(path))
        mapped = ParaphraseTable.load(path, keep_features=keep_features, report=report)
        assert report.binary == str(binary_path(path)) and report.rules == len(mapped)
        text = ParaphraseTable.load(path, keep_features=keep_features, binary=False)
        assert_same(text, mapped, queries, sentences)
        filtered = ParaphraseTable.load_for(path, sentences or [["a"]])
        expected = ParaphraseTable.load_for(path, sentences or [["a"]], binary=False)
        assert_same(expected, filtered, queries, sentences)


@settings(max_examples=25, deadline=None)
@given(rows=tables, column=st.integers(0, 2), swap=st.booleans())
def test_a_binary_written_with_other_loading_options_is_not_used(rows, column, swap):
    assume(any(len(scores) > column for _, _, scores in rows))
    rows = [(s, t, scores + [0.5] * (column + 1 - len(scores))) for s, t, scores in rows]
    with tempfile.TemporaryDirectory() as directory:
        path = write(Path(directory), [moses_line(*row) for row in rows], False)
        ParaphraseTable.binarize(path, TableLoading(score=str(column), swap_sides=swap))
        same = LoadReport(str(path))
        mapped = ParaphraseTable.load(path, TableLoading(score=f"c{column}", swap_sides=swap), report=same)
        assert same.binary is not None
        assert [rule_view(r) for r in mapped] == [rule_view(r) for r in ParaphraseTable.load(
            path, TableLoading(score=str(column), swap_sides=swap), binary=False)]
        other = LoadReport(str(path))
        read = ParaphraseTable.load(path, TableLoading(score=str((column + 1) % 3), swap_sides=swap), report=other) \
            if all(len(scores) > (column + 1) % 3 for _, _, scores in rows) else None
        if read is not None:
            assert other.binary is None and "other loading options" in other.notes[0]
        flipped = LoadReport(str(path))
        ParaphraseTable.load(path, TableLoading(score=str(column), swap_sides=not swap), report=flipped)
        assert flipped.binary is None and "other loading options" in flipped.notes[0]


@pytest.fixture
def small_table(tmp_path) -> Path:
    path = write(tmp_path, ["a ||| b ||| 0.5 1", "a ||| c ||| 0.25 1", "b c ||| d ||| 0.75 1"], False)
    ParaphraseTable.binarize(path)
    return path


def test_an_edited_text_table_makes_its_binary_stale(small_table):
    small_table.write_text("a ||| z ||| 0.5 1\n", encoding="utf-8")
    report = LoadReport(str(small_table))
    table = ParaphraseTable.load(small_table, report=report)
    assert report.binary is None and "not used" in report.notes[0] and "binarize" in report.notes[0]
    assert [r.target for r in table.rules_for(("a",))] == [("z",)]
    ParaphraseTable.binarize(small_table)
    fresh = LoadReport(str(small_table))
    assert [r.target for r in ParaphraseTable.load(small_table, report=fresh).rules_for(("a",))] == [("z",)]
    assert fresh.binary is not None


def test_a_text_table_newer_than_its_binary_is_read(small_table):
    stat = os.stat(binary_path(small_table))
    os.utime(small_table, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    report = LoadReport(str(small_table))
    ParaphraseTable.load(small_table, report=report)
    assert report.binary is None and "newer" in report.notes[0]


def damage_truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def damage_data_byte(data: bytes) -> bytes:
    return data[:-9] + bytes([data[-9] ^ 0x40]) + data[-8:]


def damage_header_byte(data: bytes) -> bytes:
    return data[:40] + bytes([data[40] ^ 0x01]) + data[41:]


def damage_version(data: bytes) -> bytes:
    return data[:8] + (99).to_bytes(4, "little") + data[12:]


@pytest.mark.parametrize("damage", [damage_truncate, damage_data_byte, damage_header_byte, damage_version,
                                    lambda data: b"", lambda data: b"garbage" * 50, lambda data: data + b"\0"])
def test_a_damaged_binary_is_refused_clearly_and_the_text_read(small_table, damage, capsys):
    binary = binary_path(small_table)
    binary.write_bytes(damage(binary.read_bytes()))
    with pytest.raises(BinaryTableError, match=str(binary)):
        BinaryTable(binary)
    report = LoadReport(str(small_table))
    table = ParaphraseTable.load(small_table, report=report)
    assert report.binary is None and str(binary) in report.notes[0] and "binarize" in report.notes[0]
    assert [r.target for r in table.rules_for(("a",))] == [("b",), ("c",)]
    assert cli_main(["table", "stats", str(small_table), "--json"]) == 0
    out, err = capsys.readouterr()
    assert '"rules": 3' in out and "parastudio: note:" in err and "Traceback" not in err
    assert cli_main(["table", "binarize", str(small_table)]) == 0  # rewrites it
    assert BinaryTable(binary).rules == 3


def forged(data: bytes, change) -> bytes:
    """The file with its JSON header changed by ``change`` and its header checksum made right again."""
    prefix = struct.Struct("<8sIIII")
    magic, version, length, _, data_crc = prefix.unpack_from(data)
    header = json.loads(data[prefix.size:prefix.size + length])
    change(header)
    raw = json.dumps(header).encode()
    raw += b" " * (-(prefix.size + len(raw)) % 64)
    return prefix.pack(magic, version, len(raw), zlib.crc32(raw), data_crc) + raw + data[prefix.size + length:]


@pytest.mark.parametrize("change", [
    lambda h: h.pop("load"),
    lambda h: h["load"].update(format="xml"),
    lambda h: h.update(rules=h["rules"] + 1),
    lambda h: h["arrays"]["rule_prob"].__setitem__(0, 10**9),
    lambda h: h["arrays"].pop("slots"),
    lambda h: h.update(schemas="none"),
])
def test_a_header_that_checks_out_but_lies_is_refused_or_ignored(small_table, change, capsys):
    binary = binary_path(small_table)
    binary.write_bytes(forged(binary.read_bytes(), change))
    report = LoadReport(str(small_table))
    table = ParaphraseTable.load(small_table, report=report)
    assert report.binary is None and str(binary) in report.notes[0]
    assert [r.target for r in table.rules_for(("a",))] == [("b",), ("c",)]
    assert cli_main(["table", "stats", str(small_table)]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_binarize_writes_atomically_and_leaves_nothing_on_bad_input(tmp_path, small_table):
    before = binary_path(small_table).read_bytes()
    small_table.write_text("a ||| b ||| 0.5\nnot a rule\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"table.txt:2: expected"):
        ParaphraseTable.binarize(small_table)
    assert binary_path(small_table).read_bytes() == before  # the old one stays whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.txt", "table.txt.pstable"]


def test_skipped_lines_are_reported_as_the_text_load_reports_them(tmp_path):
    path = write(tmp_path, ["a ||| b ||| 0.5", "broken", "a ||| c ||| 0.25"], False)
    written = LoadReport(str(path))
    ParaphraseTable.binarize(path, TableLoading(skip_bad_lines=True), report=written)
    assert written.skipped == 1
    with pytest.raises(InputFormatError):  # a load that does not skip must still stop at the bad line
        ParaphraseTable.load(path)
    report = LoadReport(str(path))
    table = ParaphraseTable.load(path, TableLoading(skip_bad_lines=True), report=report)
    assert report.binary is not None and (report.skipped, report.rules) == (1, 2)
    assert report.first_errors == written.first_errors and len(table) == 2


def test_a_mapped_table_pickles_and_takes_new_rules_in_memory(small_table):
    table = ParaphraseTable.load(small_table)
    copy = pickle.loads(pickle.dumps(table))
    assert list(copy) == list(table)
    table.add(Rule(("a",), ("e",), 0.9))
    table.sort()
    assert [r.target for r in table.rules_for(("a",))] == [("e",), ("b",), ("c",)]
    assert len(table) == 4 and table.stats().distinct_sources == 2


def test_binarize_command_writes_the_binary_every_reader_then_uses(small_table, capsys):
    binary_path(small_table).unlink()
    assert cli_main(["table", "binarize", str(small_table)]) == 0
    out = capsys.readouterr().out
    assert f"{binary_path(small_table)}: 3 rules, 2 sources" in out
    report = LoadReport(str(small_table))
    ParaphraseTable.load(small_table, report=report)
    assert report.binary == str(binary_path(small_table))


def test_the_data_checksum_is_read_once_per_version_of_the_file(small_table, tmp_path, monkeypatch):
    """Reading every byte to check the CRC runs on a file version's first open only; a write in place (even one
    that sets the mtime back) is a new version, checked again and refused when damaged."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    binary = binary_path(small_table)
    reads = []
    original = BinaryTable._data_crc
    monkeypatch.setattr(BinaryTable, "_data_crc", staticmethod(lambda handle, start: reads.append(1)
                                                                or original(handle, start)))
    assert BinaryTable(binary).rules == 3
    assert BinaryTable(binary).rules == 3
    assert len(reads) == 1
    before = os.stat(binary)
    with open(binary, "r+b") as handle:
        handle.seek(-9, os.SEEK_END)
        byte = handle.read(1)
        handle.seek(-9, os.SEEK_END)
        handle.write(bytes([byte[0] ^ 0x40]))
    os.utime(binary, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(BinaryTableError, match="checksum mismatch"):
        BinaryTable(binary)
    assert len(reads) == 2
