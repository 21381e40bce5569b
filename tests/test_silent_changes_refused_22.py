"""Issue 22, Found 6: inputs that were taken with exit 0 and changed a result are refused, naming file and line.

A byte-order mark inside a file, a sentence id given two sources, a merged answer off the criterion's scale
or altered since it was merged, a malformed rule in ``table prune``, non-text input to ``lm train``, and a
pattern table whose two sides do not have the same slots.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from fuzz_support import run_cli
from sqlalchemy import select

from parastudio.core.errors import InputFormatError
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Judgment


def test_a_byte_order_mark_inside_a_judgments_csv_is_refused_at_its_line(tmp_path):
    judgments = tmp_path / "j.csv"
    rows = ["item,annotator,criterion,value", "1,ann1,fluency,yes", "1,ann2,fluency,no", "2,ann1,fluency,no",
            "\ufeff2,ann2,fluency,no"]  # two files pasted together: "\ufeff2" would be a new item
    judgments.write_text("\ufeff" + "\n".join(rows) + "\n", encoding="utf-8")
    status, _out, err = run_cli(["agreement", str(judgments), "--json"])
    assert status == 2 and f"{judgments}:5: expected a byte-order mark (U+FEFF) only at the start" in err, err
    judgments.write_text("\ufeff" + "\n".join(rows).replace("\ufeff", "") + "\n", encoding="utf-8")
    assert run_cli(["agreement", str(judgments), "--json"])[0] == 0  # at the start it is only a mark


def _line(sentence_id, text, source):
    return json.dumps({"sentence_id": sentence_id, "system": "beam", "text": text, "source": source}) + "\n"


def test_a_sentence_id_given_two_sources_is_refused(tmp_path):
    study = tmp_path / "s.sqlite"
    assert run_cli(["study", "create", "s", "--db", str(study), "--criteria", "fluency"])[0] == 0
    candidates = tmp_path / "c.jsonl"
    candidates.write_text(_line(0, "the beast runs", "the dog runs") + _line(0, "a cat naps", "the cat sleeps"))
    status, _out, err = run_cli(["study", "import-candidates", str(candidates), "--db", str(study)])
    assert status == 2 and f"{candidates}:2: expected the source of sentence_id 0 as first given" in err, err
    candidates.write_text(_line(0, "the beast runs", "the dog runs"))
    assert run_cli(["study", "import-candidates", str(candidates), "--db", str(study)])[0] == 0
    later = tmp_path / "later.jsonl"
    later.write_text(_line(0, "a cat naps", "the cat sleeps"))  # the same id, another sentence, a later file
    status, _out, err = run_cli(["study", "import-candidates", str(later), "--db", str(study)])
    assert status == 2 and f"{later}:1: expected the source of sentence_id 0 as first given (in the study" in err


def _master_and_package(tmp_path):
    master = open_database(tmp_path / "master.sqlite", create=True)
    study_id = ops.create_study(master, "s", seed=1, blind_phases=False, criteria=["fluency"])
    ops.import_candidates(master, study_id, [ops.CandidateRow(sentence_id=str(s), system="beam", text=f"c {s}",
                                                              source=f"s {s}") for s in range(3)])
    ops.assign(master, study_id, ["ann"])
    ops.export_package(master, study_id, "ann", tmp_path / "ann.pkg")
    with open_database(tmp_path / "ann.pkg") as package:
        annotator = ops.find_annotator(package, ops.find_study(package), "ann")
        for _ in range(3):
            ops.record_judgment(package, ops.next_item(package, annotator).assignment_id, "yes")
    return master


def _set_package_value(path, value):
    with sqlite3.connect(path) as connection:  # another program edits the returned file
        connection.execute("UPDATE judgment SET value = ? WHERE id = (SELECT min(id) FROM judgment)", (value,))
    connection.close()


def test_merging_an_answer_off_the_scale_is_refused(tmp_path):
    master = _master_and_package(tmp_path)
    try:
        _set_package_value(tmp_path / "ann.pkg", "maybe")
        status, _out, err = run_cli(["study", "merge-package", str(tmp_path / "ann.pkg"), "--db",
                                     str(tmp_path / "master.sqlite")])
        # The package is refused when opened (issue 39: a study checked when opened), naming the file and the row.
        assert status == 2 and f"{tmp_path / 'ann.pkg'}: expected a study whose tables hold" in err, err
        assert "judgment row 1: value 'maybe' is not on criterion 'fluency''s scale" in err, err
        assert ops.study_progress(master, ops.find_study(master)).per_annotator["ann"][0] == 0  # nothing merged
    finally:
        master.close()


def test_an_answer_altered_since_it_was_merged_is_a_conflict(tmp_path):
    master = _master_and_package(tmp_path)
    try:
        assert ops.merge_package(master, tmp_path / "ann.pkg").applied == 3
        _set_package_value(tmp_path / "ann.pkg", "no")
        status, out, err = run_cli(["study", "merge-package", str(tmp_path / "ann.pkg"), "--db",
                                    str(tmp_path / "master.sqlite")])
        assert status == 0 and "1 conflicts" in out and "altered since it was merged" in out, out + err
        with master.reading() as session:
            assert sorted(session.scalars(select(Judgment.value))) == ["yes", "yes", "yes"]  # the master keeps its own
    finally:
        master.close()


def test_table_prune_refuses_a_malformed_rule_and_writes_nothing(tmp_path):
    table = tmp_path / "t.txt"
    prune_list = tmp_path / "prune.txt"
    prune_list.write_text("runs ||| sprints\n")
    output = tmp_path / "pruned.txt"
    for bad in ("the dog ||| the hound", "the dog ||| the hound ||| high", "the dog |||  ||| 0.1",
                "the dog ||| the hound ||| nan"):
        table.write_text(f"the dog ||| the beast ||| 0.8\n{bad}\nruns ||| sprints ||| 0.5\n")
        status, _out, err = run_cli(["table", "prune", str(table), "--list", str(prune_list), "-o", str(output)])
        assert status == 2 and f"{table}:2: expected a rule" in err, (bad, err)
        assert not output.exists()
    table.write_text("the dog ||| the beast ||| 0.8 0.1\nruns ||| sprints ||| 0.5 0.2\n")
    assert run_cli(["table", "prune", str(table), "--list", str(prune_list), "-o", str(output)])[0] == 0
    assert output.read_text() == "the dog ||| the beast ||| 0.8 0.1\n"


def test_lm_train_refuses_a_corpus_that_is_not_text(tmp_path):
    from parastudio.core.engine.lm import kenlm_tools

    output = tmp_path / "lm.bin"
    for name, data, expected in (("latin1.txt", b"the dog runs\nthe caf\xe9 sleeps\n", ":2: expected UTF-8 text"),
                                 ("nul.txt", b"the dog runs\nthe\x00cat\n", ":2: expected text without NUL"),
                                 ("binary.bin", bytes(range(256)) * 8, ":1: expected")):
        corpus = tmp_path / name
        corpus.write_bytes(data)
        with pytest.raises(InputFormatError, match=f"{corpus}{expected}"):
            kenlm_tools.train_lm(corpus, 2, output, discount_fallback=True)
        assert not output.exists()


def test_a_pattern_pair_whose_sides_have_other_slots_is_refused(tmp_path):
    table = tmp_path / "patterns.txt"
    good = "take [NN_1] into consideration ||| consider [NN_1] ||| 0.5 0.5 ||| 0 -0.69 -0.69 -0.69 ||| p\n"
    for bad in ("take [NN_1] into consideration ||| consider [NN_2] ||| 0.5 0.5 ||| 0 -0.69 -0.69 -0.69 ||| p",
                "take [NN_1] into [NN_2] ||| consider [NN_1] ||| 0.5 0.5 ||| 0 -0.69 -0.69 -0.69 ||| p"):
        table.write_text(good + bad + "\n")
        status, _out, err = run_cli(["patterns", "stats", str(table)])
        assert status == 2 and f"{table}:2: expected" in err and "slots" in err, err
    table.write_text(good)
    assert run_cli(["patterns", "stats", str(table)])[0] == 0


def test_pivot_refuses_a_byte_order_mark_inside_its_phrase_table(tmp_path):
    table = tmp_path / "phrases.txt"
    table.write_text("the dog ||| le chien ||| 0.5 0.4 0.6 0.3\n\ufeffthe hound ||| le chien ||| 0.3 0.2 0.2 0.1\n",
                     encoding="utf-8")
    output = tmp_path / "para.txt"
    status, _out, err = run_cli(["pivot", str(table), "-o", str(output)])
    assert status == 2 and f"{table}:2: expected a byte-order mark (U+FEFF) only at the start" in err, err
    assert not output.exists()
