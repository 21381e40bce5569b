"""A labelled development set out of a judged study: one record per candidate (docs/devset.schema.json).

Each record carries the source, the candidate, the systems that made it and their provenance (tables, LM,
parameters), model and true scores, the derivation, every judge's raw label per criterion and the aggregated
label with how it was reached (:mod:`core.stats.label_aggregation`: agree, majority, adjudicated, or
unresolved, which is kept and marked), and per unit replacement a correct/incorrect label.

Replacement labels (seed 004 §3.6 asks one per unit replacement):

* ``"origin": "replacement-task"``: judged directly in a replacement criterion (one replacement highlighted at a
  time, yes/no), aggregated like any label; yes -> ``correct``, no -> ``incorrect``;
* ``"origin": "derived"``, from the candidate's aggregated label on ``derive_from`` (default: ``meaning``, else
  ``adequacy``, when the study asks it) by this rule: a candidate judged positive (yes, or a level at or above
  the middle of a numeric scale, as the Inspect screen reads labels) makes every replacement in it
  ``correct``; a candidate judged negative (no, or below the middle) with exactly one replacement makes that
  replacement ``incorrect``; a negative candidate with several replacements leaves each unresolved ("which
  replacement broke it is unknown"), as does an unresolved candidate label. A derived label inherits the
  candidate label's status;
* ``"origin": "spans"`` (``unit_labels="spans"``, ``export-devset --unit-labels spans``), before deriving, for a
  candidate judged with error spans (an ``esa`` criterion, the first when there are several): each judge's
  label is ``incorrect`` when they marked a word the replacement produced (either severity), ``correct`` when
  they marked none of its words, aggregated like any label (:mod:`core.judging.span_rewrites` maps the
  words judges saw onto the derivation's target tokens). A replacement judged directly keeps that label.

A pattern-pair study (``parastudio patterns study``, seed 002 §4.1) has no derivation: each candidate, pattern e2
of pattern e1, gets one segment and one replacement ``e1 -> e2`` (the whole pair), derived by default from the
``correct`` criterion (yes -> ``correct``, no -> ``incorrect``, as the rule above gives one replacement); ``tune
--system pivot`` reads these as seed 002 §3.4's labelled pairs.

Each judgment's ``verdict`` reads its aggregated label: ``positive`` (yes, or at or above the middle of a numeric
scale), ``negative`` (no, or below it), ``neither`` (a label that is neither, e.g. a custom scale's word), null
when unresolved. ``acceptable`` is true
when every exported criterion's verdict is positive, false when one is negative, null otherwise.

Free-form values (a system's parameters) are JSON text, so every record has one Arrow schema (``--format hf``).

``sentence_id`` is an integer, as in ``parastudio generate``'s output, so the two join on it: the store keeps a
source's id as text (``study import-candidates`` reads it from a JSONL ``sentence_id``, a CSV ``item`` or the line
of ``--sources``), and a study whose ids are not whole numbers cannot be exported (the message names one).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

from sqlalchemy import select

from parastudio.core.demo import demo_files
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import CANDIDATE_LABELS, REPLACEMENT_UNIT
from parastudio.core.judging.span_rewrites import marked_rewrites, marks_by_unit
from parastudio.core.judging.view import shown_text, study_display
from parastudio.core.stats.judge_competence import COMPETENCE_MODELS, CompetenceModel, ItemLabel, not_applicable
from parastudio.core.stats.label_aggregation import AGGREGATION_RULES, AggregatedLabel, aggregate_labels
from parastudio.core.stats.verdicts import is_positive
from parastudio.core.store import operations as ops
from parastudio.core.store.criteria import yes_no_scales
from parastudio.core.store.database import Database
from parastudio.core.store.models import Candidate, CandidateSystem, Criterion, SourceSentence, Study, System
from parastudio.core.vocabulary import NO, PATTERN_CORRECT, YES

DERIVE_FROM_DEFAULTS = ("meaning", "adequacy")
PATTERN_STUDY = "pattern-pairs"  # the study kind core.study_builder.study_from_pattern_table writes
REPLACEMENT_LABELS = {YES: "correct", NO: "incorrect"}
UNIT_LABELS = ("verdicts", "spans")  # export-devset --unit-labels


def sentence_number(external_id: str, study: str) -> int:
    """A stored source id as the dev set's ``sentence_id``: ``generate``'s sentence number."""
    if re.fullmatch(r"[0-9]+", external_id) is None:
        raise ValueError(f"study {study!r}: source sentence id {external_id!r} is not a whole number; a dev set's "
                         "sentence_id is generate's sentence number (docs/devset.schema.json), so import the "
                         "candidates with whole-number sentence ids")
    return int(external_id)


def _scale_values(criterion: Criterion) -> list[str]:
    return [str(level["value"]) for level in criterion.levels]


def positive_labels(criterion: Criterion) -> set[str]:
    """The labels that accept a candidate, as the Inspect screen reads them (:func:`core.stats.verdicts.
    is_positive`): yes, or a level at or above the middle of a numeric scale."""
    values = [YES, NO] if criterion.scale in yes_no_scales() else _scale_values(criterion)
    return {v for v in values if is_positive(v, [] if criterion.scale in yes_no_scales() else values) is True}


def negative_labels(criterion: Criterion) -> set[str]:
    """The labels that reject it: no, or a level below the middle."""
    values = [YES, NO] if criterion.scale in yes_no_scales() else _scale_values(criterion)
    return {v for v in values if is_positive(v, [] if criterion.scale in yes_no_scales() else values) is False}


def _labels_by_key(rows) -> dict[tuple, dict[str, str]]:
    found: dict[tuple, dict[str, str]] = defaultdict(dict)
    for row in rows:
        if row.get("candidate_id") is None:
            continue
        found[(row["candidate_id"], row["unit"], row["criterion"])][row["annotator"]] = row["value"]
    return found


def verdict(criterion: Criterion, aggregated: AggregatedLabel) -> str | None:
    """``positive``, ``negative`` or ``neither`` (a middle level) for a resolved label; None when unresolved."""
    if not aggregated.resolved:
        return None
    if aggregated.label in positive_labels(criterion):
        return "positive"
    return "negative" if aggregated.label in negative_labels(criterion) else "neither"


def _judgment_entry(criterion: Criterion, labels: dict[str, str], adjudication: dict[str, str],
                    aggregated: AggregatedLabel) -> dict:
    adjudicator, decision = next(iter(adjudication.items()), (None, None))
    return {"criterion": criterion.name,
            "labels": [{"annotator": name, "value": value} for name, value in sorted(labels.items())],
            "adjudication": None if decision is None else {"annotator": adjudicator, "value": decision},
            **aggregated.to_json(), "verdict": verdict(criterion, aggregated)}


def _derived(criterion: Criterion | None, judged: AggregatedLabel | None, replacements: int) -> dict:
    if criterion is None or judged is None:
        return {"label": None, "status": "unresolved", "reason": "no replacement judgment and no criterion to "
                "derive one from"}
    if not judged.resolved:
        return {"label": None, "status": "unresolved", "reason": f"{criterion.name} unresolved ({judged.reason})"}
    if judged.label in positive_labels(criterion):
        return {"label": "correct", "status": judged.status, "reason": None}
    if judged.label in negative_labels(criterion):
        if replacements == 1:
            return {"label": "incorrect", "status": judged.status, "reason": None}
        return {"label": None, "status": "unresolved",
                "reason": f"{criterion.name} negative with {replacements} replacements: which one broke it is unknown"}
    return {"label": None, "status": "unresolved", "reason": f"{criterion.name} label {judged.label} is neither"}


SPANS = "(error spans)"  # the key of the error-span labels' model fit (--aggregate mace|dawid-skene)


def span_labels(rewrite) -> dict[str, str]:
    """Each judge's ``incorrect`` when they marked one of the replacement's words (either severity), ``correct``
    when they judged the candidate and marked none."""
    return {name: "correct" if severity is None else "incorrect" for name, severity in rewrite.marks.items()}


def _from_spans(rewrite, key: tuple, labels_of: _Labels) -> dict:
    """A replacement's label from error spans (:func:`span_labels`), aggregated like any label."""
    labels = span_labels(rewrite)
    result = labels_of.combined(labels, SPANS, key, None)
    return {"origin": "spans", "criterion": rewrite.criterion,
            "labels": [{"annotator": a, "value": v} for a, v in sorted(labels.items())], "adjudication": None,
            "label": result.label, "status": result.status, "reason": result.reason}


