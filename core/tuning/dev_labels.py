"""A dev set's labels as lookups a tuner reads: sentences, replacement labels, acceptable candidates.

A unit replacement is known by its sentence, source span and target: ``(source text, start, end, target)``. A
re-tuned decoder that makes the same rewrite in another candidate of the sentence gets the same label. The
labels of one replacement in several judged candidates are combined: correct when more of them say correct
than incorrect, incorrect when fewer, unlabelled on a tie. Unresolved labels count as unlabelled.

A candidate's acceptability is known by ``(source text, candidate text)`` (the record's ``acceptable``).

Sentences are split into a tuning part and a held-out part by a seeded shuffle of their source texts, so every
candidate of a sentence falls on the same side.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from parastudio.core.tuning.objectives import COLUMN, STATS

ReplacementKey = tuple[str, int, int, str]


@dataclass(frozen=True)
class DevSentence:
    key: str  # the tokenized source text
    sentence_id: str
    tokens: tuple[str, ...]
    references: tuple[str, ...]
    params: str  # the generation parameters (JSON text) of its first candidate


@dataclass
class DevLabels:
    sentences: list[DevSentence]
    replacements: dict[ReplacementKey, bool] = field(default_factory=dict)
    acceptable: dict[tuple[str, str], bool] = field(default_factory=dict)

    @classmethod
    def from_records(cls, records: Sequence[dict]) -> "DevLabels":
        sentences: dict[str, DevSentence] = {}
        votes: dict[ReplacementKey, list[int]] = defaultdict(lambda: [0, 0])
        acceptable: dict[tuple[str, str], bool] = {}
        for record in records:
            source = " ".join(record["source"].split())
            if source not in sentences:
                sentences[source] = DevSentence(source, str(record.get("sentence_id", "")), tuple(source.split()),
                                                tuple(record.get("references") or ()),
                                                (record.get("provenance") or {}).get("params") or "null")
            for unit in record["replacements"]:
                if unit.get("label") in ("correct", "incorrect"):
                    key = (source, int(unit["src"][0]), int(unit["src"][1]), " ".join(unit["target"].split()))
                    votes[key][0 if unit["label"] == "correct" else 1] += 1
            if record.get("acceptable") is not None:
                acceptable[(source, " ".join(record["candidate"].split()))] = bool(record["acceptable"])
        labels = {key: correct > wrong for key, (correct, wrong) in votes.items() if correct != wrong}
        return cls(list(sentences.values()), labels, acceptable)

    def correct_known(self, sentences: Sequence[DevSentence]) -> int:
        """Replacements the dev set labels correct in these sentences (the recall denominator of ``f1``)."""
        wanted = {s.key for s in sentences}
        return sum(1 for key, good in self.replacements.items() if good and key[0] in wanted)

    def stats(self, sentence: DevSentence, tokens: Sequence[str], segments) -> np.ndarray:
        """The :data:`core.tuning.objectives.STATS` of one candidate (engine segments, left to right)."""
        row = np.zeros(len(STATS))
        for segment in segments:
            rule = segment.rule
            if segment.identity or rule.source == rule.target:
                continue
            label = self.replacements.get((sentence.key, segment.src_start, segment.src_end, " ".join(rule.target)))
            row[COLUMN["correct" if label is True else "incorrect" if label is False else "unlabelled"]] += 1
            row[COLUMN["replaced_words"]] += segment.src_end - segment.src_start
        row[COLUMN["source_words"]] = len(sentence.tokens)
        row[COLUMN["acceptable"]] = float(self.acceptable.get((sentence.key, " ".join(tokens)), False))
        row[COLUMN["sentences"]] = 1.0
        return row


def split_sentences(sentences: Sequence[DevSentence], heldout: float, seed: int
                    ) -> tuple[list[DevSentence], list[DevSentence]]:
    """``(tuning, held-out)``: a seeded ``heldout`` share of the sentences held out (none when 0)."""
    if not 0.0 <= heldout < 1.0:
        raise ValueError(f"the held-out share must lie in [0, 1), not {heldout}")
    order = sorted(sentences, key=lambda s: s.key)
    random.Random(f"split:{seed}").shuffle(order)
    count = round(heldout * len(order))
    held = {s.key for s in order[:count]}
    return [s for s in sentences if s.key not in held], [s for s in sentences if s.key in held]
