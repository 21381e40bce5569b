"""One study asking preference, da and esa (issue 30's "done when"): judged in the app by keys only, then the
CLI's report gives Bradley–Terry strengths and the 0-100 tables, and the item listing names the pairs."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import judging_screen  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.store.models import Assignment  # noqa: E402

# The keys a judge presses on each kind of page.
KEYS = {"preference": [Qt.Key_A], "da": [Qt.Key_7, Qt.Key_Return],
        "esa": [Qt.Key_M, Qt.Key_Return, Qt.Key_5, Qt.Key_Return]}


def test_a_mixed_study_runs_by_keys_and_reports(qtbot, tmp_path):
    path = tmp_path / "mixed.sqlite"
    seen = set()
    # bob's answers come through the store afterwards, as another app writes them
    with judging_screen(qtbot, path, ("preference", "da", "esa"), annotators=("ann", "bob"), name="mixed",
                        seed=2) as (screen, _db):
        while screen.item is not None:
            scale = screen.item.scale
            seen.add(scale)
            assert screen.pages.currentWidget() is screen.protocol_views[protocol_of(scale).view]
            for key in KEYS[scale]:
                qtbot.keyClick(screen, key)
        screen.writer.drain()
    db = open_database(path)
    assert seen == {"preference", "da", "esa"}
    with db.reading() as session:
        bob = session.scalar(select(func.count(Assignment.id)).where(Assignment.annotator_id == 2))
    while (item := ops.next_item(db, 2)) is not None:
        value = {"preference": "right", "da": "40", "esa": "45"}[item.scale]
        ops.record_judgment(db, item.assignment_id, value)
    db.close()
    assert bob > 0
    done = subprocess.run([sys.executable, "-m", "parastudio", "report", str(path), "--format", "json", "--bootstrap", "50"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    tables = {t["key"]: t for t in json.loads(done.stdout)["tables"]}
    assert {"preference_bradley_terry", "preference_sign_tests", "da_systems:da", "da_systems:esa"} <= set(tables)
    assert len(tables["preference_bradley_terry"]["rows"]) == 2
    listed = subprocess.run([sys.executable, "-m", "parastudio", "study", "items", "--db", str(path), "--format", "jsonl"],
                            capture_output=True, text=True)
    kinds = {json.loads(line)["kind"] for line in listed.stdout.splitlines()}
    assert {"candidate", "preference"} <= kinds
