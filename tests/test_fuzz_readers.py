"""Fuzzing the public readers (issue 18): generated tables, judgment and score CSVs, candidate JSONL, ARPA files.

Each property writes a generated file, damaged or not (:func:`fuzz_support.damage`),
and reads it with the reader every command uses. The reader either returns
values that hold the format's promises (probabilities in (0, 1], finite
numbers, ranks >= 1, derivations that tile their text; what KenLM is handed
it loads) or raises InputFormatError / InputFileError naming the file (and,
for a line, one that exists); nothing else escapes, and nothing hangs.
Where a generated file is clean, what is read equals what was written.
"""

from __future__ import annotations

import json
import math

import kenlm
from fuzz_strategies import arpa_files, candidate_records, csv_files, devset_records, junk, table_files
from fuzz_support import damage, defects, fuzz_tests, time_limit
from hypothesis import assume
from hypothesis import strategies as st

from parastudio.core.engine.lm.file_check import check_lm_file
from parastudio.core.engine.tables.table_formats import read_rules
from parastudio.core.errors import InputFileError, InputFormatError
from parastudio.core.stats.judgment_records import read_judgments, read_scores
from parastudio.core.store.candidate_files import read_candidates_jsonl


def _line_bound(text: str) -> int:
    return text.count("\n") + 1 + 64  # a 64-byte noise prefix may add lines of its own


def _tables(example):
    (text, rules), defect, where, suffix = example
    from pathlib import Path
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as directory:
        path = Path(directory) / f"table{suffix}"
        path.write_bytes(damage(text, defect, where))
        try:
            with time_limit():
                read = list(read_rules(path))
        except InputFormatError as error:
            assert error.path == str(path) and 1 <= error.line_number <= _line_bound(text)
            assert not (rules is not None and defect in ("none", "bom", "crlf", "gzip")), error
            return
    for rule in read:
        assert 0.0 < rule.prob <= 1.0 and rule.source and rule.target
        assert all(math.isfinite(v) for v in rule.features.values() if isinstance(v, float))
    if rules is not None and defect in ("none", "bom", "crlf", "gzip"):
        assert [(r.source, r.target, r.prob) for r in read] == rules


test_tables, test_tables_thorough = fuzz_tests(
    st.tuples(table_files(), defects, st.integers(0, 400), st.sampled_from([".txt", ".gz"])), _tables)


def _label_ok(value: str) -> bool:
    try:
        number = float(value)
    except ValueError:
        return not any(ord(c) < 32 for c in value)
    return math.isfinite(number) and number >= 0


def _judgments(example):
    text, defect, where = example
    from pathlib import Path
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as directory:
        path = Path(directory) / "judgments.csv"
        path.write_bytes(damage(text, defect, where))
        try:
            with time_limit():
                records = read_judgments(path)
                for criterion in records.criterion_names():
                    records.rating_matrix(criterion)
        except InputFormatError as error:
            assert error.path == str(path) and 1 <= error.line_number <= _line_bound(text)
            return
    assert all(_label_ok(value) for value in records.values)
    assert all(item.strip() and annotator.strip() for item, annotator in zip(records.items, records.annotators))


test_judgments, test_judgments_thorough = fuzz_tests(
    st.tuples(csv_files(("item", "annotator", "criterion", "value")), defects, st.integers(0, 300)), _judgments)


def _scores(example):
    text, defect, where = example
    from pathlib import Path
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as directory:
        path = Path(directory) / "scores.csv"
        path.write_bytes(damage(text, defect, where))
        try:
            with time_limit():
                scores = read_scores(path)
        except InputFormatError as error:
            assert error.path == str(path) and 1 <= error.line_number <= _line_bound(text)
            return
    assert all(math.isfinite(v) for per_item in scores.scores.values() for v in per_item.values())


test_scores, test_scores_thorough = fuzz_tests(
    st.tuples(csv_files(("item", "system", "score")), defects, st.integers(0, 300)), _scores)


def _candidates(example):
    records, junk_line, defect, where = example
    from pathlib import Path
    from tempfile import TemporaryDirectory

    text = "".join(json.dumps(record) + "\n" for record in records) + junk_line
    with TemporaryDirectory() as directory:
        path = Path(directory) / "candidates.jsonl"
        path.write_bytes(damage(text, defect, where))
        try:
            with time_limit():
                rows = list(read_candidates_jsonl(path))
        except InputFormatError as error:
            assert error.path == str(path) and 1 <= error.line_number <= _line_bound(text)
            return
    for row in rows:
        assert isinstance(row.text, str) and isinstance(row.sentence_id, str) and row.system
        assert row.rank is None or (type(row.rank) is int and row.rank >= 1)
        assert all(v is None or math.isfinite(v) for v in (row.model_score, row.true_score))
        if row.derivation is not None:  # the targets, in order, are the candidate's tokens, span after span
            assert sum((s["target"].split() for s in row.derivation), []) == row.text.split()
            ends = [0] + [s["tgt"][1] for s in row.derivation]
            assert [s["tgt"][0] for s in row.derivation] == ends[:-1] and ends[-1] == len(row.text.split())


