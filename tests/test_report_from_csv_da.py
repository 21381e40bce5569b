"""`parastudio report` on a study's own `study export-judgments` CSV gives the study's report (issue 39): direct
assessment and ESA z-scores byte for byte, no label-share table of 0-100 scores, and for preference only the
documented ties by construction missing. Real SQLite studies, the real CLI entry point."""

from __future__ import annotations

import csv
import json
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.preference_pairs import ties_by_construction


def build_study(path: Path, criteria: list[str], systems: int, sentences: int, judges: int, shared: list[bool],
                answer) -> None:
    """Systems s0.. paraphrase sentences 0..; where ``shared[s]`` the first two say the same string (one
    candidate credited to both). ``answer(item)`` gives each judgment, in judging order."""
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "s", criteria=criteria, seed=3)
        ops.import_candidates(db, study, [
            ops.CandidateRow(sentence_id=str(s), text=f"same words {s}" if shared[s] and k < 2 else f"s{k} says {s}",
                             system=f"s{k}", source=f"source {s}", rank=0)
            for s in range(sentences) for k in range(systems)])
        names = [f"judge{j}" for j in range(judges)]
        ops.assign(db, study, names, judges_per_item=min(2, judges))
        for name in names:
            annotator = ops.find_annotator(db, study, name)
            while (item := ops.next_item(db, annotator)) is not None:
                ops.record_judgment(db, item.assignment_id, answer(item))


