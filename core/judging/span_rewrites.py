"""Error spans mapped onto the derivation's rewrites (issue 30, Deliver 4): which rules judges marked.

A judge marks words of the candidate as shown (:func:`core.judging.view.judged_words`: the readable words
under the study's display rule, or the tokens when it shows them tokenized); an ``esa`` judgment stores
those spans as word indices (:mod:`core.store.error_spans`). The chain to the rules is exact:

1. judged word ``w`` -> the stored tokens it shows (``JudgedWord.tokens``; every token in exactly one word);
2. token ``t`` -> the derivation segment whose target span ``tgt`` holds it: a rewrite (a unit replacement,
   :func:`core.store.items.replacement_units`) or a pass-through segment (identity, or target equal to source);
3. a unit replacement is marked by a judge when they marked any of its target tokens, with the worst severity.

A span past the last word judged is an error (the judgment does not belong to this display of the candidate),
never dropped. A rewrite with an empty target (a deletion) has no word to mark and is never marked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import select

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.error_spans import SEVERITIES
from parastudio.core.judging.view import JudgedWord, judged_words, study_display
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.store.error_spans import blamed_units
from parastudio.core.store.models import Candidate, SourceSentence, Study


def token_spans(words: tuple[JudgedWord, ...], spans: list[dict]) -> list[dict]:
    """Spans over judged words as spans over the stored tokens those words show; ValueError for a span past
    the last word."""
    mapped = []
    for span in spans:
        if span["end"] > len(words):
            raise ValueError(f"an error span over words {span['start']}-{span['end']} of a candidate shown as "
                             f"{len(words)} words")
        mapped.append({"start": words[span["start"]].tokens.start, "end": words[span["end"] - 1].tokens.stop,
                       "severity": span["severity"]})
    return mapped


def word_spans(words: tuple[JudgedWord, ...], spans: list[dict]) -> list[dict]:
    """The inverse of :func:`token_spans` on its image: token spans back onto the judged words holding them."""
    word_of = {token: index for index, word in enumerate(words) for token in word.tokens}
    return [{"start": word_of[s["start"]], "end": word_of[s["end"] - 1] + 1, "severity": s["severity"]}
            for s in spans]


def segment_of_tokens(derivation, tokens: int) -> list[int | None]:
    """Per stored token of the candidate, the index of the derivation segment whose target span holds it
    (None where no segment does: a derivation that does not tile the candidate)."""
    owner: list[int | None] = [None] * tokens
    for index, segment in enumerate(derivation if isinstance(derivation, list) else []):
        if isinstance(segment, dict) and "tgt" in segment:
            for token in range(max(0, segment["tgt"][0]), min(tokens, segment["tgt"][1])):
                owner[token] = index
    return owner


def marked_units(derivation, words: tuple[JudgedWord, ...], spans: list[dict]) -> list[str | None]:
    """Per unit replacement of ``derivation`` (left to right), the worst severity a judge marked on its
    target words through ``words``, None when no mark touches it."""
    return blamed_units(derivation, token_spans(words, spans))


@dataclass
class MarkedRewrite:
    """One unit replacement of a candidate judged with error spans, and each judge's worst mark on it (None:
    the judge judged the candidate and marked none of its words)."""

    candidate_id: int
    unit: int
    source: str
    target: str
    systems: list[str]
    criterion: str
    marks: dict[str, str | None] = field(default_factory=dict)

    @property
    def verdict(self) -> str | None:
        """``marked`` when more than half of its judges marked it, ``unmarked`` when fewer than half did,
        None on a tie (left out, as rule blame leaves out candidates the judges disagreed on)."""
        marked = sum(1 for severity in self.marks.values() if severity is not None)
        if marked * 2 > len(self.marks):
            return "marked"
        return "unmarked" if marked * 2 < len(self.marks) else None


def marked_rewrites(db: Database, study_id: int, *, criteria: set[str] | None = None,
                    truecase_model: str | None = None) -> list[MarkedRewrite]:
    """Every unit replacement of every candidate judged in a criterion whose protocol's marks blame units
    (``spans_blame_units``: ESA's; ``criteria``: only these),
    with each judge's marks mapped through the words the study showed (its display rule; ``truecase_model``: the
    model it falls back on, the app's bundled one, as the judging screens had it)."""
    with db.reading() as session:
        study = session.get(Study, study_id)
        display = study_display(study.settings or {}, truecase_model)
        shown = {cid: (derivation, text, source, original) for cid, derivation, text, source, original in
                 session.execute(select(Candidate.id, Candidate.derivation, Candidate.text, SourceSentence.text,
                                        SourceSentence.display).join(SourceSentence)
                                 .where(Candidate.study_id == study_id))}
    found: dict[tuple[int, str], list[MarkedRewrite]] = {}
    words_of: dict[int, tuple[JudgedWord, ...]] = {}
    for row in ops.iter_judgments(db, study_id):
        protocol = protocol_of(row["scale"])
        if not protocol.spans_blame_units or row["candidate_id"] is None or (
                criteria and row["criterion"] not in criteria):
            continue
        derivation, text, source, original = shown[row["candidate_id"]]
        units = ops.replacement_units(derivation)
        if row["candidate_id"] not in words_of:
            words_of[row["candidate_id"]] = judged_words(text, display, source=source, original=original)[1]
        try:
            marks = marked_units(derivation, words_of[row["candidate_id"]], protocol.marked_spans(row["text"]))
        except ValueError as error:
            raise ValueError(f"judgment {row['judgment_id']} ({row['annotator']}, item {row['item']}): {error}") \
                from None
        rewrites = found.setdefault((row["candidate_id"], row["criterion"]), [
            MarkedRewrite(row["candidate_id"], unit, segment["source"], segment["target"], list(row["systems"]),
                          row["criterion"]) for unit, segment in enumerate(units)])
        for rewrite, severity in zip(rewrites, marks):
            rewrite.marks[row["annotator"]] = severity
    return [rewrite for key in sorted(found) for rewrite in found[key]]


def marks_by_unit(rewrites: list[MarkedRewrite]) -> dict[tuple[int, int], list[MarkedRewrite]]:
    """``(candidate id, unit)`` -> its marked rewrites (one per ``esa`` criterion)."""
    by_unit: dict[tuple[int, int], list[MarkedRewrite]] = defaultdict(list)
    for rewrite in rewrites:
        by_unit[(rewrite.candidate_id, rewrite.unit)].append(rewrite)
    return by_unit


__all__ = ["SEVERITIES", "MarkedRewrite", "marked_rewrites", "marked_units", "marks_by_unit", "segment_of_tokens",
           "token_spans", "word_spans"]
