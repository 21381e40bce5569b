"""Anytime-valid comparisons between every two systems of a study, on the sentence pairs judged so far.

Pairing is the fixed sign test's (:func:`core.stats.system_scores.sentence_scores`,
seed 003 §5): a system's score on a source sentence is its candidates'
aggregated judgment; two systems are compared on the sentences both scored,
ties dropped. What the sequential test adds is an order: a sentence pair enters
when it became complete, i.e. at the last judgment that counts towards either
system's score on that sentence (judging order, as the records hold it: a
study's judgment ids, a CSV's lines), ties between two pairs broken by the
sentence id. The same judgments therefore give the same figures tomorrow. The
guarantee is exact when a pair's outcome no longer changes once it has entered
(every judge of its candidates has answered before the next look); a judgment
that later changes a pair's outcome moves that pair to its new place.

Family: the pairs of one criterion are corrected together by Holm's step-down
on the anytime p-values. This is valid at every time at once: Holm rejects a
true null at some time only if, for the m0 true nulls, min_i p_i(t) ≤ α/m0,
and since each p_i only decreases, that implies min_i inf_t p_i(t) ≤ α/m0, whose
probability is at most m0 · α/m0 = α by Ville's inequality for each pair (no
assumption on how the pairs depend on each other). The confidence sequences are
simultaneous over the family by Bonferroni (each at α/m), so an interval can
still hold 1/2 for a pair that Holm's later, larger thresholds decide.

Preference judgments (an answer that says which of two outputs is better) plug
in as outcomes directly: :meth:`AnytimeSignTest.run` takes any ±1/0 sequence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Sequence

import numpy as np

from parastudio.core.stats.anytime_sign_test import AnytimeSignResult, AnytimeSignTest, log_mixture_martingale
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.significance import holm_adjust
from parastudio.core.stats.system_scores import label_number, sentence_scores
from parastudio.core.vocabulary import YES_WORDS

DECISIONS = ("A better", "B better", "undecided")
GUARANTEE = ("anytime-valid: looked at after every judgment or stopped at any time, the chance of declaring a "
             "winner between two equally good systems stays at most alpha (per criterion, over all its pairs)")


@dataclass(frozen=True)
class AnytimeComparison:
    criterion: str
    system_a: str
    system_b: str
    result: AnytimeSignResult
    p_anytime: float  # Holm-adjusted over the criterion's pairs: the one the decision reads
    decision: str

    def to_json_dict(self) -> dict:
        r = self.result
        return {"criterion": self.criterion, "system_a": self.system_a, "system_b": self.system_b, "n": r.n,
                "wins_a": r.wins_a, "wins_b": r.wins_b, "ties": r.ties, "p_anytime": self.p_anytime,
                "p_anytime_pair": r.p_anytime, "decision": self.decision, "win_rate_cs": list(r.win_rate_cs),
                "log_evidence": r.log_evidence}


@dataclass(frozen=True)
class AnytimeStatus:
    """Every comparison of the criteria asked for, and how they were computed."""

    criteria: list[str]
    alpha: float
    comparisons: list[AnytimeComparison]
    judged_items: int
    judgments: int
    signature: str
    guarantee: str = GUARANTEE
    skipped: list[str] = field(default_factory=list)  # criteria with fewer than two scored systems

    def to_json_dict(self) -> dict:
        return {"pairs": [c.to_json_dict() for c in self.comparisons], "criteria": self.criteria,
                "alpha": self.alpha, "correction": "holm", "judged_items": self.judged_items,
                "judgments": self.judgments, "skipped_criteria": self.skipped, "guarantee": self.guarantee,
                "signature": self.signature}


def completion_order(records: JudgmentRecords, criterion: str, positive: Sequence[str] = YES_WORDS
                     ) -> dict[tuple[str, str], int]:
    """(system, sentence) -> position in judging order of the last judgment counted in that score."""
    chosen = records.select(criterion=criterion).per_system()
    systems = chosen.systems if chosen.systems is not None else ["-"] * len(chosen)
    sentences = chosen.sentences if chosen.sentences is not None else [None] * len(chosen)
    last: dict[tuple[str, str], int] = {}
    for position, (system, sentence, item, value) in enumerate(zip(systems, sentences, chosen.items, chosen.values)):
        if label_number(value, positive) is not None:  # what sentence_scores counts
            last[(system, sentence or item)] = position
    return last


def paired_outcomes(records: JudgmentRecords, criterion: str, system_a: str, system_b: str, *,
                    aggregate: str = "mean", positive: Sequence[str] = YES_WORDS) -> list[tuple[str, int]]:
    """(sentence, +1 A better / -1 B better / 0 tie) for every sentence both scored, in completion order."""
    scores = sentence_scores(records, criterion, aggregate, positive=positive).scores
    return _outcomes(scores, completion_order(records, criterion, positive), system_a, system_b)


def _outcomes(scores: dict, last: dict, system_a: str, system_b: str) -> list[tuple[str, int]]:
    a, b = scores.get(system_a, {}), scores.get(system_b, {})
    shared = [sentence for sentence in a if sentence in b]
    shared.sort(key=lambda s: (max(last[(system_a, s)], last[(system_b, s)]), s))
    return [(s, (a[s] > b[s]) - (a[s] < b[s])) for s in shared]


def _decision(p_family: float, alpha: float, result: AnytimeSignResult) -> str:
    # The side that led when the evidence peaked: a later reversal does not undo a decision already valid.
    leader = result.leader_at_max or (result.wins_a > result.wins_b) - (result.wins_a < result.wins_b)
    if p_family > alpha or leader == 0:
        return "undecided"
    return "A better" if leader > 0 else "B better"


def criterion_comparisons(records: JudgmentRecords, criterion: str, test: AnytimeSignTest, *,
                          aggregate: str = "mean", positive: Sequence[str] = YES_WORDS
                          ) -> tuple[list[AnytimeComparison], set[str]]:
    """Every two systems on one criterion (the fixed test's pairs, same orientation), Holm over them;
    and the sentences compared."""
    scores = sentence_scores(records, criterion, aggregate, positive=positive).scores
    last = completion_order(records, criterion, positive)
    pairs = list(combinations(scores, 2))
    if not pairs:
        return [], set()
    outcomes = [_outcomes(scores, last, a, b) for a, b in pairs]
    cs_alpha = test.alpha / len(pairs)
    results = [test.run([o for _, o in pair], cs_alpha) for pair in outcomes]
    adjusted = holm_adjust([r.p_anytime for r in results])
    comparisons = [AnytimeComparison(criterion, a, b, r, min(1.0, p), _decision(p, test.alpha, r))
                   for (a, b), r, p in zip(pairs, results, adjusted)]
    return comparisons, {s for pair in outcomes for s, _ in pair}


def anytime_status(records: JudgmentRecords, criteria: Sequence[str], test: AnytimeSignTest, *,
                   aggregate: str = "mean", positive: Sequence[str] = YES_WORDS) -> AnytimeStatus:
    """The study's anytime-valid comparisons now: what ``study status`` prints and the Dashboard shows."""
    comparisons, skipped, sentences = [], [], set()
    for criterion in criteria:
        rows, compared = criterion_comparisons(records, criterion, test, aggregate=aggregate, positive=positive)
        comparisons += rows
        sentences |= compared
        if not rows:
            skipped.append(criterion)
    chosen = records.select_criteria(criteria)
    signature = test.signature(correction="holm", cs="bonferroni", family="criterion-pairs",
                               unit="source-sentence", score=aggregate, order="pair-completion",
                               items=len(sentences), judges=len(chosen.annotator_names()))
    return AnytimeStatus(criteria=list(criteria), alpha=test.alpha, comparisons=comparisons,
                         judged_items=len(set(chosen.items)), judgments=len(chosen), signature=signature,
                         skipped=skipped)


def decision_times(records: JudgmentRecords, criterion: str, test: AnytimeSignTest, *, aggregate: str = "mean",
                   positive: Sequence[str] = YES_WORDS) -> dict[tuple[str, str], tuple[int | None, int]]:
    """(system A, system B) -> (the judgment position at which Holm over the criterion's pairs first decided the
    pair, or None; how many of the pair's sentences entered after it): the clock "decided plus a margin" reads.

    All pairs share the study's judging order, so Holm is evaluated after every judgment at which some pair's
    anytime p-value changed. The sentences are taken as the judgments now stand, each at its completion: a
    sentence one judge had answered earlier enters when its last judgment came, not at the first.
    """
    scores = sentence_scores(records, criterion, aggregate, positive=positive).scores
    last = completion_order(records, criterion, positive)
    pairs = list(combinations(scores, 2))
    entries = {}  # pair -> [(position, running p)], one per sentence in completion order
    for a, b in pairs:
        outcomes = _outcomes(scores, last, a, b)
        signs = np.array([o for _, o in outcomes], dtype=int)
        wins, losses = np.cumsum(signs == 1), np.cumsum(signs == -1)
        log_m = np.where(signs != 0, log_mixture_martingale(wins, losses, test.prior_a, test.prior_b), 0.0)
        running_p = np.minimum(1.0, np.exp(-np.maximum.accumulate(np.maximum(log_m, 0.0)))) if signs.size else []
        entries[(a, b)] = [(max(last[(a, s)], last[(b, s)]), float(p)) for (s, _), p in zip(outcomes, running_p)]
    events = sorted({position for rows in entries.values() for position, _ in rows})
    current = {pair: 1.0 for pair in pairs}
    cursor = {pair: 0 for pair in pairs}
    decided: dict[tuple[str, str], int | None] = {pair: None for pair in pairs}
    for position in events:
        for pair in pairs:
            rows = entries[pair]
            while cursor[pair] < len(rows) and rows[cursor[pair]][0] <= position:
                current[pair] = rows[cursor[pair]][1]
                cursor[pair] += 1
        for pair, p in zip(pairs, holm_adjust([current[pair] for pair in pairs])):
            if decided[pair] is None and p <= test.alpha:
                decided[pair] = position
    return {pair: (decided[pair], 0 if decided[pair] is None else
                   sum(1 for position, _ in entries[pair] if position > decided[pair])) for pair in pairs}
