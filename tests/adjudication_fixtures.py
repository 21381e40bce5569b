"""Real SQLite studies whose two judges disagree on every item, for the adjudication tests (issue 39)."""

from __future__ import annotations

from pathlib import Path

from desktop_study_fixtures import candidate_rows

from parastudio.core.store import operations as ops
from parastudio.core.store.adjudicator_role import set_adjudicators
from parastudio.core.store.database import open_database

# What each judge answers on each scale: the two always differ.
ANSWERS = {
    "ann": {"binary": "yes", "3-point": "3", "5-point": "5", "preference": "left", "da": "80", "esa": "80",
            "choice": "option:1"},
    "bob": {"binary": "no", "3-point": "1", "5-point": "1", "preference": "right", "da": "20", "esa": "20",
            "choice": "original"},
}
CHOICE_TASKS = [
    {"id": "t1", "sentence": "he became the first state to impose such a requirement", "span": [1, 4],
     "options": ["was the first state", "became the first country", "was first"]},
    {"id": "t2", "sentence": "the dog runs after the young cat", "span": [4, 7], "options": ["the kitten", "the cat"]},
]


def disagreeing_study(path: Path, criteria, *, adjudicator: str | None = "carol") -> int:
    """A study of ``criteria`` judged in full by ann and bob, who never agree; ``adjudicator`` named."""
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "s", criteria=list(criteria), seed=4)
        if "choice" in criteria:
            ops.add_choice_tasks(db, study, CHOICE_TASKS)
        else:
            ops.import_candidates(db, study, candidate_rows())
        ops.assign(db, study, ["ann", "bob"])
        for name, answers in ANSWERS.items():
            annotator = ops.find_annotator(db, study, name)
            while (item := ops.next_item(db, annotator)) is not None:
                ops.record_judgment(db, item.assignment_id, answers[item.scale],
                                    text="[]" if item.scale == "esa" else None)
        if adjudicator:
            set_adjudicators(db, study, [adjudicator])
    return study
