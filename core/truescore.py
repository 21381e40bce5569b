"""The exact true score of a paraphrase (seed 000, Algorithm 1).

The true score of a candidate ``t`` of source ``s`` is the best score over all
sets ``I`` of rules with disjoint supports that turn ``s`` into exactly ``t``
(identity rules, probability 1, for unchanged words):
``Z*_t = max_I P_LM(t) * prod_{i in I} p(s_i|t_i)``.

Algorithm 1 enumerates the rule sets recursively: a rule applies at the head
of the remaining source when its target is the head of the remaining target.
Under assumptions A1 (disjoint supports) and A2 (no reordering) the best set
for the remainder ``(S[i:], T[k:])`` does not depend on how the prefix was
rewritten, so the maximum is a dynamic program over source and target
positions: ``best(i, k) = max_{rule: S[i:j] -> T[k:l]} log p(rule) +
best(j, l)``, ``best(n, m) = 0``. Only rules whose source occurs in ``s`` and
whose target occurs in ``t`` can be edges, so we index the target's n-grams
and keep the rest out before the DP starts.

``P_LM(t)`` and the word penalty do not depend on ``I``: they are added once.
"""

from __future__ import annotations

import math
from collections import OrderedDict, defaultdict
from dataclasses import dataclass
from typing import Sequence

from core.derivation import Segment
from core.lm import LanguageModel
from core.paraphrase_table import Match, ParaphraseTable
from core.rules import identity_rule
from core.scoring import DEFAULT_WEIGHTS, ScoreWeights, loglinear_log10


@dataclass(frozen=True)
class TrueScore:
    """Result of a true-score computation.

    ``reachable`` is False when no rule set turns the source into the target;
    the scores are then ``None``, never 0.
    """

    source: tuple[str, ...]
    target: tuple[str, ...]
    reachable: bool
    rules_log10: float | None
    lm_log10: float | None
    log10_score: float | None
    derivation: tuple[Segment, ...]
    weights: ScoreWeights = DEFAULT_WEIGHTS

    @property
    def rules_product(self) -> float | None:
        """``prod p(s_i|t_i)``, multiplied directly (no log round trip)."""
        if not self.reachable:
            return None
        product = 1.0
        for segment in self.derivation:
            product *= segment.rule.prob
        return product

    @property
    def score(self) -> float | None:
        """The score as a probability: ``P_LM(t) * prod p`` with the default weights."""
        if self.log10_score is None:
            return None
        if self.weights == DEFAULT_WEIGHTS:
            lm_factor = 1.0 if self.lm_log10 is None else 10.0**self.lm_log10
            return self.rules_product * lm_factor
        return 10.0**self.log10_score

    def to_json(self) -> dict:
        return {
            "source": " ".join(self.source),
            "target": " ".join(self.target),
            "reachable": self.reachable,
            "score": self.score,
            "log10_score": self.log10_score,
            "derivation": [segment.to_json() for segment in self.derivation],
        }


class TrueScorer:
    """Computes true scores against one table and LM, caching rule matches per source."""

    def __init__(
        self,
        table: ParaphraseTable,
        lm: LanguageModel | None = None,
        weights: ScoreWeights = DEFAULT_WEIGHTS,
        *,
        match_cache_size: int = 256,
    ):
        self.table = table
        self.lm = lm
        self.weights = weights
        self._matches: OrderedDict[tuple[str, ...], list[Match]] = OrderedDict()
        self._match_cache_size = match_cache_size

    def _source_matches(self, source: tuple[str, ...]) -> list[Match]:
        found = self._matches.get(source)
        if found is None:
            found = self.table.matches(source)
            self._matches[source] = found
            if len(self._matches) > self._match_cache_size:
                self._matches.popitem(last=False)
        else:
            self._matches.move_to_end(source)
        return found

    def score(self, source: Sequence[str], target: Sequence[str]) -> TrueScore:
        source = tuple(source)
        target = tuple(target)
        best = best_derivation(source, target, self._source_matches(source))
        if best is None:
            return TrueScore(source, target, False, None, None, None, ())
        rules_part, segments = best
        lm_part = self.lm.score(target) if self.lm is not None else None
        total = loglinear_log10(rules_part, lm_part, len(target), self.weights)
        return TrueScore(source, target, True, rules_part, lm_part, total, segments, self.weights)


def true_score(
    source: Sequence[str],
    target: Sequence[str],
    table: ParaphraseTable,
    lm: LanguageModel | None = None,
    weights: ScoreWeights = DEFAULT_WEIGHTS,
) -> TrueScore:
    """One-off true score; use :class:`TrueScorer` for many targets of one source."""
    return TrueScorer(table, lm, weights).score(source, target)


def best_derivation(
    source: tuple[str, ...], target: tuple[str, ...], matches: Sequence[Match]
) -> tuple[float, tuple[Segment, ...]] | None:
    """Best ``sum log10 p`` over disjoint rule sets turning ``source`` into ``target``.

    Returns ``(log10 of the best product, segments)`` or ``None`` if unreachable.
    Ties go to the derivation with fewer non-identity rules, then to the one
    found first, so results are deterministic.
    """
    n, m = len(source), len(target)
    # Where each target n-gram occurs, for the lengths the rules need.
    lengths = {len(match.rule.target) for match in matches}
    target_positions: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for length in lengths:
        for k in range(m - length + 1):
            target_positions[target[k : k + length]].append(k)
    word_positions: dict[str, list[int]] = defaultdict(list)
    for k, word in enumerate(target):
        word_positions[word].append(k)

    # edges[i]: (end in source, start in target, end in target, log10 p, changes, rule, identity)
    edges: list[list[tuple]] = [[] for _ in range(n)]
    for i, word in enumerate(source):
        for k in word_positions.get(word, ()):
            edges[i].append((i + 1, k, k + 1, 0.0, 0, None, True))
    for match in matches:
        positions = target_positions.get(match.rule.target)
        if not positions:
            continue
        log_p = math.log10(match.rule.prob)
        for k in positions:
            edges[match.start].append((match.end, k, k + len(match.rule.target), log_p, 1, match.rule, False))

    # best[(i, k)] = (log10 score, -changes, edge) of the best way to rewrite
    # source[i:] into target[k:]. Successors have a larger i, so fill i downwards.
    best: dict[tuple[int, int], tuple[float, int, tuple | None]] = {(n, m): (0.0, 0, None)}
    for i in range(n - 1, -1, -1):
        for edge in edges[i]:
            j, k, l, log_p, changes, _, _ = edge
            rest = best.get((j, l))
            if rest is None:
                continue
            candidate = (log_p + rest[0], rest[1] - changes, edge)
            current = best.get((i, k))
            if current is None or (candidate[0], candidate[1]) > (current[0], current[1]):
                best[(i, k)] = candidate
    root = best.get((0, 0))
    if root is None:
        return None

    segments: list[Segment] = []
    i, k = 0, 0
    while (i, k) != (n, m):
        j, k_start, l, _, _, rule, identity = best[(i, k)][2]
        if identity:
            rule = identity_rule(source[i])
        segments.append(Segment(i, j, k_start, l, rule, identity))
        i, k = j, l
    return root[0], tuple(segments)
