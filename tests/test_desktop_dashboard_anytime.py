"""The Dashboard shows the anytime-valid sign tests live, beside the fixed ones, with the guarantee in one line."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import make_study  # noqa: E402

from parastudio.core.stats.anytime_comparisons import GUARANTEE, anytime_status  # noqa: E402
from parastudio.core.stats.anytime_sign_test import AnytimeSignTest  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.study_judgments import study_judgment_records  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


def test_the_dashboard_shows_the_anytime_table_with_its_guarantee(qtbot, tmp_path):
    from parastudio.desktop.dashboard_screen import DashboardScreen

    path = tmp_path / "study.sqlite"
    study = make_study(path, criteria=("meaning",))
    db = open_database(path)
    for judge in ("ann", "bob"):
        annotator = ops.find_annotator(db, study, judge)
        while (item := ops.next_item(db, annotator)) is not None:
            ops.record_judgment(db, item.assignment_id, "yes" if "beast" in item.candidate or judge == "ann" else "no")
    screen = DashboardScreen(db)
    qtbot.addWidget(screen)
    screen.show()
    screen.set_study(study, "toy")
    qtbot.waitUntil(lambda: screen.report is not None and bool(screen.report.tables), timeout=60_000)
    titles = screen.tables_model.stringList()
    anytime = next(i for i, title in enumerate(titles) if title.startswith("Anytime-valid sign tests"))
    assert titles[anytime - 1].startswith("Sign tests between systems")  # beside the fixed test
    screen.tables_view.setCurrentIndex(screen.tables_model.index(anytime))
    assert GUARANTEE.capitalize() in screen.table_title.text()
    status = anytime_status(study_judgment_records(db, study), ["meaning"], AnytimeSignTest())
    shown = [screen.model.row_at(r) for r in range(screen.model.rowCount())]
    assert [row[:6] for row in shown] == [[c.system_a, c.system_b, str(c.result.n), str(c.result.wins_a),
                                           str(c.result.wins_b), str(c.result.ties)] for c in status.comparisons]
    assert [row[7] for row in shown] == [c.decision for c in status.comparisons]
    screen.cancel()
    db.close()
