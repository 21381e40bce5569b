"""What ``parastudio metrics`` scores: every candidate as one system made it, with its source sentence, the
source's references and the engine's scores, read from a candidates file or a study; and the judgment
predictor's probability for each (a bridge: the store's candidates, the engine's LM and predictor).

From a candidates file (``generate --json`` lines, or a CSV/TSV table, as ``study import-candidates`` reads them),
a candidate's source is its ``source`` field, else line ``sentence_id`` (from 0) of ``--sources``; its references
are its ``references`` field, else line ``sentence_id`` of each ``--references`` file (several files: several
references). From a study: its candidates (planted controls left out), each once per system that produced it,
with that system's rank, model score and true score, and the references stored with the source.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import select

from parastudio.core.errors import InputFormatError
from parastudio.core.stats.text_metrics import (
    LOWER_IS_BETTER,
    SOURCE_SIDE_METRICS,
    TEXT_METRICS,
    TRANSLATION_METRICS,
    MetricInput,
    TextMetrics,
)
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.store.models import Candidate, CandidateSystem, SourceSentence, System
from parastudio.core.store.sentence_ids import sentence_id as sentence_number


@dataclass(frozen=True)
class ScoringRow:
    """One candidate as one system made it."""

    item: str | None  # the study's item id; None for a candidates file
    source_key: str  # the source sentence's id as the study keeps it (generate's sentence_id as text)
    system: str
    rank: int | None
    text: str
    source: str
    references: tuple[str, ...]
    model_score: float | None
    true_score: float | None
    derivation: list | None

    @property
    def sentence_id(self) -> int | None:
        return sentence_number(self.source_key)


def rows_of_candidates_file(path: str | os.PathLike, *, references: Sequence[str | os.PathLike] = (),
                            sources: str | os.PathLike | None = None) -> list[ScoringRow]:
    """Every candidate of the file (module docstring); a candidate with no source is ``file:line: expected``."""
    reference_lines = [ops.read_sources(name) for name in references]
    source_lines = ops.read_sources(sources) if sources is not None else {}
    rows = []
    for row in ops.read_candidates(path):
        source = row.source if row.source is not None else source_lines.get(row.sentence_id)
        if source is None:
            expected = (f"a 'source' field, or a line {row.sentence_id} in {sources}" if sources is not None
                        else "a 'source' field (or give the sources with --sources FILE)")
            raise InputFormatError(str(path), row.line, expected, got=f"sentence_id {row.sentence_id}")
        given = tuple(str(r) for r in row.references or () if str(r).strip())
        from_files = tuple(lines[row.sentence_id] for lines in reference_lines if row.sentence_id in lines)
        rows.append(ScoringRow(None, row.sentence_id, row.system, row.rank, row.text, source, given or from_files,
                               row.model_score, row.true_score, row.derivation))
    return rows


def rows_of_study(db: Database, study_id: int) -> list[ScoringRow]:
    """The study's candidates, each once per producing system, in candidate then system order."""
    rows = []
    with db.reading() as session:
        sources = {s.id: s for s in session.scalars(select(SourceSentence).where(SourceSentence.study_id == study_id))}
        links = session.execute(
            select(Candidate, CandidateSystem, System.name).select_from(Candidate)
            .join(CandidateSystem, CandidateSystem.candidate_id == Candidate.id)
            .join(System, System.id == CandidateSystem.system_id)
            .where(Candidate.study_id == study_id, Candidate.kind == "candidate")
            .order_by(Candidate.id, System.name)).all()
        for candidate, link, system in links:
            source = sources[candidate.source_id]
            rows.append(ScoringRow(ops.item_key(candidate.id), source.external_id, system, link.rank, candidate.text,
                                   source.text, tuple(str(r) for r in source.references or () if str(r).strip()),
                                   link.model_score, link.true_score, link.derivation or candidate.derivation))
    return rows


def predictor_probabilities(rows: Sequence[ScoringRow], model_path: str | os.PathLike,
                            lm_path: str | os.PathLike) -> tuple[list[float | None], str]:
    """The judgment predictor's probability that judges accept each candidate (``None`` without a true score or
    a derivation), from the features it was trained on (:mod:`core.tuning.judgment_predictor`: the LM score, the
    derivation's channel score and unit replacements, the true score, the length, the edit rate); and the
    predictor's signature (its criterion and the signature its report recorded)."""
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.model.judgment_model import JudgmentModel, feature_vector

    model = JudgmentModel.read(model_path)
    lm = LanguageModel(lm_path)
    probabilities: list[float | None] = []
    for row in rows:
        if row.true_score is None or not isinstance(row.derivation, list):
            probabilities.append(None)
            continue
        channel = sum(math.log10(s["p"]) for s in row.derivation
                      if isinstance(s, dict) and s.get("p") and not s.get("identity"))
        candidate = row.text.split()
        features = feature_vector(row.source.split(), candidate, lm_log10=lm.score(tuple(candidate)),
                                  channel_log10=channel, true_score=row.true_score,
                                  rules=len(ops.replacement_units(row.derivation)))
        probabilities.append(model.probability(features))
    return probabilities, f"judgment-predictor|criterion:{model.criterion}|fit:{model.signature or 'unknown'}"