def _whole_pair(e1: str, e2: str) -> dict:
    """A pattern pair as one segment: e1 rewritten into e2 (spans over the whitespace tokens)."""
    return {"src": [0, len(e1.split())], "tgt": [0, len(e2.split())], "source": " ".join(e1.split()),
            "target": " ".join(e2.split()), "p": None, "identity": False}


def devset_records(db: Database, study_id: int, *, aggregate: str = "adjudicated",
                   criteria: Sequence[str] | None = None, derive_from: str | None = None,
                   unit_labels: str = "verdicts") -> list[dict]:
    """The study's dev set, one record per candidate (planted controls left out), in candidate order;
    ``unit_labels="spans"`` labels a replacement from the words judges marked where they did (module docstring)."""
    if aggregate not in AGGREGATION_RULES + COMPETENCE_MODELS:
        raise ValueError(f"--aggregate must be one of {', '.join(AGGREGATION_RULES + COMPETENCE_MODELS)}, "
                         f"not {aggregate!r}")
    if unit_labels not in UNIT_LABELS:
        raise ValueError(f"--unit-labels must be one of {', '.join(UNIT_LABELS)}, not {unit_labels!r}")
    study = _read_study(db, study_id)
    asked = _asked(study.criteria, criteria)
    if derive_from is None:
        defaults = (PATTERN_CORRECT,) if study.patterns else DERIVE_FROM_DEFAULTS
        derive_from = next((name for name in defaults if name in study.criteria), None)
    elif derive_from not in study.criteria:
        raise ValueError(f"--derive-from {derive_from}: the study has no such criterion")
    judged = _labels_by_key(ops.iter_judgments(db, study_id))
    marked = {}
    if unit_labels == "spans":
        marked = marks_by_unit(marked_rewrites(db, study_id, truecase_model=str(demo_files().truecase_model)))
    labels = _Labels(judged, _labels_by_key(ops.iter_judgments(db, study_id, adjudications=True)), aggregate,
                     study.judges_per_item)
    if aggregate in COMPETENCE_MODELS:
        labels.fit_models(study.criteria, marked)
    return [_record(study, candidate, asked, derive_from, labels, marked) for candidate in study.candidates]


