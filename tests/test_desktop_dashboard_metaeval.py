"""The Dashboard shows ``parastudio metaeval``'s system-level table (issue 43): on real judges (a slice of the
bundled WMT21 TED en-de MQM ratings, the ``ref`` system left out as the study's reference) the figures the CLI
gives, and on a study being judged the table follows the judgments as they arrive."""

import gzip
import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import make_study  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from tests.test_output_targets import run  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")
BUNDLED = Path(__file__).resolve().parents[1] / "evaldata" / "mqm" / "mqm_ted_ende.tsv.gz"
TITLE = "Metrics against the judges, system level"


def _open_dashboard(qtbot, db, study):
    from parastudio.desktop.dashboard_screen import DashboardScreen

    screen = DashboardScreen(db)
    qtbot.addWidget(screen)
    screen.show()
    screen.set_study(study, "study")
    # The report's tables first, then the metrics against the judges from a second worker.
    qtbot.waitUntil(lambda: screen.report is not None and not screen._busy
                    and any(table.title.startswith(TITLE) for table in screen.report.tables), timeout=120_000)
    return screen


def _show(screen, criterion: str) -> list[list[str]]:
    titles = screen.tables_model.stringList()
    row = next(i for i, title in enumerate(titles) if title.startswith(f"{TITLE}: {criterion} "))
    screen.tables_view.setCurrentIndex(screen.tables_model.index(row))
    return [screen.model.row_at(r) for r in range(screen.model.rowCount())]


def test_the_dashboard_shows_metaevals_system_table_of_the_ted_slice(qtbot, tmp_path):
    with gzip.open(BUNDLED, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    tsv = tmp_path / "slice.tsv"
    tsv.write_text("\n".join([lines[0]] + [line for line in lines[1:] if int(line.split("\t")[3]) <= 6]) + "\n",
                   encoding="utf-8")
    path = tmp_path / "ted.sqlite"
    status, _, err = run(["study", "import-mqm", str(tsv), "--db", str(path), "--study", "ted"])
    assert status == 0, err
    status, out, err = run(["metaeval", str(path), "--criterion", "mqm", "--exclude-system", "ref", "--format", "json",
                            "--bootstrap", "0", "--permutations", "0"])
    assert status == 0, err
    expected = json.loads(out)
    db = open_database(path)
    screen = _open_dashboard(qtbot, db, ops.find_study(db, "ted"))
    shown = _show(screen, "mqm")
    assert "(13 systems," in screen.table_title.text()  # ref, the reference, is not ranked
    assert sorted(row[0] for row in shown) == ["bleu", "chrf", "ter"]  # no source-side metric for a translation
    for row in shown:
        entry = expected["metrics"][row[0]]
        assert row[3] == f"{entry['system_pearson']['value']:.4f}"
        assert row[4] == f"{100 * entry['system_accuracy']['value']:.1f}%"
    assert "translation study" in screen.table_title.text()
    screen.cancel()
    db.close()


def test_the_dashboards_metaeval_table_follows_the_judgments(qtbot, tmp_path):
    path = tmp_path / "study.sqlite"
    study = make_study(path, criteria=("meaning",))
    db = open_database(path)

    def judge(name: str, count: int) -> None:
        annotator = ops.find_annotator(db, study, name)
        for _ in range(count):
            item = ops.next_item(db, annotator)
            if item is None:
                return
            ops.record_judgment(db, item.assignment_id, "yes" if "a" in item.candidate.split() else "no")

    judge("ann", 4)
    screen = _open_dashboard(qtbot, db, study)
    _show(screen, "meaning")
    before = screen.table_title.text()
    judge("ann", 100)
    judge("bob", 100)
    screen.refresh()  # what the Dashboard's poll does every few seconds
    qtbot.waitUntil(lambda: not screen._busy and screen.table_title.text() != before, timeout=120_000)
    shown = _show(screen, "meaning")
    assert "edit_rate" in [row[0] for row in shown]  # a paraphrase study: every metric
    assert before != screen.table_title.text()
    screen.cancel()
    db.close()


def test_the_metrics_are_computed_once_while_judgments_arrive(tmp_path):
    """The Dashboard's cache: the candidates' metrics do not depend on the judgments, so a refresh reuses them."""
    from parastudio.core.study_metaeval import StudyMetaevalOptions, study_scores

    path = tmp_path / "study.sqlite"
    study = make_study(path, criteria=("meaning",))
    with open_database(path) as db:
        cache: dict = {}
        first = study_scores(db, study, StudyMetaevalOptions("meaning"), cache)
        assert study_scores(db, study, StudyMetaevalOptions("meaning"), cache) is first
        other = study_scores(db, study, StudyMetaevalOptions("meaning", alpha=0.5), cache)
        assert other is not first and len(cache) == 1
        assert study_scores(db, study, StudyMetaevalOptions("meaning")) is not first  # no cache: computed
