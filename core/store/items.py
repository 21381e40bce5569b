"""Items of a study: the public id of each (what CSV files name), and a listing with their text.

A candidate's id is its number; a choice task's is ``choice-N``; unit replacement ``u`` of candidate ``N``
(a replacement criterion, seed 004 §3.6) is item ``N.u`` (each replacement is its own item for agreement). The listing
lets a person writing an ``import-judgments`` CSV find item ids without SQL. A preference pair (issue 30) is
``pair-N``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from sqlalchemy import select

from parastudio.core.store.models import Candidate, CandidateSystem, ChoiceTask, PreferencePair, SourceSentence, System
from parastudio.core.store.sentence_ids import sentence_id

if TYPE_CHECKING:  # the opening of a study checks its items (study_check), so no run-time import back
    from parastudio.core.store.database import Database


def item_key(candidate_id: int | None, choice_task_id: int | None = None, unit: int | None = None,
             pair_id: int | None = None) -> str:
    """The public id of an item: the candidate id (``N.u`` for its unit replacement ``u``), ``choice-N``, or
    ``pair-N`` (a preference pair)."""
    if candidate_id is None:
        return f"pair-{pair_id}" if pair_id is not None else f"choice-{choice_task_id}"
    return str(candidate_id) if unit is None else f"{candidate_id}.{unit}"


def parse_item_key(key: str) -> tuple[int | None, int | None]:
    """``(candidate id, choice task id)`` of a public id; ValueError when it is neither."""
    candidate_id, task_id, _unit = parse_unit_item_key(key)
    return candidate_id, task_id


def parse_pair_key(key: str) -> int | None:
    """The pair id of ``pair-N``; None for any other kind of id; ValueError for ``pair-`` with no number."""
    key = key.strip()
    if not key.startswith("pair-"):
        return None
    number = key[5:]
    if not (number.isascii() and number.isdigit() and len(number) <= 18):
        raise ValueError(key)
    return int(number)


def parse_unit_item_key(key: str) -> tuple[int | None, int | None, int | None]:
    """``(candidate id, choice task id, unit)`` of a public id; ValueError when it is none of them."""
    key = key.strip()
    number, dot, unit = key[7:].partition(".") if key.startswith("choice-") else key.partition(".")

    def ascii_id(text: str) -> bool:
        # ASCII digits only ("١" is a digit to str.isdigit), and an id a database integer can hold.
        return text.isascii() and text.isdigit() and len(text) <= 18

    if not ascii_id(number) or (dot and (key.startswith("choice-") or not ascii_id(unit))):
        raise ValueError(key)
    if key.startswith("choice-"):
        return None, int(number), None
    return int(number), None, int(unit) if dot else None


def replacement_units(derivation) -> list[dict]:
    """The unit replacements of a stored derivation, left to right: its segments that rewrite something
    (not identity, target differs from source). Unit ``u`` of a candidate is the ``u``-th of them."""
    if not isinstance(derivation, list):
        return []
    return [s for s in derivation if isinstance(s, dict) and "src" in s and not s.get("identity")
            and s.get("source") != s.get("target")]


def systems_by_candidate(session, study_id: int) -> dict[int, list[str]]:
    """Every system that produced each candidate, by name."""
    systems: dict[int, list[str]] = defaultdict(list)
    for candidate_id, name in session.execute(
            select(CandidateSystem.candidate_id, System.name).join(System)
            .where(System.study_id == study_id).order_by(System.name)):
        systems[candidate_id].append(name)
    return systems


def list_items(db: Database, study_id: int) -> list[dict]:
    """``{"item", "kind", "sentence_id", "source_key", "source", "text", "systems"}`` per item
    (:mod:`core.store.sentence_ids`): candidates (planted controls marked by their kind), then choice tasks
    (``text`` the highlighted span, ``systems`` the approach), then preference pairs shown to judges (``text``
    the two candidates, left ``|||`` right, ``systems`` left, right)."""
    rows = []
    with db.reading() as session:
        systems = systems_by_candidate(session, study_id)
        for candidate, sentence, source in session.execute(
                select(Candidate, SourceSentence.external_id, SourceSentence.text).join(SourceSentence)
                .where(Candidate.study_id == study_id).order_by(Candidate.id)):
            rows.append({"item": item_key(candidate.id), "kind": candidate.kind, "sentence_id": sentence_id(sentence),
                         "source_key": sentence, "source": source, "text": candidate.text,
                         "systems": systems.get(candidate.id, [])})
        for task, sentence, source in session.execute(
                select(ChoiceTask, SourceSentence.external_id, SourceSentence.text).join(SourceSentence)
                .where(ChoiceTask.study_id == study_id).order_by(ChoiceTask.id)):
            span = " ".join(source.split()[task.span_start:task.span_end])
            rows.append({"item": item_key(None, task.id), "kind": "choice", "sentence_id": sentence_id(sentence),
                         "source_key": sentence, "source": source,
                         "text": span, "systems": [task.system] if task.system else []})
        texts = dict(session.execute(select(Candidate.id, Candidate.text).where(Candidate.study_id == study_id)).all())
        for pair, sentence, source in session.execute(
                select(PreferencePair, SourceSentence.external_id, SourceSentence.text).join(SourceSentence)
                .where(PreferencePair.study_id == study_id, PreferencePair.identical.is_(False))
                .order_by(PreferencePair.id)):
            text = f"{texts[pair.left_candidate_id]} ||| {texts[pair.right_candidate_id]}"
            rows.append({"item": item_key(None, None, None, pair.id), "kind": "preference",
                         "sentence_id": sentence_id(sentence), "source_key": sentence, "source": source, "text": text, "systems": [pair.left_system, pair.right_system]})
    return rows
