"""Simulated annotators judging one study at once, through the store's public operations (issue 18).

Used by ``tests/test_store_under_load.py`` and ``benchmarks/bench_store_concurrency.py``.

:func:`make_study` creates a study, imports candidates and assigns every item
to two judges (with repeats: an item served twice to the same judge by
design). Each :func:`judge` is one annotator, in its own thread or process,
with its own database connection: it takes its judging session
(:mod:`core.store.session_lock`), asks an
:class:`~core.store.annotation_session.AnnotationSession` what to show,
answers with :func:`~core.store.annotation.record_judgment`, sometimes undoes
(:func:`~core.store.annotation.undo_last`, the item then served again by
design), keeps its heartbeat, and logs what it did. Meanwhile
:func:`add_candidates` imports and assigns a second batch. :func:`audit`
then compares the logs with the database.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from sqlalchemy import func, select

from parastudio.core.store import operations as ops
from parastudio.core.store import session_lock
from parastudio.core.store.annotation_session import AnnotationSession
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Assignment, Judgment

JUDGES_PER_ITEM = 2
REPEAT_FRACTION = 0.05
UNDO_SHARE = 0.05


@dataclass
class AnnotatorLog:
    name: str
    annotator_id: int = 0
    answers: list[tuple[int, int, str]] = field(default_factory=list)  # (assignment, judgment id, value)
    undone: dict[int, int | None] = field(default_factory=dict)  # judgment id undone at once -> assignment reopened
    served: list[int] = field(default_factory=list)  # assignments shown, in order
    latencies: list[float] = field(default_factory=list)  # seconds per record_judgment
    heartbeats_lost: int = 0


def annotator_names(count: int) -> list[str]:
    return [f"annotator-{i:02d}" for i in range(count)]


def _rows(first_sentence: int, sentences: int) -> list[ops.CandidateRow]:
    return [ops.CandidateRow(sentence_id=str(s), system=f"system-{k}", text=f"paraphrase {k} of sentence {s}",
                             source=f"source sentence {s}") for s in range(first_sentence, first_sentence + sentences)
            for k in range(2)]


def make_study(url: str, annotators: int, sentences: int) -> int:
    with open_database(url, create=True) as db:
        study = ops.create_study(db, "load", criteria=["fluency"], judges_per_item=JUDGES_PER_ITEM, seed=18)
        ops.import_candidates(db, study, _rows(0, sentences))
        ops.assign(db, study, annotator_names(annotators), repeat_fraction=REPEAT_FRACTION)
    return study


def add_candidates(url: str, study: int, annotators: int, first_sentence: int, sentences: int) -> None:
    """A second batch imported and assigned while the annotators judge."""
    with open_database(url) as db:
        ops.import_candidates(db, study, _rows(first_sentence, sentences))
        ops.assign(db, study, annotator_names(annotators), repeat_fraction=REPEAT_FRACTION)


def judge(url: str, study: int, name: str, seconds: float, seed: int, start=None) -> AnnotatorLog:
    """One annotator judging for ``seconds`` (or until nothing is left); ``start`` is awaited first."""
    log = AnnotatorLog(name)
    rng = random.Random(seed)
    with open_database(url) as db:
        log.annotator_id = ops.find_annotator(db, study, name)
        lock = session_lock.acquire(db, study, log.annotator_id)
        session = AnnotationSession(db, log.annotator_id)
        if start is not None:
            start.wait()
        deadline = time.monotonic() + seconds
        item = session.first()
        while time.monotonic() < deadline:
            if item is None:  # all judged: wait for the next batch, or the end
                time.sleep(0.02)
                item = session.next_open_after(-1)
                continue
            log.served.append(item.assignment_id)
            value = rng.choice(("yes", "no"))
            started = time.perf_counter()
            judgment = ops.record_judgment(db, item.assignment_id, value, duration_ms=rng.randint(500, 4000),
                                           origin="load-test")
            log.latencies.append(time.perf_counter() - started)
            log.answers.append((item.assignment_id, judgment, value))
            if rng.random() < UNDO_SHARE:
                session.undo_queued()
                reopened = ops.undo_last(db, log.annotator_id)  # withdraws the answer just given
                log.undone[judgment] = reopened
                item = session.undone(reopened)
            else:
                item = session.answered(item, value)
            if len(log.answers) % 25 == 0 and not session_lock.heartbeat(db, lock):
                log.heartbeats_lost += 1
        session_lock.release(db, lock)
    return log


def audit(url: str, study: int, logs: list[AnnotatorLog]) -> dict:
    """What the database holds against what the annotators did; every list in the result should be empty."""
    with open_database(url) as db, db.reading() as session:
        judgments = {row.id: row for row in session.execute(
            select(Judgment.id, Judgment.uid, Judgment.assignment_id, Judgment.annotator_id, Judgment.value,
                   Judgment.action, Judgment.superseded_by).where(Judgment.study_id == study))}
        assignments = {row.id: row for row in session.execute(
            select(Assignment.id, Assignment.annotator_id, Assignment.candidate_id, Assignment.criterion_id,
                   Assignment.kind, Assignment.live_judgment_id).where(Assignment.study_id == study))}
        undo_rows = session.scalar(select(func.count()).select_from(Judgment).where(
            Judgment.study_id == study, Judgment.action == "undo"))
    problems: dict[str, list] = defaultdict(list)
    recorded = [entry for log in logs for entry in log.answers]
    answers_in_db = [j for j in judgments.values() if j.action == "answer"]
    if len(answers_in_db) != len(recorded):
        problems["answer rows"].append(f"{len(answers_in_db)} in the database, {len(recorded)} recorded")
    if len({j.uid for j in judgments.values()}) != len(judgments):
        problems["duplicated uid"].append("two judgment rows share a uid")
    if undo_rows != sum(len(log.undone) for log in logs):
        problems["undo rows"].append(f"{undo_rows} in the database, {sum(len(log.undone) for log in logs)} done")
    for log in logs:
        live: dict[int, int | None] = {}  # assignment -> its live answer, replayed from the log
        for assignment, judgment, value in log.answers:
            row = judgments.get(judgment)
            if row is None or (row.assignment_id, row.annotator_id, row.value) != (assignment, log.annotator_id,
                                                                                  value):
                problems["lost or altered"].append((log.name, assignment, judgment))
            if assignments[assignment].annotator_id != log.annotator_id:
                problems["served another's assignment"].append((log.name, assignment))
            live[assignment] = judgment
            if judgment in log.undone:
                if log.undone[judgment] != assignment:
                    problems["undo reopened another item"].append((log.name, assignment, log.undone[judgment]))
                live[assignment] = None
        for assignment, judgment in live.items():
            if assignments[assignment].live_judgment_id != judgment:
                problems["live answer"].append((log.name, assignment, judgment,
                                                assignments[assignment].live_judgment_id))
        reopened = Counter(log.undone.values())
        for assignment, times in Counter(log.served).items():
            if times > 1 + reopened[assignment]:
                problems["served twice"].append((log.name, assignment, times))
    judges = defaultdict(set)
    for row in assignments.values():
        if row.kind == "normal":
            judges[(row.candidate_id, row.criterion_id)].add(row.annotator_id)
    problems["more judges than the design"] = [key for key, who in judges.items() if len(who) > JUDGES_PER_ITEM]
    return {name: entries for name, entries in problems.items() if entries}

