"""Making a study from the engine, from a candidates file or from choice tasks: the one path every study
is built by (the Studies screen runs it in a worker, the demo study is built through it). A bridge: plain
functions over the engine and the store, no Qt.

``report`` is a :class:`core.progress.Progress` (the worker's, in percent); it raises
:class:`core.progress.Cancelled` when the user cancels, which stops generation at the next sentence. Nothing
is written to the database before the candidates are all there, so a
cancelled build leaves no half study behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Sequence

from parastudio.core.engine.candidates.generation_options import DEFAULT_TIME_CAP
from parastudio.core.person_names import distinct_names
from parastudio.core.progress import Progress, no_progress, scaled
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.tablebuild.patterns.scoring import PAPER_LAMBDAS, PAPER_MLE_THRESHOLD, PAPER_THRESHOLD
from parastudio.core.textio import read_lines


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


def plan_annotators(plan: StudyPlan) -> list[str]:
    """The plan's annotators as the study will store them; BadNameError when two are one name or one cannot be a
    name, said before any candidate is generated or any row written (no half study left behind)."""
    return distinct_names(plan.annotators, "annotator name")


@dataclass
class EngineChoice:
    test_set: str
    systems: list[str]
    tables: list[str]
    lm: str
    nbest: int = 2
    max_sentences: int = 100
    time_budget: float | None = DEFAULT_TIME_CAP  # MCPG only, a cap (its search runs by count)


def candidate_row(candidate, line: int) -> ops.CandidateRow:
    """The store's row for a :class:`core.engine.candidates.candidate.Candidate` (``line``: its 1-based place in the batch)."""
    return ops.CandidateRow(sentence_id=str(candidate.sentence_id), text=candidate.text, system=candidate.system,
                            rank=candidate.rank, model_score=candidate.model_score, true_score=candidate.true_score,
                            derivation=[s.to_json() for s in candidate.derivation], params=candidate.params,
                            line=line)


def make_study(db: Database, plan: StudyPlan, rows: list[ops.CandidateRow], origin: str, sources: dict | None,
               references: dict | None, test_set: str | None, report: Progress = no_progress,
               displays: dict | None = None) -> int:
    """Create the study of ``plan``, import ``rows`` and assign them; returns the study id."""
    annotators = plan_annotators(plan)
    report(92, 100, "writing the study")
    study = _study_with_candidates(db, plan, rows, origin, sources, references, test_set, displays)
    report(97, 100, "assigning items to annotators")
    ops.assign(db, study, annotators, repeat_fraction=plan.repeat_fraction,
               control_fraction=plan.control_fraction)
    report(100, 100, "done")
    return study


def _study_with_candidates(db: Database, plan: StudyPlan, rows: list[ops.CandidateRow], origin: str,
                           sources: dict | None, references: dict | None, test_set: str | None,
                           displays: dict | None = None) -> int:
    """The study of ``plan`` created and ``rows`` imported into it, nothing assigned yet; returns its id."""
    study = ops.create_study(db, plan.name, criteria=plan.criteria, judges_per_item=plan.judges_per_item,
                             application=plan.application, seed=plan.seed,
                             settings={"origin": origin, **plan.settings})
    ops.import_candidates(db, study, rows, path=origin, sources=sources, references=references, test_set=test_set,
                          displays=displays)
    return study


def study_from_mqm(report: Progress, db: Database, name: str, path: str,
                   ratings=None) -> tuple[int, ops.MergeReport]:
    """A study of Google's MQM ratings of WMT (:mod:`core.store.mqm_ratings`; Freitag et al. 2021): the segments'
    sources, each system's output as a candidate (the ``ref`` system's also as the reference translation), each
    rater as an annotator, and each rating as that rater's ``mqm`` judgment of that system's output (its errors on
    the words they cover), judged as that system's alone (a string two systems wrote was rated once per system,
    each in its own document). ``ratings``: the file as :func:`core.store.mqm_ratings.read_mqm_ratings` read it,
    when the caller checked it before opening the database. Returns the study id and how its judgments were
    brought in."""
    import json
    import unicodedata

    from parastudio.core.file_fingerprint import sha256_of
    from parastudio.core.store.mqm_ratings import REFERENCE_SYSTEM, read_mqm_ratings

    report(2, 100, f"reading {Path(path).name}")
    ratings = ratings if ratings is not None else read_mqm_ratings(path)
    raters = list(dict.fromkeys(rating.rater for rating in ratings.ratings))
    plan = StudyPlan(name, raters, criteria=["mqm"], judges_per_item=1, repeat_fraction=0.0, control_fraction=0.0,
                     settings={"kind": "mqm-ratings", "task": "translation", "reference_system": REFERENCE_SYSTEM,
                               "display": "tokenized",
                               "mqm_file": {"name": Path(path).name, "sha256": sha256_of(path)}})
    plan_annotators(plan)
    report(30, 100, "writing the sources and candidates")
    study = _study_with_candidates(db, plan, ratings.candidates, str(path), ratings.sources, ratings.references,
                                   Path(path).name)
    items = {(row["source_key"], unicodedata.normalize("NFC", row["text"])): row["item"]
             for row in ops.list_items(db, study) if row["kind"] == "candidate"}
    report(60, 100, "writing the ratings")
    rows = ((rating.line, {"item": items[(rating.segment, unicodedata.normalize("NFC", rating.text))],
                           "annotator": rating.rater, "criterion": "mqm", "value": "",
                           "text": json.dumps(rating.errors), "output_of": rating.system})
            for rating in ratings.ratings)
    brought = ops.import_judgment_rows(db, study, str(path), rows)
    report(100, 100, "done")
    return study, brought


