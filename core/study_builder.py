"""Making a study from the engine, from a candidates file or from choice tasks: the one path every study
is built by (the Studies screen runs it in a worker, the demo study is built through it). A bridge: plain
functions over the engine and the store, no Qt.

``report`` is a :class:`core.progress.Progress` (the worker's, in percent); it raises
:class:`core.progress.Cancelled` when the user cancels, which stops generation at the next sentence. Nothing
is written to the database before the candidates are all there, so a
cancelled build leaves no half study behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from core.progress import Progress, no_progress, scaled
from core.store import operations as ops
from core.store.database import Database



@dataclass
class StudyPlan:
    name: str
    annotators: list[str]
    criteria: list[str] = field(default_factory=lambda: list(ops.DEFAULT_CRITERIA))
    application: str = "simplification"
    judges_per_item: int = 2
    repeat_fraction: float = 0.05
    control_fraction: float = 0.05
    seed: int = 0
    settings: dict = field(default_factory=dict)


@dataclass
class EngineChoice:
    test_set: str
    systems: list[str]
    tables: list[str]
    lm: str
    nbest: int = 2
    max_sentences: int = 100
    time_budget: float | None = 0.5


def candidate_row(candidate, line: int) -> ops.CandidateRow:
    """The store's row for a :class:`core.engine.candidate.Candidate` (``line``: its 1-based place in the batch)."""
    return ops.CandidateRow(sentence_id=str(candidate.sentence_id), text=candidate.text, system=candidate.system,
                            rank=candidate.rank, model_score=candidate.model_score, true_score=candidate.true_score,
                            derivation=[s.to_json() for s in candidate.derivation], params=candidate.params,
                            line=line)


def make_study(db: Database, plan: StudyPlan, rows: list[ops.CandidateRow], origin: str, sources: dict | None,
               references: dict | None, test_set: str | None, report: Progress = no_progress,
               displays: dict | None = None) -> int:
    """Create the study of ``plan``, import ``rows`` and assign them; returns the study id."""
    report(92, 100, "writing the study")
    study = ops.create_study(db, plan.name, criteria=plan.criteria, judges_per_item=plan.judges_per_item,
                             application=plan.application, seed=plan.seed,
                             settings={"origin": origin, **plan.settings})
    ops.import_candidates(db, study, rows, path=origin, sources=sources, references=references, test_set=test_set,
                          displays=displays)
    report(97, 100, "assigning items to annotators")
    ops.assign(db, study, plan.annotators, repeat_fraction=plan.repeat_fraction,
               control_fraction=plan.control_fraction)
    report(100, 100, "done")
    return study


def make_choice_study(db: Database, plan: StudyPlan, tasks: list[dict], origin: str) -> int:
    """A choice-task study (seed 001 §4.2): each task a sentence, a span and the options offered for it."""
    study = ops.create_study(db, plan.name, criteria=plan.criteria, judges_per_item=plan.judges_per_item,
                             seed=plan.seed, settings={"origin": origin, **plan.settings})
    ops.add_choice_tasks(db, study, tasks, path=origin)
    ops.assign(db, study, plan.annotators, repeat_fraction=plan.repeat_fraction,
               control_fraction=plan.control_fraction)
    return study


def study_from_engine(report: Progress, db: Database, plan: StudyPlan, engine: EngineChoice) -> int:
    """Generate candidates with each chosen system and make a study of them; returns the study id."""
    from core.engine.generation import generate
    from core.engine.lm import LanguageModel
    from core.engine.paraphrase_table import ParaphraseTable

    if not engine.systems:
        raise ValueError("choose at least one system")
    lines = Path(engine.test_set).read_text(encoding="utf-8").splitlines()[: engine.max_sentences]
    sentences = [line.split() for line in lines]
    tables = []
    for number, path in enumerate(engine.tables, 1):
        report(2 + 8 * number // max(1, len(engine.tables)), 100, f"loading table {Path(path).name}")
        tables.append(ParaphraseTable.load(path))
    report(12, 100, f"loading language model {Path(engine.lm).name}")
    lm = LanguageModel(engine.lm)
    rows: list[ops.CandidateRow] = []
    span = 78 / len(engine.systems)
    for index, system in enumerate(engine.systems):
        base = 12 + span * index

        progress = scaled(report, int(base), int(base + span))

        report(int(base), 100, f"{system}: starting")
        # One process: forking a process that runs Qt threads is not safe.
        for candidate in generate(system, sentences, tables, lm, nbest=engine.nbest, processes=1,
                                  time_budget=engine.time_budget, progress=progress):
            rows.append(candidate_row(candidate, len(rows) + 1))
    sources = {str(i): line for i, line in enumerate(lines)}
    origin = f"engine: {', '.join(engine.systems)} on {engine.test_set}"
    return make_study(db, plan, rows, origin, sources, None, engine.test_set, report)


def study_from_file(report: Progress, db: Database, plan: StudyPlan, path: str,
                    sources_path: str | None = None) -> int:
    """A study of the candidates in a JSONL (``parastudio generate --json``), CSV or TSV file."""
    report(5, 100, f"reading {Path(path).name}")
    rows = list(ops.read_candidates(path))
    sources = ops.read_sources(sources_path) if sources_path else None
    return make_study(db, plan, rows, str(path), sources, None, Path(sources_path).name if sources_path else None,
                   report)


def parse_names(text: str) -> list[str]:
    return [name.strip() for name in text.replace(";", ",").split(",") if name.strip()]


def default_study_name(existing: Sequence[str], stem: str) -> str:
    name, number = stem, 2
    while name in existing:
        name, number = f"{stem} ({number})", number + 1
    return name
