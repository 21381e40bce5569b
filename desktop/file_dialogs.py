"""Every file dialog of the app, made so that it never reads a file's contents.

Qt's file dialog asks its icon provider for each listed file's icon and type, and the stock provider asks
``QMimeDatabase``, which opens and reads a file whose name does not decide its type: a study ``S`` and its
``S-wal`` and ``S-shm``. Closing any descriptor of a file drops every POSIX lock the process holds on it
(SQLite's "How to corrupt your database", section 2.2), so another program that then opens and closes the
study believes it is the last one, checkpoints and deletes the WAL, and the app's later answers go into
the deleted file. Measured with ``strace -f -e trace=openat`` on a folder holding ``study.sqlite`` and its
``-wal`` and ``-shm``: ``QFileDialog.getOpenFileName`` and ``getSaveFileName`` each opened all three
(``O_RDONLY``, then closed them); the dialogs made here open none of them, only the folder (the test
``tests/test_file_dialog_keeps_answers.py`` measures it again).

So every dialog is Qt's own (a native one runs GTK in this process, which sniffs too), its icon provider
answers from the name and ``stat`` alone, and every caller goes through :func:`get_open_file_name` or
:func:`get_save_file_name`, which take the arguments of ``QFileDialog``'s static functions of the same name.
A file chosen that is a study this process holds (or its ``-wal`` or ``-shm``) is refused with a message, for
reading it as a table or writing an export over it would do the same harm, unless the caller opens studies
(``study=True``: the store opens it through SQLite alone).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QFileInfo
from PySide6.QtGui import QAbstractFileIconProvider, QIcon
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QStyle, QWidget

from parastudio.core.store.wal_file import held_study_files


class NameOnlyIconProvider(QAbstractFileIconProvider):
    """A folder icon or a file icon, and a type named from the suffix: nothing is opened to find them."""

    def icon(self, what) -> QIcon:  # noqa: D102 (QAbstractFileIconProvider's two overloads in one)
        if isinstance(what, QFileInfo):
            folder = what.isDir()
        else:
            folder = what == QAbstractFileIconProvider.IconType.Folder
        return QApplication.style().standardIcon(QStyle.SP_DirIcon if folder else QStyle.SP_FileIcon)

    def type(self, info: QFileInfo) -> str:  # noqa: A003 (Qt's name)
        if info.isDir():
            return "Folder"
        return f"{info.suffix()} file" if info.suffix() else "File"


def _dialog(parent: QWidget | None, caption: str, directory: str, filter: str) -> QFileDialog:  # noqa: A002
    dialog = QFileDialog(parent, caption, directory, filter)
    dialog.setOptions(QFileDialog.Option.DontUseNativeDialog | QFileDialog.Option.DontUseCustomDirectoryIcons)
    dialog.icon_provider = NameOnlyIconProvider()  # the dialog does not own it: keep it alive with the dialog
    dialog.setIconProvider(dialog.icon_provider)
    return dialog


def _run(dialog: QFileDialog, study: bool) -> tuple[str, str]:
    try:
        if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
            return "", ""
        path, name_filter = dialog.selectedFiles()[0], dialog.selectedNameFilter()
        if not study and _is_held_study(path):
            QMessageBox.warning(dialog.parentWidget(), "Paraphrase Studio",
                                f"{path} is a study database this app has open (or its log): only the study's "
                                "own screens may use it. Choose another file.")
            return "", ""
        return path, name_filter
    finally:
        dialog.deleteLater()


def _is_held_study(path: str) -> bool:
    try:
        chosen = os.stat(path)
    except OSError:  # a new file to write
        return False
    return (chosen.st_dev, chosen.st_ino) in held_study_files()


def get_open_file_name(parent: QWidget | None = None, caption: str = "", directory: str = "",
                       filter: str = "", *, study: bool = False) -> tuple[str, str]:  # noqa: A002 (Qt's name)
    """An existing file to read, as ``QFileDialog.getOpenFileName``: ``(path, chosen filter)``, ``("", "")`` if
    cancelled or refused; ``study``: the file is opened as a study (module docstring)."""
    dialog = _dialog(parent, caption, directory, filter)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    return _run(dialog, study)


def get_save_file_name(parent: QWidget | None = None, caption: str = "", directory: str = "",
                       filter: str = "") -> tuple[str, str]:  # noqa: A002 (Qt's name)
    """A file to write, as ``QFileDialog.getSaveFileName`` (asks before replacing one): ``(path, chosen
    filter)``, ``("", "")`` if cancelled or refused."""
    dialog = _dialog(parent, caption, directory, filter)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    return _run(dialog, study=False)