def make_choice_study(db: Database, plan: StudyPlan, tasks: list[dict], origin: str) -> int:
    """A choice-task study (seed 001 §4.2): each task a sentence, a span and the options offered for it."""
    annotators = plan_annotators(plan)
    study = ops.create_study(db, plan.name, criteria=plan.criteria, judges_per_item=plan.judges_per_item,
                             seed=plan.seed, settings={"origin": origin, **plan.settings})
    ops.add_choice_tasks(db, study, tasks, path=origin)
    ops.assign(db, study, annotators, repeat_fraction=plan.repeat_fraction,
               control_fraction=plan.control_fraction)
    return study


def study_from_engine(report: Progress, db: Database, plan: StudyPlan, engine: EngineChoice) -> int:
    """Generate candidates with each chosen system and make a study of them; returns the study id."""
    from parastudio.core.engine.candidates.generation import generate
    from parastudio.core.engine.candidates.generation_options import options_for
    from parastudio.core.engine.candidates.generation_resources import GenerationResources
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

    if not engine.systems:
        raise ValueError("choose at least one system")
    plan_annotators(plan)
    lines = [text for _number, text in islice(read_lines(engine.test_set), engine.max_sentences)]
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
        options = options_for(system, nbest=engine.nbest,
                              **({"time_budget": engine.time_budget} if system.startswith("mcpg") else {}))
        for candidate in generate(options, sentences, GenerationResources(tables, lm), processes=1,
                                  progress=progress):
            rows.append(candidate_row(candidate, len(rows) + 1))
    sources = {str(i): line for i, line in enumerate(lines)}
    origin = f"engine: {', '.join(engine.systems)} on {engine.test_set}"
    return make_study(db, plan, rows, origin, sources, None, engine.test_set, report)


def study_from_file(report: Progress, db: Database, plan: StudyPlan, path: str,
                    sources_path: str | None = None) -> int:
    """A study of the candidates in a JSONL (``parastudio generate --json``), CSV or TSV file."""
    plan_annotators(plan)
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


# ---------------------------------------------------------------------------
# Pattern pairs (seed 002 §3.4, §4.1, §4.4)

_TYPE_DESCRIPTIONS = {
    "trivial": "Changes of prepositions, articles and the like: 'all the members of [NNPS_1]' / 'all members of [NNPS_1]'.",
    "replacement": "A phrase replaced: '[JJ_1] economic losses' / '[JJ_1] financial losses'.",
    "reordering": "Phrases reordered: '[NN_1] definition' / 'the definition of [NN_1]'.",
    "structural": "Both replaced and reordered: 'the admission of [NNP_1] to the wto' / 'the [NNP_1] 's wto accession'.",
    "information": "Information added or dropped without changing the meaning: '[NNS_1] are in fact women' / "
                   "'[NNS_1] are women'.",
}


def pattern_criteria() -> list[ops.CriterionSpec]:
    """Correct or not (seed 002 §3.4's definition), then the type of a pair (§4.4, Table 3): both show e1."""
    from parastudio.core.vocabulary import NO, PATTERN_CORRECT, PATTERN_TYPE, PATTERN_TYPES, YES

    correct = ops.CriterionSpec(
        PATTERN_CORRECT, "Can the two patterns generate paraphrase fragments by filling the corresponding slots "
        "([NN_1], [VB_1], ...) with identical words?", "binary",
        ({"value": NO, "label": "No", "description": "Filled with the same words, they would not mean the same."},
         {"value": YES, "label": "Yes", "description": "Filled with the same words, they are paraphrases."}), True)
    kind = ops.CriterionSpec(
        PATTERN_TYPE, "Which kind of paraphrase pattern is this? (for a pair you judged incorrect, the kind it "
        "attempts)", "custom",
        tuple({"value": value, "label": label, "description": _TYPE_DESCRIPTIONS[value]} for value, label in PATTERN_TYPES),
        True)
    return [correct, kind]