def report(source: Path, output_format: str = "md") -> str:
    out = source.with_suffix(f".{source.suffix[1:]}.{output_format}")
    assert main(["report", str(source), "--bootstrap", "20", "--format", output_format, "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def markdown_body(source: Path) -> str:
    """The Markdown report without its title, which names the file read."""
    return report(source).split("\n", 1)[1]


def table_keys(source: Path) -> list[str]:
    return [table["key"] for table in json.loads(report(source, "json"))["tables"]]


def export(study: Path) -> Path:
    path = study.with_suffix(".csv")
    assert main(["study", "export-judgments", "--db", str(study), "-o", str(path)]) == 0
    return path


def sections(markdown: str) -> dict[str, str]:
    """Each `## title` section of a Markdown report, by title."""
    parts = markdown.split("\n## ")[1:]
    return {part.split("\n", 1)[0]: part for part in parts}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(criterion=st.sampled_from(["da", "esa"]), with_binary=st.booleans(), systems=st.integers(2, 3),
       sentences=st.integers(2, 4), judges=st.integers(2, 3), data=st.data())
def test_a_scored_study_and_its_csv_give_the_same_report(criterion, with_binary, systems, sentences, judges, data):
    shared = data.draw(st.lists(st.booleans(), min_size=sentences, max_size=sentences))
    scores = []

    def answer(item):
        if item.scale == "binary":
            return data.draw(st.sampled_from(["yes", "no"]))
        scores.append(data.draw(st.integers(0, 100)))
        return str(scores[-1])

    with tempfile.TemporaryDirectory() as folder:
        study = Path(folder) / "study.sqlite"
        build_study(study, [criterion, "fluency"] if with_binary else [criterion], systems, sentences, judges,
                    shared, answer)
        assume(len(set(scores)) > 2)  # some judge's scores vary, so there are z-scores to compare
        exported = export(study)
        from_study, from_csv = markdown_body(study), markdown_body(exported)
        keys = table_keys(exported)
    z_title = f"Per-system mean z-score, '{criterion}' (0-100 scores)"
    assert sections(from_csv)[z_title] == sections(from_study)[z_title]
    assert from_csv == from_study  # every other table too: agreement, pairs, seed 003's Table 1
    assert f"da_systems:{criterion}" in keys and "seed004_table1" not in keys
    assert not [key for key in keys if key.startswith((f"confusion:{criterion}", f"drift:{criterion}"))]


@pytest.fixture(scope="module")
def da_study(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("da")
    study = folder / "study.sqlite"
    counter = iter(range(10_000))
    build_study(study, ["da"], 3, 4, 3, [True, False, False, True],
                lambda item: str((37 * next(counter) + 11) % 101))
    return study


def rewrite_csv(source: Path, target: Path, change) -> Path:
    """``source`` with every data row passed through ``change(header, row, line)`` (None drops a column)."""
    with open(source, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    with open(target, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        for line, row in enumerate(rows, start=1):
            writer.writerow(change(rows[0], row, line))
    return target


def test_an_export_older_than_its_scale_column_still_reads_as_direct_assessment(da_study):
    exported = export(da_study)
    at = next(csv.reader(exported.open(encoding="utf-8"))).index("scale")
    older = rewrite_csv(exported, exported.with_name("older.csv"), lambda header, row, line: row[:at] + row[at + 1:])
    assert "scale" not in older.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert markdown_body(older) == markdown_body(da_study)


def test_judges_who_never_vary_their_score_still_read_as_direct_assessment(tmp_path):
    """No judge has a z (no sd), so no z cell marks the criterion: the export's scale column does."""
    study = tmp_path / "flat.sqlite"
    build_study(study, ["esa"], 2, 3, 2, [False] * 3, lambda item: "70")
    exported = export(study)
    rows = list(csv.DictReader(exported.open(encoding="utf-8")))
    assert rows and not any(row["z"] for row in rows) and {row["scale"] for row in rows} == {"esa"}
    assert markdown_body(exported) == markdown_body(study)
    assert "da_systems:esa" in table_keys(exported) and "seed004_table1" not in table_keys(exported)


def test_a_score_outside_0_to_100_or_a_second_scale_is_a_line_error(da_study, capsys):
    exported = export(da_study)
    header = next(csv.reader(exported.open(encoding="utf-8")))

    def set_cell(column, value):
        def change(names, row, line):
            return [value if line == 3 and name == column else cell for name, cell in zip(names, row)]
        return change

    for column, value, expected in (("value", "101", "expected a score from 0 to 100 (criterion 'da'"),
                                    ("value", "ten", "expected a score from 0 to 100"),
                                    ("scale", "esa", "expected the scale da of criterion 'da' given on an earlier")):
        assert column in header
        bad = rewrite_csv(exported, exported.with_name("bad.csv"), set_cell(column, value))
        capsys.readouterr()
        assert main(["report", str(bad), "--bootstrap", "0"]) == 2
        err = capsys.readouterr().err
        assert f"bad.csv:3: {expected}" in err and "Traceback" not in err


def test_a_preference_studys_csv_lacks_only_its_ties_by_construction(tmp_path):
    """Every table but the two preference tables is the same; in those, a system pair's sentences and ties
    differ by exactly its ties by construction (never shown, so never exported), strengths and p-values not."""
    study = tmp_path / "prefs.sqlite"
    counter = iter(range(10_000))
    build_study(study, ["preference"], 3, 6, 3, [s % 2 == 0 for s in range(6)],
                lambda item: ("left", "right", "tie", "left")[next(counter) % 4])
    with open_database(study) as db:
        ties = Counter(frozenset((left, right)) for _, left, right in ties_by_construction(db, ops.find_study(db)))
    assert ties  # s0 and s1 said the same on three sentences
    exported = export(study)
    from_study, from_csv = (json.loads(report(source, "json"))["tables"] for source in (study, exported))
    assert [t["key"] for t in from_study] == [t["key"] for t in from_csv]
    for mine, theirs in zip(from_study, from_csv):
        if not mine["key"].startswith("preference_"):
            assert theirs == mine
    signs = {t["key"]: t for t in from_csv}["preference_sign_tests"]
    for mine, theirs in zip({t["key"]: t for t in from_study}["preference_sign_tests"]["rows"], signs["rows"]):
        missing = ties[frozenset(mine[:2])]
        assert theirs == [*mine[:2], mine[2] - missing, *mine[3:5], mine[5] - missing, *mine[6:]]
    strengths = {t["key"]: t for t in from_csv}["preference_bradley_terry"]
    for mine, theirs in zip({t["key"]: t for t in from_study}["preference_bradley_terry"]["rows"],
                            strengths["rows"]):
        assert theirs[:6] == mine[:6]
    assert "From a judgments CSV" in signs["note"]
