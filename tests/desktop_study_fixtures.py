"""Small real studies for the desktop tests (SQLite files, no mocks)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database

SOURCES = [
    "the dog runs after the young cat",
    "a small house stands near the old garden",
    "the old man walks slowly to the house",
    "she finds a big cat in the garden",
    "they see the young dog near the house",
    "the cat sleeps before the big dog comes",
]
REWRITES = [
    ("the dog", "the beast"), ("young cat", "kitten"), ("small", "little"), ("old", "ancient"),
    ("walks slowly", "strolls"), ("big", "large"), ("see", "notice"), ("sleeps", "naps"),
]


def candidate_rows() -> list[ops.CandidateRow]:
    """Two systems per sentence; one string made by both (judged once, credited to each)."""
    rows = []
    for index, source in enumerate(SOURCES):
        for system, shift in (("beam", 0), ("mcpg-true", 1)):
            old, new = REWRITES[(index + shift) % len(REWRITES)]
            text = source.replace(old, new, 1) if old in source else source.replace("the", "this", 1)
            rows.append(ops.CandidateRow(sentence_id=str(index), text=text, system=system, source=source,
                                         rank=0, line=len(rows) + 1))
        rows.append(ops.CandidateRow(sentence_id=str(index), text=source.replace("the", "a", 1), system="beam",
                                     source=source, rank=1, line=len(rows) + 1))
        rows.append(ops.CandidateRow(sentence_id=str(index), text=source.replace("the", "a", 1),
                                     system="mcpg-true", source=source, rank=1, line=len(rows) + 1))
    return rows


def make_study(path: Path, *, annotators=("ann", "bob"), repeats: float = 0.0, controls: float = 0.0,
               criteria=("fluency", "meaning", "usability")) -> int:
    db = open_database(path, create=True)
    try:
        study = ops.create_study(db, "toy", criteria=criteria, seed=3)
        ops.import_candidates(db, study, candidate_rows())
        ops.assign(db, study, list(annotators), repeat_fraction=repeats, control_fraction=controls)
        return study
    finally:
        db.close()


def make_choice_study(path: Path, annotators=("ann",)) -> int:
    db = open_database(path, create=True)
    try:
        study = ops.create_study(db, "choice", criteria=("choice",), seed=5)
        ops.add_choice_tasks(db, study, [
            {"id": "t1", "sentence": "he became the first state to impose such a requirement", "span": [1, 4],
             "options": ["was the first state", "became the first country", "was first"]},
            {"id": "t2", "sentence": "the dog runs after the young cat", "span": [4, 7],
             "options": ["the kitten", "the small cat", "a young cat", "the cat", "it"]},
            {"id": "t3", "sentence": "a small house stands near the old garden", "span": [1, 2],
             "options": ["little"]},
        ])
        ops.assign(db, study, list(annotators))
        return study
    finally:
        db.close()


def open_window(qtbot, path, annotator: str = "ann", **options):
    """The app's main window on the study database ``path`` as ``annotator`` (no engine files), shown, with the
    instructions a judge meets first closed; ``options`` go to the window (a role, a member's database)."""
    from parastudio.desktop.main_window import MainWindow

    window = MainWindow(path, annotator=annotator, table="none.gz", lm="none.bin", **options)
    qtbot.addWidget(window)
    window.show()
    # The judging screens open their study off the UI thread; the instructions open once it is open.
    qtbot.waitUntil(lambda: not (window.annotate.screen.loading or window.choice.screen.loading), timeout=120_000)
    qtbot.wait(100)
    dialog = getattr(window, "instructions_dialog", None)
    if dialog is not None and dialog.isVisible():
        dialog.accept()
    return window



@contextmanager
def judging_screen(qtbot, path: Path, criteria, *, rows=None, annotators=("ann",), name: str | None = None,
                   seed: int = 4):
    """The app's annotation screen at the small size, open as "ann" on a new study of ``criteria`` (one name or
    several) made of ``rows`` (default :func:`candidate_rows`); yields (screen, database) and closes both. The
    screen's ``writer`` is the one recording its answers."""
    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.judgment_writer import JudgmentWriter

    criteria = [criteria] if isinstance(criteria, str) else list(criteria)
    name = name or criteria[0]
    db = open_database(path, create=True)
    study_id = ops.create_study(db, name, criteria=criteria, seed=seed)
    ops.import_candidates(db, study_id, candidate_rows() if rows is None else rows)
    ops.assign(db, study_id, list(annotators))
    writer = JudgmentWriter(db)
    screen = AnnotationScreen(db, writer)
    qtbot.addWidget(screen)
    screen.resize(1024, 600)  # the small screen
    screen.show()
    with qtbot.waitSignal(screen.open_done, timeout=120_000):
        screen.open(study_id, "ann", name)
    try:
        yield screen, db
    finally:
        screen.close_session()
        screen.progress.stop()
        writer.close()
        db.close()
