"""The questions a study asks: preset criteria from the seeds, their scales, and what an answer may be.

Sources: seed 003 §4.3 (two yes/no steps: form alone, then meaning with the
source), seed 004 §4.2 (3-point adequacy, fluency, usability per
application; the level descriptions are lost in the PDF text and are
reconstructed from the published paper's table), seed 004 §3.6 (the
replacement task: raters label each unit replacement correct or incorrect;
one replacement is highlighted at a time, answered yes or no), seed 001 §4.2
(the choice task: pick an option, keep the original or type a custom
paraphrase), issue 30 (pairwise preference between two systems' candidates,
as WMT's relative ranking reduced to two outputs), and WMT's direct assessment
(a 0-100 score of the candidate against the source, Graham et al. 2013/2017).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from parastudio.core.judging.protocols import protocol_of, scales_where
from parastudio.core.judging.protocols.protocol import SCORE
from parastudio.core.store.models import Criterion
from parastudio.core.vocabulary import (
    APPLICATIONS,
    DA_HIGHEST,
    DA_LOWEST,
    NO,
    PREFERENCE_LABELS,
    PRESET_CRITERIA,
    YES,
)

_THREE_POINT_ADEQUACY = [
    {"value": "1", "label": "Changed", "description": "The meaning is evidently changed."},
    {"value": "2", "label": "Generally preserved", "description": "The meaning is generally preserved."},
    {"value": "3", "label": "Completely preserved", "description": "The meaning is completely preserved."},
]


_THREE_POINT_FLUENCY = [
    {"value": "1", "label": "Incomprehensible", "description": "The paraphrase is incomprehensible."},
    {"value": "2", "label": "Comprehensible", "description": "The paraphrase is comprehensible."},
    {"value": "3", "label": "Flawless", "description": "The paraphrase is a flawless sentence."},
]


_THREE_POINT_USABILITY = [
    {"value": "1", "label": "Opposite", "description": "The paraphrase is opposite to the application purpose."},
    {"value": "2", "label": "Not achieved", "description": "The paraphrase does not achieve the application."},
    {"value": "3", "label": "Achieved", "description": "The paraphrase achieves the application."},
]


_BINARY = [
    {"value": NO, "label": "No", "description": "No."},
    {"value": YES, "label": "Yes", "description": "Yes."},
]


_PREFERENCE = [
    {"value": PREFERENCE_LABELS[0], "label": "Right better", "description": "The right paraphrase is better."},
    {"value": PREFERENCE_LABELS[1], "label": "No difference", "description": "Neither is better."},
    {"value": PREFERENCE_LABELS[2], "label": "Left better", "description": "The left paraphrase is better."},
]


_FIVE_POINT = [{"value": str(v), "label": str(v), "description": d} for v, d in
               zip(range(1, 6), ("Very bad.", "Bad.", "Acceptable.", "Good.", "Very good."))]


_USABILITY_QUESTIONS = {
    "compression": "Does the paraphrase achieve sentence compression (shorter, same meaning)?",
    "simplification": "Does the paraphrase achieve sentence simplification (easier words and structure)?",
    "similarity": "Does the paraphrase make the sentence more similar to the reference?",
}


@dataclass(frozen=True)
class CriterionSpec:
    name: str
    question: str
    scale: str
    levels: tuple[dict, ...]
    shows_source: bool
    application: str | None = None


def preset_criterion(name: str, application: str | None = None) -> CriterionSpec:
    """A named default criterion: fluency, meaning (seed 003, yes/no), adequacy,
    fluency3, usability (seed 004, 3-point), quality5 (5-point), replacement (seed 004 §3.6, yes/no per unit
    replacement), choice (seed 001), preference (issue 30: two systems' candidates side by side), da (issue 30: WMT's direct assessment, 0-100), esa (error
    span annotation), mqm (MQM errors, Freitag et al. 2021)."""
    if name == "fluency":
        return CriterionSpec("fluency", "Is the following sentence good English?", "binary", tuple(_BINARY), False)
    if name == "meaning":
        return CriterionSpec("meaning", "Do the following two sentences express the same thing?", "binary",
                             tuple(_BINARY), True)
    if name == "adequacy":
        return CriterionSpec("adequacy", "How much of the source's meaning does the paraphrase keep?", "3-point",
                             tuple(_THREE_POINT_ADEQUACY), True)
    if name == "fluency3":
        return CriterionSpec("fluency3", "How fluent is the paraphrase?", "3-point", tuple(_THREE_POINT_FLUENCY), False)
    if name == "usability":
        application = application or "simplification"
        if application not in APPLICATIONS:
            raise ValueError(f"unknown application {application!r}; expected one of {', '.join(APPLICATIONS)}")
        return CriterionSpec("usability", _USABILITY_QUESTIONS[application], "3-point",
                             tuple(_THREE_POINT_USABILITY), True, application)
    if name == "quality5":
        return CriterionSpec("quality5", "How good is the paraphrase?", "5-point", tuple(_FIVE_POINT), True)
    if name == "replacement":
        return CriterionSpec("replacement", "Is the highlighted replacement correct: do the new words say what the "
                             "old ones said, here?", "replacement", tuple(_BINARY), True)
    if name == "choice":
        return CriterionSpec("choice", "Pick the best paraphrase of the highlighted words, keep the original, "
                             "or type your own.", "choice", (), True)
    if name == "preference":
        return CriterionSpec("preference", "Which paraphrase of the source is better?", "preference",
                             tuple(_PREFERENCE), True)
    if name == "da":
        return CriterionSpec("da", "How well does the paraphrase say what the source says, in good English? "
                             f"Score it from {DA_LOWEST} (not at all) to {DA_HIGHEST} (perfectly).", "da", (), True)
    if name == "esa":
        return CriterionSpec("esa", "Mark the words that are wrong (minor or major), then score the paraphrase "
                             f"from {DA_LOWEST} to {DA_HIGHEST}.", "esa", (), True)
    if name == "mqm":
        return CriterionSpec("mqm", "Mark each error in the translation with its MQM category and severity (Major, "
                             "Minor, Neutral); none when it has none.", "mqm", (), True)
    raise ValueError(f"unknown criterion {name!r}; expected one of {', '.join(PRESET_CRITERIA)}")


def score_scales() -> tuple[str, ...]:
    """The scales answered with a score (direct assessment, error span annotation's final score)."""
    return scales_where(answer=SCORE)


def yes_no_scales() -> tuple[str, ...]:
    """The scales answered yes or no (a candidate is good, a replacement is correct)."""
    return scales_where(yes_no=True)


def normalize_value(criterion: Criterion, value: Any, text_value: str | None = None,
                    options: Sequence[str] = ()) -> tuple[str, str | None]:
    """The stored ``(value, text)`` for an answer, as the criterion's protocol checks it; ValueError naming what
    the scale accepts."""
    protocol = protocol_of(criterion.scale)
    if text_value and not protocol.takes_text:  # never dropped without a word (issue 39)
        raise ValueError(f"criterion {criterion.name!r} takes no text or error spans with its answer (spans are an "
                         "ESA criterion's)")
    return protocol.check(criterion.name, criterion.levels or (), value, text_value, options)


def scale_labels(criterion: Criterion) -> tuple[str, ...]:
    """The labels of the criterion's scale in order; empty where answers are not labels (a score, a pick)."""
    return protocol_of(criterion.scale).labels(criterion.levels or ())


def bad_values(criterion: Criterion) -> set[str]:
    """Answers that count as 'judged bad' for a planted control (the protocol's: the lower half of a scale)."""
    return protocol_of(criterion.scale).bad_values(criterion.levels or ())