@dataclass
class _StudyForDevset:
    """What a dev set reads of a study, in one read."""

    uid: str
    name: str
    judges_per_item: int
    patterns: bool  # a pattern-pair study (module docstring)
    criteria: dict[str, Criterion]  # by name, in the study's order
    candidates: list[Candidate]  # planted controls left out, in id order
    sources: dict[int, SourceSentence]
    display: object  # the study's one display rule (what the judges read)
    producers: dict[int, list[dict]]  # candidate -> the systems that made it, by name


def _read_study(db: Database, study_id: int) -> _StudyForDevset:
    with db.reading() as session:
        study = session.get(Study, study_id)
        all_criteria = {c.name: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id)
                                                           .order_by(Criterion.position))}
        candidates = session.scalars(select(Candidate).where(Candidate.study_id == study_id,
                                                             Candidate.kind == "candidate")
                                     .order_by(Candidate.id)).all()
        sources = {s.id: s for s in session.scalars(select(SourceSentence).where(SourceSentence.study_id == study_id))}
        # What the judges read (the study's one display rule), kept beside the stored tokenized text.
        display = study_display(study.settings or {}, str(demo_files().truecase_model))
        producers: dict[int, list[dict]] = defaultdict(list)
        for link, name in session.execute(select(CandidateSystem, System.name).join(System)
                                          .where(System.study_id == study_id).order_by(System.name)):
            producers[link.candidate_id].append({"system": name, "rank": link.rank, "model_score": link.model_score,
                                                 "true_score": link.true_score,
                                                 "params": json.dumps(link.params, sort_keys=True)})
        return _StudyForDevset(uid=study.uid, name=study.name, judges_per_item=study.judges_per_item,
                               patterns=(study.settings or {}).get("kind") == PATTERN_STUDY, criteria=all_criteria,
                               candidates=candidates, sources=sources, display=display, producers=producers)


