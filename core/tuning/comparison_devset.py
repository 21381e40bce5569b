"""Dev-set records of the two protocols that do not label one candidate alone (issue 30).

``export-devset --records preference``: one record per preference pair::

    {"id", "sentence_id", "source", "a", "b", "systems": [A, B], "labels": [{"annotator", "value"}],
     "verdict", "identical"}

``a`` and ``b`` are the two systems' candidates with the systems in name order (not the order judges saw:
that was drawn per pair and is in the study); each label's value is ``a``, ``b`` or ``tie``; ``verdict`` is
the answer more than half the judges gave, null when no answer has a majority; a pair both systems answered
with the same string is ``identical`` with verdict ``tie`` and no labels (no judge saw it).

``export-devset --records da``: one record per candidate scored by direct assessment or error span
annotation::

    {"id", "sentence_id", "source", "candidate", "systems", "criterion",
     "scores": [{"annotator", "score", "z"[, "spans", "units"]}], "mean", "mean_z"}

(an ``esa`` score adds the judge's ``spans``, word indices of the candidate as the study showed it, and, per
unit replacement of the derivation, the worst severity marked on its words or null:
:func:`core.judging.span_rewrites.marked_units`)

``z`` is the score standardized by its judge (:func:`core.store.judgments_out.da_standardizer`, the
definition of :mod:`core.stats.direct_assessment`); ``mean_z`` the mean over the judges with a z.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from sqlalchemy import select

from parastudio.core.demo import demo_files
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.error_spans import parse_spans
from parastudio.core.judging.protocols.protocol import PAIR
from parastudio.core.judging.span_rewrites import marked_units
from parastudio.core.judging.view import judged_words, study_display
from parastudio.core.store import operations as ops
from parastudio.core.store.criteria import score_scales
from parastudio.core.store.database import Database
from parastudio.core.store.judgments_out import da_standardizer
from parastudio.core.store.models import Candidate, PreferencePair, SourceSentence, Study
from parastudio.core.store.sentence_ids import sentence_id
from parastudio.core.vocabulary import PREFER_LEFT, PREFER_RIGHT, PREFER_TIE

RECORD_KINDS = ("candidates", "preference", "da")


def _majority(values: list[str]) -> str | None:
    if not values:
        return None
    value, count = Counter(values).most_common(1)[0]
    return value if count * 2 > len(values) else None


def preference_records(db: Database, study_id: int) -> list[dict]:
    """Every preference pair of the study with its judges' answers (module docstring)."""
    with db.reading() as session:
        uid = session.get(Study, study_id).uid
        texts = dict(session.execute(select(Candidate.id, Candidate.text).where(Candidate.study_id == study_id)).all())
        pairs = session.execute(select(PreferencePair, SourceSentence.external_id, SourceSentence.text)
                                .join(SourceSentence, SourceSentence.id == PreferencePair.source_id)
                                .where(PreferencePair.study_id == study_id).order_by(PreferencePair.id)).all()
    answers: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for row in ops.iter_judgments(db, study_id):
        if protocol_of(row["scale"]).item == PAIR:
            answers[row["item"]].append((row["annotator"], row["value"]))
    records = []
    training = ops.training_row_ids(ops.study_settings(db, study_id), "pair_id")  # counted in no statistic
    for pair, sentence, source in (row for row in pairs if row[0].id not in training):
        swapped = pair.left_system > pair.right_system  # the record names the systems in name order
        a_system, b_system = (pair.right_system, pair.left_system) if swapped else (pair.left_system, pair.right_system)
        a_text, b_text = texts[pair.right_candidate_id if swapped else pair.left_candidate_id], \
            texts[pair.left_candidate_id if swapped else pair.right_candidate_id]
        side = {PREFER_LEFT: "b" if swapped else "a", PREFER_RIGHT: "a" if swapped else "b", PREFER_TIE: "tie"}
        labels = [{"annotator": name, "value": side[value]}
                  for name, value in sorted(answers.get(ops.item_key(None, None, None, pair.id), []))]
        verdict = "tie" if pair.identical else _majority([label["value"] for label in labels])
        records.append({"id": f"{uid}:pair-{pair.id}", "sentence_id": sentence_id(sentence), "source": source,
                        "a": a_text, "b": b_text, "systems": [a_system, b_system], "labels": labels,
                        "verdict": verdict, "identical": bool(pair.identical)})
    return records


def da_records(db: Database, study_id: int) -> list[dict]:
    """Every candidate scored by direct assessment, with each judge's raw score and z (module docstring)."""
    with db.reading() as session:
        uid = session.get(Study, study_id).uid
    rows = [row for row in ops.iter_judgments(db, study_id) if row["scale"] in score_scales()]
    with db.reading() as session:
        display = study_display(session.get(Study, study_id).settings or {}, str(demo_files().truecase_model))
        shown = {cid: (derivation, text, source, original) for cid, derivation, text, source, original in
                 session.execute(select(Candidate.id, Candidate.derivation, Candidate.text, SourceSentence.text,
                                        SourceSentence.display).join(SourceSentence)
                                 .where(Candidate.study_id == study_id))}
    z_of = da_standardizer(rows)
    by_item: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        by_item[(row["item"], row["criterion"])].append(row)
    records = []
    for (item, criterion), scored in sorted(by_item.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
        first = scored[0]
        scores = []
        for r in sorted(scored, key=lambda r: r["annotator"]):
            score = {"annotator": r["annotator"], "score": int(r["value"]), "z": z_of(r)}
            if protocol_of(r["scale"]).view == "spans":  # the words marked, and each unit replacement's worst mark
                spans = parse_spans(r["text"])
                derivation, text, source, original = shown[r["candidate_id"]]
                words = judged_words(text, display, source=source, original=original)[1]
                score.update(spans=spans, units=marked_units(derivation, words, spans))
            scores.append(score)
        zs = [s["z"] for s in scores if s["z"] is not None]
        records.append({"id": f"{uid}:{item}", "sentence_id": first["sentence_id"], "source": first["source"],
                        "candidate": first["candidate"], "systems": first["systems"], "criterion": criterion,
                        "scores": scores, "mean": sum(s["score"] for s in scores) / len(scores),
                        "mean_z": sum(zs) / len(zs) if zs else None})
    return records