test_candidates, test_candidates_thorough = fuzz_tests(
    st.tuples(st.lists(candidate_records(), max_size=4), st.one_of(st.just(""), junk.map(lambda j: j + "\n")),
              defects, st.integers(0, 600)), _candidates)


def _arpa(example):
    text, defect, where = example
    from pathlib import Path
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as directory:
        path = Path(directory) / "model.arpa"
        path.write_bytes(damage(text, defect, where))
        try:
            with time_limit():
                check_lm_file(path)
        except InputFormatError as error:
            assert error.path == str(path) and 1 <= error.line_number <= _line_bound(text)
            return
        except InputFileError as error:
            assert error.path == str(path)
            return
        with time_limit():  # what the check lets through, KenLM reads: no C++ error left for the user
            model = kenlm.Model(str(path))
            assert math.isfinite(model.score("the dog runs x", bos=True, eos=True))


test_arpa, test_arpa_thorough = fuzz_tests(
    st.tuples(arpa_files(), defects.filter(lambda d: d not in ("gzip", "gzip-truncated")), st.integers(0, 400)),
    _arpa)


def _binary_cut(tiny_lm, share):
    from pathlib import Path
    from tempfile import TemporaryDirectory

    data = Path(tiny_lm["binary"]).read_bytes()
    cut = int(share * len(data))
    assume(cut < len(data))
    with TemporaryDirectory() as directory:
        path = Path(directory) / "model.bin"
        path.write_bytes(data[:cut])
        try:
            with time_limit():
                check_lm_file(path)
        except (InputFileError, InputFormatError) as error:
            assert error.path == str(path)
            return
    raise AssertionError(f"a KenLM binary cut to {cut} of {len(data)} bytes was let through")


test_binary_cut, test_binary_cut_thorough = fuzz_tests(st.floats(0.0, 1.0), _binary_cut, fixtures=("tiny_lm",))


def _devset_schema_without_required():
    """docs/devset.schema.json with no field required and none refused for being unknown (the reader needs a few
    and ignores the rest): the oracle for the types of the fields a record holds."""
    from pathlib import Path

    def relax(node):
        if isinstance(node, dict):
            return {key: relax(value) for key, value in node.items() if key not in ("required", "additionalProperties")}
        if isinstance(node, list):
            return [relax(value) for value in node]
        return node

    return relax(json.loads((Path(__file__).parent.parent / "docs" / "devset.schema.json").read_text()))


DEVSET_SCHEMA = _devset_schema_without_required()


def _devsets(example):
    entries, junk_line, defect, where = example
    from pathlib import Path
    from tempfile import TemporaryDirectory

    import jsonschema

    from parastudio.core.tuning.dev_labels import DevLabels
    from parastudio.core.tuning.devset_files import read_devset
    from parastudio.core.tuning.judgment_predictor import _label
    from parastudio.core.tuning.pivot_tuning import labelled_pairs

    text = "".join(json.dumps(record) + "\n" for record, _spoiled in entries) + junk_line
    with TemporaryDirectory() as directory:
        path = Path(directory) / "devset.jsonl"
        path.write_bytes(damage(text, defect, where))
        try:
            with time_limit():
                records = read_devset(path)
        except InputFormatError as error:
            assert error.path == str(path) and 1 <= error.line_number <= _line_bound(text)
            clean = not junk_line and not any(spoiled for _record, spoiled in entries)
            assert not (clean and defect in ("none", "bom", "crlf", "gzip")), error
            return
        except InputFileError as error:  # no record at all
            assert error.path == str(path) and "at least one record" in str(error)
            return
    for record in records:  # every type the schema names holds, and tuning reads the records
        jsonschema.validate(record, DEVSET_SCHEMA)
        assert all(math.isfinite(s["p"]) for s in record["derivation"] if s.get("p") is not None)
    with time_limit():
        DevLabels.from_records(records)
        labelled_pairs(records)
        for record in records:
            _label(record, "meaning"), _label(record, None)
    if defect in ("none", "bom", "crlf", "gzip") and not junk_line:
        assert records == [record for record, _spoiled in entries]


test_devsets, test_devsets_thorough = fuzz_tests(
    st.tuples(st.lists(devset_records(), max_size=3), st.one_of(st.just(""), junk.map(lambda j: j + "\n")),
              defects, st.integers(0, 2000)), _devsets)
