"""The screens that draw plots keep them in a folder of their own in the temp dir, removed when the app exits
(before, each Inspect and suggestion-Inspect screen left a folder behind: over a thousand on a test machine)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

PROGRAM = """
import sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
from desktop_study_fixtures import make_study
from parastudio.core.store.database import open_database
from parastudio.desktop.inspect_screen import InspectScreen
from parastudio.desktop.suggestion_inspect_screen import SuggestionInspectScreen

app = QApplication([])
path = Path(sys.argv[1])
make_study(path)
db = open_database(path)
screens = [InspectScreen(db), SuggestionInspectScreen(db)]
for screen in screens:
    (screen.plots_dir / "plot.png").write_bytes(b"drawn")  # a plot drawn, as a worker writes it
    print(screen.plots_dir, flush=True)
    assert screen.plots_dir.is_dir()
"""


def test_the_plot_folders_are_gone_when_the_app_exits(tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(tmp_path / "study.sqlite")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    folders = [Path(line) for line in done.stdout.split()]
    assert len(folders) == 2 and all(folder.parent == temp for folder in folders)
    assert not any(folder.exists() for folder in folders)
    assert not [p.name for p in temp.iterdir() if p.name.startswith("parastudio-")]
