"""The Quality screen gives each judge's MACE or Dawid-Skene competence per criterion with the data it stands on;
the Dashboard names the judges under the study's competence minimum while the study runs."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import make_study  # noqa: E402

from parastudio.core.stats.judge_competence import CompetenceModel  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.study_judgments import set_competence_watch  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


def _judged_study(tmp_path):
    path = tmp_path / "study.sqlite"
    study = make_study(path, annotators=("ann", "bob", "cid"), criteria=("fluency", "da"))
    db = open_database(path)
    for judge in ("ann", "bob", "cid"):
        annotator = ops.find_annotator(db, study, judge)
        while (item := ops.next_item(db, annotator)) is not None:
            value = "60" if item.scale == "da" else "yes" if judge == "cid" or "beast" in item.candidate else "no"
            ops.record_judgment(db, item.assignment_id, value)
    return db, study


def _fluency_labels(db, study) -> dict:
    labels: dict = {}
    for row in ops.judgment_records(db, study):
        if row["criterion"] == "fluency":
            labels.setdefault(row["item"], {})[row["annotator"]] = row["value"]
    return labels


def test_the_quality_screen_shows_each_judges_competence(qtbot, tmp_path):
    from parastudio.desktop.quality_screen import QualityScreen

    db, study = _judged_study(tmp_path)
    screen = QualityScreen(db)
    qtbot.addWidget(screen)
    screen.competence_model.setCurrentIndex(screen.competence_model.findData("dawid-skene"))
    with qtbot.waitSignal(screen.computed, timeout=120_000):
        screen.set_study(study, "toy")
    expected = CompetenceModel("dawid-skene").fit(_fluency_labels(db, study), criterion="fluency")
    shown = [screen.competence_rows.row_at(r) for r in range(screen.competence_rows.rowCount())]
    assert shown == [[j.annotator, "fluency", f"{j.competence:.3f}", j.judgments, len(expected.items),
                      expected.judgments] for j in expected.judges.values()]
    assert "da: direct assessment is a 0-100 score, not a label: MACE and Dawid-Skene do not apply" in \
        screen.competence_note.text()
    assert expected.signature in screen.competence_note.text()
    db.close()


def test_the_dashboard_names_judges_under_the_minimum(qtbot, tmp_path):
    from parastudio.desktop.dashboard_screen import DashboardScreen

    db, study = _judged_study(tmp_path)
    fit = CompetenceModel("mace").fit(_fluency_labels(db, study))
    ranked = sorted(fit.judges.values(), key=lambda j: j.competence)
    minimum = (ranked[0].competence + ranked[1].competence) / 2  # only the weakest judge is under it
    set_competence_watch(db, study, "mace", minimum)
    screen = DashboardScreen(db)
    qtbot.addWidget(screen)
    screen.show()
    screen.set_study(study, "toy")
    qtbot.waitUntil(lambda: screen.report is not None, timeout=120_000)
    assert screen.competence.text() == (f"Under MACE competence {minimum:g}: {ranked[0].annotator} "
                                        f"(fluency {ranked[0].competence:.2f})")
    screen.cancel()
    db.close()
