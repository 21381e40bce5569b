"""Opening a study database from the app: said in a dialog when it cannot be opened, and an older study
upgraded only when the person agrees (at launch, and from File > Open)."""

from __future__ import annotations

import sys


def open_study_database(path: str, *, create: bool = False, parent=None):
    """The study's database, or None once the person was told why not. A study of an older version is upgraded
    only when the person agrees: older versions of the app cannot open it afterwards."""
    from PySide6.QtWidgets import QMessageBox

    from parastudio.core.errors import InputFileError
    from parastudio.core.store.database import StudyNeedsUpgradeError, open_database

    try:
        try:
            return open_database(path, create=create)
        except StudyNeedsUpgradeError as error:
            answer = QMessageBox.question(
                parent, "Paraphrase Studio", f"{path} was made by an older version of Paraphrase Studio (schema "
                f"{error.revision}). Upgrade it to open it here?\n\nOlder versions cannot open it afterwards.",
                QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
            if answer != QMessageBox.Yes:
                print(f"parastudio: error: {error}", file=sys.stderr)
                return None
            return open_database(path, upgrade_schema=True)
    except (InputFileError, OSError) as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        # At launch nothing else is open: critical; from an open window (File > Open), a warning over it.
        say = QMessageBox.critical if parent is None else QMessageBox.warning
        say(parent, "Paraphrase Studio", f"Could not open the study database:\n\n{error}")
        return None