def _asked(all_criteria: dict[str, Criterion], criteria: Sequence[str] | None) -> list[str]:
    """The criteria whose labels a record carries (``criteria``: those named); preference and direct
    assessment have their own records (:mod:`core.tuning.comparison_devset`)."""
    def labels_candidates(criterion: Criterion) -> bool:  # its protocol's dev set rule
        return protocol_of(criterion.scale).devset == CANDIDATE_LABELS

    if criteria is None:
        return [name for name, c in all_criteria.items() if labels_candidates(c)]
    unknown = [name for name in criteria if name not in all_criteria]
    if unknown:
        raise ValueError(f"the study has no criterion {', '.join(unknown)}; it asks {', '.join(all_criteria)}")
    return [name for name in criteria if labels_candidates(all_criteria[name])]


@dataclass
class _Labels:
    """The judges' labels and the adjudicators' decisions by (candidate, unit, criterion), aggregated by one
    rule."""

    judged: dict[tuple, dict[str, str]]
    adjudicated: dict[tuple, dict[str, str]]
    aggregate: str
    judges_per_item: int
    # --aggregate mace|dawid-skene: per criterion (SPANS: error-span labels), (candidate, unit) -> the model's label
    fitted: dict[str, dict[tuple, ItemLabel]] = field(default_factory=dict)

    def fit_models(self, criteria: dict[str, Criterion], marked: dict) -> None:
        """One fit per criterion that has labels (and one of the error-span labels), items (candidate, unit)."""
        model = CompetenceModel(self.aggregate)
        grouped: dict[str, dict[tuple, dict[str, str]]] = defaultdict(dict)
        for (candidate_id, unit, criterion), labels in self.judged.items():
            if criterion in criteria and not not_applicable(criteria[criterion].scale):
                grouped[criterion][(candidate_id, unit)] = labels
        grouped[SPANS] = {key: span_labels(rewrites[0]) for key, rewrites in marked.items()}
        self.fitted = {name: model.fit(labels, criterion=name).items for name, labels in grouped.items()}

    def combined(self, labels: dict[str, str], criterion: str, key: tuple, decision: str | None) -> AggregatedLabel:
        """``labels`` made one by the rule; a model's label carries its probability and settings in ``reason``."""
        if self.aggregate not in COMPETENCE_MODELS:
            return aggregate_labels(labels, self.aggregate, adjudication=decision, min_judges=self.judges_per_item)
        fitted = self.fitted.get(criterion, {}).get(key)
        if not labels or fitted is None:
            return AggregatedLabel(None, "unresolved", "no judgments")
        return AggregatedLabel(fitted.label, self.aggregate, CompetenceModel(self.aggregate).reason(fitted))

    def aggregated(self, candidate_id: int, unit: int | None, criterion: str) -> tuple[dict, dict, AggregatedLabel]:
        labels = self.judged.get((candidate_id, unit, criterion), {})
        decision = self.adjudicated.get((candidate_id, unit, criterion), {})
        result = self.combined(labels, criterion, (candidate_id, unit), next(iter(decision.values()), None))
        return labels, decision, result


