"""Real judges (issue 43, item 5): the bundled MQM ratings of WMT21 TED en-de imported as a study, and
`parastudio report` on it giving the repository's published system table (Freitag et al. 2021) within 0.01, in
the published order."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database

BUNDLED = Path(__file__).resolve().parents[1] / "evaldata" / "mqm" / "mqm_ted_ende.tsv.gz"
# google/wmt-mqm-human-evaluation README, "TED talks", "English to German" (ref.A there is the file's "ref").
PUBLISHED = [("ref", 0.91), ("Facebook-AI", 1.06), ("Online-W", 1.12), ("VolcTrans-AT", 1.24),
             ("metricsystem3", 1.44), ("VolcTrans-GLAT", 1.49), ("HuaweiTSC", 1.50), ("metricsystem1", 1.63),
             ("metricsystem2", 1.69), ("metricsystem5", 1.72), ("UEdin", 1.77), ("metricsystem4", 1.78),
             ("eTranslation", 1.96), ("Nemo", 2.14)]


@pytest.fixture(scope="module")
def ted_study(tmp_path_factory):
    db_path = tmp_path_factory.mktemp("mqm") / "ted.sqlite"
    assert main(["study", "import-mqm", str(BUNDLED), "--db", str(db_path), "--study", "ted-ende"]) == 0
    return db_path


@pytest.mark.slow
def test_report_reproduces_the_published_ted_ende_table(ted_study, tmp_path, capsys):
    out = tmp_path / "report.json"
    assert main(["report", str(ted_study), "--format", "json", "-o", str(out), "--bootstrap", "0"]) == 0
    tables = {t["key"]: t for t in json.loads(out.read_text())["tables"]}
    rows = tables["mqm_systems:mqm"]["rows"]
    assert [row[1] for row in rows] == [name for name, _ in PUBLISHED]
    for (name, published), row in zip(PUBLISHED, rows):
        assert abs(row[2] - published) <= 0.01, (name, row[2], published)
        assert row[3] == 529 and row[4] == 529
    # MQM's section replaces those read from labels: no shares of 70 "labels", no agreement over systems.
    assert not any(key.startswith(("seed004", "agreement", "pairs")) for key in tables)


@pytest.mark.slow
def test_the_import_keeps_every_rating_as_its_systems(ted_study):
    with open_database(ted_study) as db:
        study = ops.find_study(db, "ted-ende")
        rows = list(ops.iter_judgments(db, study))
        items = ops.list_items(db, study)
    assert len(rows) == 7406 and len({r["annotator"] for r in rows}) == 4
    # A string two systems wrote is one candidate, rated once per system, each rating counted for its system alone.
    assert len(items) < 7406 and all(len(r["systems"]) == 1 for r in rows)
    with gzip.open(BUNDLED, "rt", encoding="utf-8") as handle:
        lines = [line.rstrip("\n").split("\t") for line in handle][1:]
    first = lines[0]  # Facebook-AI, seg 1, rater1: "<v>in Betracht zu ziehen</v>," Terminology, Minor
    judged = next(r for r in rows if r["systems"] == [first[0]] and r["source_key"] == first[3])
    errors = json.loads(judged["text"])
    words = judged["candidate"].split()
    assert [" ".join(words[e["start"]:e["end"]]) for e in errors] == ["in Betracht zu ziehen,"]  # whole words
    assert errors[0]["category"] == first[7] and errors[0]["severity"] == "minor" and judged["value"] == "-1"
    references = {item["source_key"] for item in items}
    assert len(references) == 529


def test_bad_lines_are_named(tmp_path, capsys):
    header = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment"
    good = "sysA\ttalk.1\t1\t1\trater1\tHello world.\tHallo <v>Welt</v>.\tAccuracy/Mistranslation\tMajor\t"
    cases = {"severity": (good.replace("\tMajor\t", "\tHuge\t"), "a severity among Major, Minor, Neutral"),
             "category": (good.replace("Accuracy/Mistranslation", "Accuracy/Wrongness"), "an MQM category"),
             "fields": (good.rsplit("\t", 1)[0], "10 tab-separated fields"),
             "marks": (good.replace("Hallo <v>", "<v>Hallo <v>"), "at most one error marked"),
             "no-error": (good.replace("Accuracy/Mistranslation\tMajor", "No-error\tNo-error"), "No-error")}
    for name, (line, expected) in cases.items():
        path = tmp_path / f"{name}.tsv"
        path.write_text(f"{header}\n{good.replace('rater1', 'rater2')}\n{line}\n", encoding="utf-8")
        db = tmp_path / f"{name}.sqlite"
        assert main(["study", "import-mqm", str(path), "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert f"{path}:3: expected" in err and expected in err, err
        assert not db.exists()  # checked before the study file is made


def test_a_small_file_becomes_a_study_with_its_scores(tmp_path):
    header = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment"
    lines = [
        "ref\td\t1\t1\tr1\tHello, world.\tHallo, Welt.\tNo-error\tNo-error\t",
        "sysA\td\t1\t1\tr1\tHello, world.\tHallo <v>Welt</v>.\tAccuracy/Mistranslation\tMajor\t",
        "sysA\td\t1\t1\tr1\tHello, world.\tHallo<v> </v>Welt.\tFluency/Punctuation\tMinor\t",
        "sysB\td\t1\t1\tr2\tHello, world.\tHallo, Welt.\tFluency/Punctuation\tMinor\tcomma",
        "sysB\td\t1\t2\tr2\tBye.\t<v>Bye.</v>\tNon-translation\tMajor\t",
        "ref\td\t1\t2\tr1\tBye.\tTschüss.\tStyle/Awkward\tNeutral\t",
        "sysA\td\t1\t2\tr1\tBye.\tTschüss.\tNo-error\tNo-error\t",
    ]
    path = tmp_path / "small.tsv"
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    db_path = tmp_path / "small.sqlite"
    assert main(["study", "import-mqm", str(path), "--db", str(db_path)]) == 0
    with open_database(db_path) as db:
        study = ops.find_study(db, "small")
        values = {(r["systems"][0], r["source_key"]): r["value"] for r in ops.iter_judgments(db, study)}
    # "Hallo, Welt." is one candidate written by ref and sysB, rated apart: ref 0, sysB 0.1 on segment 1.
    assert values == {("ref", "1"): "0", ("sysA", "1"): "-5.1", ("sysB", "1"): "-0.1", ("sysB", "2"): "-25",
                      ("ref", "2"): "0", ("sysA", "2"): "0"}
    out = tmp_path / "report.json"
    assert main(["report", str(db_path), "--format", "json", "-o", str(out), "--bootstrap", "0"]) == 0
    rows = next(t for t in json.loads(out.read_text())["tables"] if t["key"] == "mqm_systems:mqm")["rows"]
    assert [(r[1], round(r[2], 6)) for r in rows] == [("ref", 0.0), ("sysA", 2.55), ("sysB", 12.55)]