ENGINE_METRICS = ("model_score", "true_score")


def metric_records(rows: Sequence[ScoringRow], metrics: TextMetrics,
                   predictor: Sequence[float | None] | None = None) -> tuple[list[dict], list[dict]]:
    """The scores file's segment records (one per row, in order) and system records (one per system, in order of
    first appearance): :mod:`core.stats.metric_scores_file`'s fields and a value per metric. A system's
    ``model_score``, ``true_score`` and ``predictor`` are the means over its candidates that have one."""
    names = metric_names(predictor is not None, metrics)
    segments = []
    by_system: dict[str, list[int]] = {}
    for k, row in enumerate(rows):
        scores = metrics.score(MetricInput(row.text, row.source, row.references))
        scores.update(model_score=row.model_score, true_score=row.true_score)
        if predictor is not None:
            scores["predictor"] = predictor[k]
        segments.append({"level": "segment", "item": row.item, "sentence_id": row.sentence_id,
                         "source_key": row.source_key, "system": row.system, "rank": row.rank, "text": row.text,
                         **{name: scores[name] for name in names}})
        by_system.setdefault(row.system, []).append(k)
    systems = []
    for system, members in by_system.items():
        corpus = metrics.corpus([MetricInput(rows[k].text, rows[k].source, rows[k].references) for k in members])
        for name in names[len(metrics.names):]:
            values = [segments[k][name] for k in members if segments[k][name] is not None]
            corpus[name] = sum(values) / len(values) if values else None
        systems.append({"level": "system", "system": system, "candidates": len(members),
                        "referenced": sum(1 for k in members if rows[k].references),
                        **{name: corpus[name] for name in names}})
    return segments, systems


def metric_names(with_predictor: bool, metrics: TextMetrics | None = None) -> list[str]:
    text = metrics.names if metrics is not None else TEXT_METRICS
    return [*text, *ENGINE_METRICS, *(["predictor"] if with_predictor else [])]


def is_translation_study(settings: dict) -> bool:
    """Whether a study's candidates translate their source (:class:`TextMetrics`' ``translation``): its settings
    say ``"task": "translation"`` (``study import-mqm`` writes it), or it is an MQM ratings study imported before
    that (``"kind": "mqm-ratings"``: WMT's ratings are translations, the ``ref`` system the reference)."""
    return settings.get("task") == "translation" or settings.get("kind") == "mqm-ratings"


def reference_system(settings: dict) -> str | None:
    """The system whose outputs are the study's references (``study import-mqm``: ``ref``), or None."""
    if settings.get("reference_system"):
        return str(settings["reference_system"])
    return "ref" if settings.get("kind") == "mqm-ratings" else None


def translation_note(translation: bool) -> list[str]:
    """What the outputs say when the source-side metrics were left out (empty for a paraphrase study)."""
    if not translation:
        return []
    return [f"A translation study: the source is in another language than the candidates, so the source-side "
            f"metrics ({', '.join(SOURCE_SIDE_METRICS)}) are left out; {', '.join(TRANSLATION_METRICS)} are "
            "against the references."]


def metric_descriptions(metrics: TextMetrics, rows: Sequence[ScoringRow], predictor: str | None = None) -> dict:
    """The provenance's ``metrics``: each metric's direction and signature (sacrebleu's for its metrics)."""
    signatures = metrics.signatures([len(row.references) for row in rows])
    described = {name: {"better": "lower" if name in LOWER_IS_BETTER else "higher",
                        "signature": signatures.get(name, "no references: not computed")} for name in metrics.names}
    if "corpus_bleu" in signatures:
        for name in ("bleu", "chrf", "ter"):
            described[name]["corpus_signature"] = signatures[f"corpus_{name}"]
    described["model_score"] = {"better": "higher", "signature": "the generator's log10 model score of the candidate "
                                "(its params)"}
    described["true_score"] = {"better": "higher", "signature": "the exact log10 true score (seed 000) the "
                               "candidate carries"}
    if predictor is not None:
        described["predictor"] = {"better": "higher", "signature": predictor}
    return described