def _replacement(candidate_id: int, unit: int, segment: dict, derivation: list, replacement_criteria: list[str],
                 labels: _Labels, marked: dict, derived) -> dict:
    """A unit replacement's entry: labelled directly when a replacement criterion judged it, else from error
    spans when some were marked, else derived from the candidate's label (``derived``, called only then)."""
    entry = {"unit": unit, "segment": derivation.index(segment), "src": segment["src"],
             "tgt": segment["tgt"], "source": segment["source"], "target": segment["target"],
             "p": segment.get("p"), "rule": f"{segment['source']} ||| {segment['target']}"}
    direct = [(name, *labels.aggregated(candidate_id, unit, name)) for name in replacement_criteria]
    direct = [d for d in direct if d[1] or d[2]]
    if not direct and (candidate_id, unit) in marked:
        entry.update(_from_spans(marked[(candidate_id, unit)][0], (candidate_id, unit), labels))
    elif direct:
        name, judges, decision, result = direct[0]
        adjudicator, value = next(iter(decision.items()), (None, None))
        entry.update(origin="replacement-task", criterion=name,
                     labels=[{"annotator": a, "value": v} for a, v in sorted(judges.items())],
                     adjudication=None if value is None else {"annotator": adjudicator, "value": value},
                     label=REPLACEMENT_LABELS.get(result.label), status=result.status, reason=result.reason)
    else:
        entry.update(derived())
    return entry


def _record(study: _StudyForDevset, candidate: Candidate, asked: list[str], derive_from: str | None,
            labels: _Labels, marked: dict) -> dict:
    """One candidate's dev-set record (docs/devset.schema.json)."""
    all_criteria = study.criteria
    source = study.sources[candidate.source_id]
    made_by = study.producers.get(candidate.id, [])
    judgments, labels_of = _judgments(candidate.id, all_criteria, asked, derive_from, labels)
    derivation = candidate.derivation
    if study.patterns and not ops.replacement_units(derivation):
        derivation = [_whole_pair(source.text, candidate.text)]
    units = ops.replacement_units(derivation)
    replacement_criteria = [name for name, c in all_criteria.items()
                            if protocol_of(c.scale).item == REPLACEMENT_UNIT]

    def derived() -> dict:
        return dict(origin="derived", criterion=derive_from, labels=[], adjudication=None,
                    **_derived(all_criteria.get(derive_from), labels_of.get(derive_from), len(units)))
    replacements = [_replacement(candidate.id, unit, segment, derivation, replacement_criteria, labels, marked,
                                 derived) for unit, segment in enumerate(units)]
    verdicts = [verdict(all_criteria[name], labels_of[name]) for name in asked]
    first = made_by[0] if made_by else {}
    display = study.display
    return {
        "id": f"{study.uid}:{candidate.id}", "study": study.name, "item": str(candidate.id),
        "sentence_id": sentence_number(source.external_id, study.name), "source": source.text,
        "candidate": candidate.text,
        "shown": {"source": shown_text(source.text, display, source=source.text, original=source.display),
                  "candidate": shown_text(candidate.text, display, source=source.text, original=source.display)},
        "references": list(source.references or []),
        "system": first.get("system"), "systems": made_by,
        "provenance": {"tables": [str(t) for t in candidate.tables or []], "lm": candidate.lm,
                       "params": json.dumps(candidate.params, sort_keys=True)},
        "model_score": first.get("model_score"), "true_score": first.get("true_score"),
        "derivation": [{"src": s["src"], "tgt": s["tgt"], "source": s["source"], "target": s["target"],
                        "p": s.get("p"), "identity": bool(s.get("identity"))}
                       for s in derivation or [] if isinstance(s, dict) and "src" in s],
        "replacements": replacements, "judgments": judgments,
        "acceptable": _acceptable(bool(asked), verdicts), "aggregate": labels.aggregate,
    }


def _judgments(candidate_id: int, all_criteria: dict[str, Criterion], asked: list[str], derive_from: str | None,
               labels: _Labels) -> tuple[list[dict], dict[str, AggregatedLabel]]:
    """The entries of the asked criteria, and the aggregated label of each of them and of ``derive_from``."""
    judgments, labels_of = [], {}
    for name in dict.fromkeys(asked + ([derive_from] if derive_from else [])):
        judges, decision, result = labels.aggregated(candidate_id, None, name)
        labels_of[name] = result
        if name in asked:
            judgments.append(_judgment_entry(all_criteria[name], judges, decision, result))
    return judgments, labels_of


def _acceptable(asked: bool, verdicts: list[str | None]) -> bool | None:
    """False when a verdict is negative, True when some criterion was asked and every verdict is positive."""
    if "negative" in verdicts:
        return False
    return True if asked and all(v == "positive" for v in verdicts) else None