@dataclass(frozen=True)
class PatternModels:
    """The two models a pattern study compares, as λ and T over one table's per-pivot features.

    The default is seed 002 §4.1's comparison: the LL-model with the paper's tuned λ and T = -10.002
    against the MLE-model (λ = 1 1 0 0) with its own tuned T' = -5.1. With T = T' = -inf both keep every
    pair and Table 2 would compare a model with itself: :func:`study_from_pattern_table` refuses models
    that extract the same pairs."""

    ll_lambdas: tuple[float, float, float, float] = PAPER_LAMBDAS
    ll_threshold: float = PAPER_THRESHOLD
    mle_threshold: float = PAPER_MLE_THRESHOLD
    sample: int = 100  # pairs per model (seed 002 §4.1 samples 3,000 of each)


def study_from_pattern_table(report: Progress, db: Database, plan: StudyPlan, table: str,
                             models: PatternModels = PatternModels()) -> int:
    """A blind study of pattern pairs: ``models.sample`` pairs drawn from each model's extracted pairs, mixed.

    The source is e1, the candidate e2; a pair both models extract is one candidate credited to both (the
    judges never see systems). Criteria: :func:`pattern_criteria`. Shown tokenized, slots marked.
    """
    import math
    import random

    from parastudio.core.tablebuild.patterns.scoring import MLE_LAMBDAS, extracted, log_score
    from parastudio.core.tablebuild.patterns.table_file import read_table
    from parastudio.core.vocabulary import PATTERN_MODELS

    plan_annotators(plan)
    report(2, 100, f"reading {Path(table).name}")
    chosen: dict[str, list[tuple]] = {name: [] for name in PATTERN_MODELS}
    settings = {PATTERN_MODELS[0]: (models.ll_lambdas, models.ll_threshold),
                PATTERN_MODELS[1]: (MLE_LAMBDAS, models.mle_threshold)}
    for pair in read_table(Path(table)):
        for name, (lambdas, threshold) in settings.items():
            value = log_score(pair.features, lambdas)
            if extracted(value, threshold):
                chosen[name].append((pair.e1, pair.e2, value, pair.p_mle, pair.pivots[:3]))
    ll_pairs, mle_pairs = ([(e1, e2) for e1, e2, *_ in chosen[name]] for name in PATTERN_MODELS)
    if ll_pairs and ll_pairs == mle_pairs:
        raise ValueError(f"{table}: both models extract the same {len(ll_pairs)} pairs, so Table 2 would compare a "
                         "model with itself; give them different thresholds (seed 002's, the default: LL-model "
                         "T = -10.002 with its λ, MLE-model T' = -5.1)")
    rng = random.Random(plan.seed)
    rows: list[ops.CandidateRow] = []
    e1_ids: dict[str, str] = {}
    models_json = {}
    for name, pairs in chosen.items():
        lambdas, threshold = settings[name]
        models_json[name] = {"lambdas": list(lambdas), "threshold": threshold if math.isfinite(threshold) else None,
                             "pairs_extracted": len(pairs)}
        for e1, e2, value, p_mle, pivots in rng.sample(pairs, min(models.sample, len(pairs))):
            sentence = e1_ids.setdefault(e1, str(len(e1_ids)))  # a whole number, as generate's sentence_id
            rows.append(ops.CandidateRow(sentence_id=sentence, text=e2, system=name, source=e1, model_score=value,
                                         params={"table": str(table), "model": name, "lambdas": list(lambdas),
                                                 "threshold": models_json[name]["threshold"], "ln_score": value,
                                                 "p_mle": p_mle, "pivots": list(pivots)},
                                         line=len(rows) + 1))
    if not rows:
        raise ValueError(f"{table}: neither model extracts a pair under the given weights and thresholds")
    plan = replace(plan, criteria=pattern_criteria(),
                   settings={"kind": "pattern-pairs", "display": "tokenized", "pattern_table": str(table),
                             "pattern_models": models_json, **plan.settings})
    sources = {sentence: e1 for e1, sentence in e1_ids.items()}
    return make_study(db, plan, rows, f"pattern pairs of {table}", sources, None, None, report)
