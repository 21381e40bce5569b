"""Items of a study: the public id of each (what CSV files name), and a listing with their text.

A candidate's id is its number; a choice task's is ``choice-N``. The listing
lets a person writing an ``import-judgments`` CSV find item ids without SQL.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select

from core.store.database import Database
from core.store.models import Candidate, CandidateSystem, ChoiceTask, SourceSentence, System


def item_key(candidate_id: int | None, choice_task_id: int | None = None) -> str:
    """The public id of an item: the candidate id, or ``choice-N`` for a choice task."""
    return str(candidate_id) if candidate_id is not None else f"choice-{choice_task_id}"


def parse_item_key(key: str) -> tuple[int | None, int | None]:
    """``(candidate id, choice task id)`` of a public id; ValueError when it is neither."""
    key = key.strip()
    number = key[7:] if key.startswith("choice-") else key
    # ASCII digits only ("١" is a digit to str.isdigit), and an id a database integer can hold.
    if not (number.isascii() and number.isdigit() and len(number) <= 18):
        raise ValueError(key)
    return (None, int(number)) if key.startswith("choice-") else (int(number), None)


def systems_by_candidate(session, study_id: int) -> dict[int, list[str]]:
    """Every system that produced each candidate, by name."""
    systems: dict[int, list[str]] = defaultdict(list)
    for candidate_id, name in session.execute(
            select(CandidateSystem.candidate_id, System.name).join(System)
            .where(System.study_id == study_id).order_by(System.name)):
        systems[candidate_id].append(name)
    return systems


def list_items(db: Database, study_id: int) -> list[dict]:
    """``{"item", "kind", "sentence", "source", "text", "systems"}`` per item: candidates (planted controls
    marked by their kind), then choice tasks (``text`` the highlighted span, ``systems`` the approach)."""
    rows = []
    with db.reading() as session:
        systems = systems_by_candidate(session, study_id)
        for candidate, sentence, source in session.execute(
                select(Candidate, SourceSentence.external_id, SourceSentence.text).join(SourceSentence)
                .where(Candidate.study_id == study_id).order_by(Candidate.id)):
            rows.append({"item": item_key(candidate.id), "kind": candidate.kind, "sentence": sentence,
                         "source": source, "text": candidate.text, "systems": systems.get(candidate.id, [])})
        for task, sentence, source in session.execute(
                select(ChoiceTask, SourceSentence.external_id, SourceSentence.text).join(SourceSentence)
                .where(ChoiceTask.study_id == study_id).order_by(ChoiceTask.id)):
            span = " ".join(source.split()[task.span_start:task.span_end])
            rows.append({"item": item_key(None, task.id), "kind": "choice", "sentence": sentence, "source": source,
                         "text": span, "systems": [task.system] if task.system else []})
    return rows
