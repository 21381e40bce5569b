"""Every item of a study with its public id and text, so a person writing an import CSV never needs SQL."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select

from core.store.database import Database
from core.store.models import Candidate, CandidateSystem, ChoiceTask, SourceSentence, System


def item_id(candidate_id: int | None, choice_task_id: int | None = None) -> str:
    """The public id of an item (what ``import-judgments`` reads in its ``item`` column)."""
    return str(candidate_id) if candidate_id is not None else f"choice-{choice_task_id}"


def list_items(db: Database, study_id: int) -> list[dict]:
    """``{"item", "kind", "sentence", "source", "text", "systems"}`` per item: candidates (planted controls
    marked by their kind), then choice tasks (``text`` the highlighted span, ``systems`` the approach)."""
    rows = []
    with db.reading() as session:
        systems: dict[int, list[str]] = defaultdict(list)
        for candidate_id, name in session.execute(
                select(CandidateSystem.candidate_id, System.name).join(System)
                .where(System.study_id == study_id).order_by(System.name)):
            systems[candidate_id].append(name)
        for candidate, sentence, source in session.execute(
                select(Candidate, SourceSentence.external_id, SourceSentence.text).join(SourceSentence)
                .where(Candidate.study_id == study_id).order_by(Candidate.id)):
            rows.append({"item": item_id(candidate.id), "kind": candidate.kind, "sentence": sentence,
                         "source": source, "text": candidate.text, "systems": systems.get(candidate.id, [])})
        for task, sentence, source in session.execute(
                select(ChoiceTask, SourceSentence.external_id, SourceSentence.text).join(SourceSentence)
                .where(ChoiceTask.study_id == study_id).order_by(ChoiceTask.id)):
            span = " ".join(source.split()[task.span_start:task.span_end])
            rows.append({"item": item_id(None, task.id), "kind": "choice", "sentence": sentence, "source": source,
                         "text": span, "systems": [task.system] if task.system else []})
    return rows
