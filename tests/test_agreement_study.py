"""`parastudio agreement` on a study database: q from the criterion's scale, and the same figures from its
exported judgments CSV (which carries the scale's levels)."""

from __future__ import annotations

import csv
import json

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


@pytest.fixture
def study(tmp_path):
    """Two judges rate 8 candidates on seed 004's 3-point usability scale, answering only 2 and 3."""
    path = tmp_path / "study.sqlite"
    with open_database(path, create=True) as db:
        study_id = ops.create_study(db, "u", criteria=["usability"], seed=3)
        ops.import_candidates(db, study_id, [
            ops.CandidateRow(sentence_id=str(s), system="beam", rank=0, text=f"a dog {s} runs",
                             source=f"the dog {s} runs") for s in range(8)])
        ops.assign(db, study_id, ["judge-1", "judge-2"])
        for judge in ("judge-1", "judge-2"):
            annotator = ops.find_annotator(db, study_id, judge)
            while (item := ops.next_item(db, annotator)) is not None:
                index = int(item.source.split()[2])
                value = "3" if index % 2 or (judge == "judge-1" and index < 4) else "2"
                ops.record_judgment(db, item.assignment_id, value)
    return path


def agreement(capsys, *argv):
    assert main(["agreement", *argv, "--criterion", "usability", "--bootstrap", "0", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_agreement_of_a_study_takes_q_from_the_scale_and_equals_its_exported_csv(study, tmp_path, capsys):
    from_study = agreement(capsys, str(study))
    # 8 items, the judges agree on 6: P(O) = 0.75; a 3-point scale: P(E) = 1/3, kappa = (0.75 - 1/3) / (2/3).
    assert from_study["n_items"] == 8
    assert from_study["observed"] == pytest.approx(0.75)
    assert from_study["fixed_chance_kappa"] == pytest.approx((0.75 - 1 / 3) / (2 / 3))

    exported = tmp_path / "judgments.csv"
    assert main(["study", "export-judgments", "--db", str(study), "-o", str(exported)]) == 0
    with open(exported, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["levels"] for row in rows} == {"1;2;3"}
    capsys.readouterr()
    assert agreement(capsys, str(exported)) == from_study

    # Without the levels column a CSV only knows the labels observed (2 and 3): q = 2 unless --categories says 3.
    bare = tmp_path / "bare.csv"
    with open(bare, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "annotator", "criterion", "value"])
        writer.writerows([row["item"], row["annotator"], row["criterion"], row["value"]] for row in rows)
    assert agreement(capsys, str(bare))["fixed_chance_kappa"] == pytest.approx((0.75 - 1 / 2) / (1 / 2))
    told = agreement(capsys, str(bare), "--categories", "3")
    # The same numbers; the signature says where q came from.
    assert {k: v for k, v in told.items() if k != "signature"} == {k: v for k, v in from_study.items() if k != "signature"}
    assert "|q:3|q-from:categories|" in told["signature"] and "|q:3|q-from:scale|" in from_study["signature"]


def test_agreement_text_names_where_q_came_from(study, capsys):
    assert main(["agreement", str(study), "--criterion", "usability", "--bootstrap", "0"]) == 0
    assert "q = 3 (the criterion's scale)" in capsys.readouterr().out


def test_agreement_text_says_how_many_items_two_judges_share(study, tmp_path, capsys):
    assert main(["agreement", str(study), "--criterion", "usability", "--bootstrap", "0"]) == 0
    assert "8 of them judged by two or more annotators" in capsys.readouterr().out
    # Two judges who never judged the same item: every statistic is undefined, and the text says why.
    path = tmp_path / "apart.csv"
    path.write_text("item,annotator,criterion,value\na,x,u,1\nb,y,u,2\nc,x,u,2\n", encoding="utf-8")
    assert main(["agreement", str(path), "--criterion", "u", "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert "no item has two judges yet" in out and "cohen_kappa                  undefined" in out


def test_a_csv_whose_levels_disagree_for_one_criterion_is_an_input_error(tmp_path, capsys):
    path = tmp_path / "j.csv"
    path.write_text("item,annotator,criterion,value,levels\na,x,u,1,1;2;3\na,y,u,2,1;2\n", encoding="utf-8")
    assert main(["agreement", str(path), "--criterion", "u"]) != 0
    assert "j.csv:3" in capsys.readouterr().err
