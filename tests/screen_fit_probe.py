"""Run in a subprocess on an offscreen screen of a given size (tests/test_desktop_round_two.py): opens the main
window on a small judged study, visits every screen through the screen chooser, and prints as JSON how far each
visible top-level widget reaches past the screen's free area and what of each screen's key column is visible."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp())


def main() -> None:
    from desktop_study_fixtures import make_choice_study, make_study
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication
    from qt_waiting import wait

    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database

    QSettings.setDefaultFormat(QSettings.IniFormat)
    app = QApplication(sys.argv[:1])
    from parastudio.desktop.main_window import SCREENS, MainWindow
    from parastudio.desktop.window_fit import overflow

    path = Path(tempfile.mkdtemp()) / "study.sqlite"
    study = make_study(path)
    make_choice_study(path, annotators=("ann",))
    with open_database(path) as db:
        for name, value in (("ann", "yes"), ("bob", "no")):
            annotator = ops.find_annotator(db, study, name)
            while (item := ops.next_item(db, annotator)) is not None:
                ops.record_judgment(db, item.assignment_id, value if item.scale == "binary" else "2")
    window = MainWindow(path, annotator="ann", table="none.gz", lm="none.bin")
    window.show()
    wait(300)
    found = {"screen": [app.primaryScreen().availableGeometry().width(),
                        app.primaryScreen().availableGeometry().height()], "screens": {}}
    for index, title in enumerate(SCREENS):
        window.screen_combo.activated.emit(index)  # as a pick in the chooser does
        wait(300)
        for _ in range(200):  # Inspect loads its rows in a worker
            if title != "Inspect" or window.inspect.loaded:
                break
            wait(100)
        tops = {w.objectName() or type(w).__name__: overflow(w) for w in app.topLevelWidgets()
                if w.isVisible() and w.isWindow()}
        seen = {"current": window.tabs.currentIndex() == index, "overflow": tops}
        if title == "Inspect":
            view = window.inspect.view
            column = len(window.inspect.model.COLUMNS) - 1  # the candidate's text
            x = view.columnViewportPosition(column)
            width = view.columnWidth(column)
            visible = max(0, min(x + width, view.viewport().width()) - max(x, 0))
            seen["candidate_column_visible"] = visible
            seen["rows"] = window.inspect.model.rowCount()
        if title == "Studies":  # how far past the table's visible width each study's share done stands
            from parastudio.desktop.studies_screen import HEADERS

            view, column = window.studies.view, HEADERS.index("done")
            seen["done_column_cut_by"] = max(0, view.columnViewportPosition(column) + view.columnWidth(column)
                                             - view.viewport().width())
        if title == "Tune":
            seen["path_fields_short_by"] = [max(0, edit.fontMetrics().horizontalAdvance(edit.text()) + 12
                                                - edit.width())
                                            for edit in (window.tune.tables_edit, window.tune.lm_edit)]
        found["screens"][title] = seen
        for dialog in (getattr(window, "instructions_dialog", None),):
            if dialog is not None and dialog.isVisible():
                found["screens"][title]["overflow"]["InstructionsDialog"] = overflow(dialog)
                dialog.accept()
    print(json.dumps(found))
    window.close()


if __name__ == "__main__":
    main()
