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

One dynamic program, three variants, all on one :class:`SourceRuleIndex`:

* :func:`best_derivation`: the exact one, backward from ``(n, m)``; it also
  rebuilds the best derivation, ties going to fewer rewrites. What
  :class:`TrueScorer` and the CLI use. It runs in C++ when the compiled
  ``core.engine._truescore_core`` is built (``native/truescore_core.cpp``: the
  same edges in the same order, the same sums and the same tie rule, so the same
  bits and segments); :func:`best_derivation_reference` is the Python one, kept
  as the reference (``tests/test_truescore_native.py``).
* :func:`best_rules_log10`: the same backward recursion kept to the score (no
  derivation, no tie-breaking); for searches that score many candidates of
  one source and need the derivation of a few outputs only (MCPG,
  :mod:`core.engine.decoders.mcpg`).
* :func:`best_rules_log10_forward`: the same maximum run forward from
  ``(0, 0)``, ``fwd(j, l) = max fwd(i, k) + log10 p(s[i:j] -> t[k:l])``,
  expanding only cells reached from the start, so rules that cannot lie on a
  path from the start (most of a real table) are never touched. Its sums run
  in another order, so it agrees with the backward ones to rounding
  (~1e-15), not bit for bit.

``benchmarks/bench_truescore.py`` times the three side by side; the figures
are in ``evaldata/results/mcpg-profiles.md``.
"""

from __future__ import annotations

import math
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterable, NamedTuple

from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.model.truescore_paths import (
    RuleColumns,
    SegmentPath,
    TableRuleIndex,
    best_from_columns,
    index_from_table,
    rule_columns_toward,
)
from parastudio.core.engine.tables.binary_table_rows import mapped_buckets

try:
    from parastudio.core.engine import _truescore_core
except ImportError:  # not built: the Python dynamic program runs
    _truescore_core = None
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.scoring import DEFAULT_WEIGHTS, ScoreWeights, loglinear_log10
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule, identity_rule


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
    """Computes true scores against one table and LM, caching each source's rule index."""

    def __init__(
        self,
        table: ParaphraseTable,
        lm: LanguageModel | None = None,
        weights: ScoreWeights = DEFAULT_WEIGHTS,
        *,
        match_cache_size: int = 256,
        lm_cache: bool = True,
    ):
        """``match_cache_size``: how many sources' rule indexes are kept; ``lm_cache=False``: the LM's sentence
        cache left alone (a caller whose targets do not come again, such as generate's distinct n-best lists)."""
        self.table = table
        self.lm = lm
        self.lm_cache = lm_cache
        self.weights = weights
        self._indexes: OrderedDict[tuple[str, ...], SourceRuleIndex] = OrderedDict()
        self._cache_size = match_cache_size

    def source_index(self, source: tuple[str, ...]) -> "SourceRuleIndex":
        index = self._indexes.get(source)
        if index is None:
            for_target = getattr(self.table, "span_rules_for_target", None)
            buckets = mapped_buckets(self.table)  # a mapped binary table: the rules as columns, read in C++
            index = SourceRuleIndex(source, self.table.span_rules(source),
                                    toward=partial(for_target, source) if for_target is not None else None,
                                    columns=partial(rule_columns_toward, buckets, source) if buckets else None,
                                    from_table=partial(index_from_table, buckets, source) if buckets else None)
            self._indexes[source] = index
            if len(self._indexes) > self._cache_size:
                self._indexes.popitem(last=False)
        else:
            self._indexes.move_to_end(source)
        return index

    def score(self, source: Sequence[str], target: Sequence[str]) -> TrueScore:
        source = tuple(source)
        target = tuple(target)
        best = best_derivation(target, self.source_index(source))
        if best is None:
            return TrueScore(source, target, False, None, None, None, (), self.weights)
        rules_part, segments = best
        lm_part = (None if self.lm is None else self.lm.score(target) if self.lm_cache
                   else self.lm.score(target, cache=False))
        total = loglinear_log10(rules_part, lm_part, len(target), self.weights)
        return TrueScore(source, target, True, rules_part, lm_part, total, segments, self.weights)


class SourceRuleIndex:
    """The rules applicable to one source, keyed by the target phrase they produce.

    Built once per source; a target then only looks up its own n-grams
    (``len(target) * longest target phrase`` lookups) instead of testing every
    applicable rule.
    """

    def __init__(self, source: tuple[str, ...], span_rules: Iterable[tuple[int, int, Sequence[Rule]]],
                 toward: Callable[[tuple[str, ...]], Iterable[tuple[int, int, Sequence[Rule]]]] | None = None,
                 columns: Callable[[tuple[str, ...]], "RuleColumns | None"] | None = None,
                 from_table: Callable[[], TableRuleIndex | None] | None = None):
        """``span_rules`` is read when first needed; ``toward(target)``, when given, is the part of it
        :meth:`for_target` needs (ParaphraseTable.span_rules_for_target), ``columns(target)`` the same as numbers
        (:func:`~core.engine.model.truescore_paths.rule_columns_toward`; None when it cannot tell), ``from_table()``
        the compiled index read from a mapped binary table's arrays
        (:func:`~core.engine.model.truescore_paths.index_from_table`; None when it cannot tell)."""
        self.source = source
        self._span_rules = span_rules
        self._toward = toward
        self.columns_toward = columns
        self._from_table = from_table
        self._make_rule: Callable[[int, int, int], Rule] | None = None  # set when the index came from the table
        self._by_target: dict[tuple[str, ...], list[tuple[int, int, float, Rule]]] | None = None
        self._target_lengths: list[int] = []
        self.word_positions: dict[str, list[int]] = defaultdict(list)
        for i, word in enumerate(source):
            self.word_positions[word].append(i)
        self._by_start: list[dict[tuple[str, ...], list[tuple[int, float]]]] | None = None
        self._start_lengths: list[list[int]] = []
        self._native = None
        self.targets_scored = 0
        self.word_ids: dict[str, int] = {}
        self.rules: list[Rule] = []
        # (i, j, k, l, rule number) -> Segment: the n-best targets of one source share most of their segments,
        # and building a frozen Segment (and an identity Rule) costs more than the compiled search itself.
        self.segments: dict[tuple[int, int, int, int, int], Segment] = {}
        self._identity_rules: dict[str, Rule] = {}

    @property
    def by_target(self) -> dict[tuple[str, ...], list[tuple[int, int, float, Rule]]]:
        """``by_target[target phrase]``: ``(start, end, log10 p, rule)`` of its rules, by span then table order.

        Built on first use: a source whose only target is scored by the reference reads :meth:`for_target`.
        """
        if self._by_target is None:
            by_target = defaultdict(list)
            self._span_rules = list(self._span_rules)  # read once, whichever reader comes first
            for start, end, rules in self._span_rules:
                for rule in rules:
                    by_target[rule.target].append((start, end, rule.log10_prob, rule))
            self._target_lengths = sorted({len(target) for target in by_target})
            self._by_target = by_target
        return self._by_target

    @property
    def target_lengths(self) -> list[int]:
        """The lengths of the target phrases in :attr:`by_target`, increasing."""
        _ = self.by_target  # the property builds _target_lengths with it
        return self._target_lengths

    def for_target(self, target: tuple[str, ...]) -> "SourceRuleIndex | _TargetRules":
        """What :func:`best_derivation_reference` reads for ``target`` alone: the rules whose target is a
        contiguous part of it, each list as in :attr:`by_target` (so the same edges in the same order)."""
        if self._by_target is not None:
            return self
        m = len(target)
        wanted = {target[k:k + length] for length in range(m + 1) for k in range(m - length + 1)}
        by_target: dict[tuple[str, ...], list[tuple[int, int, float, Rule]]] = {}
        if self._toward is not None:
            spans = self._toward(target)
        else:
            spans = self._span_rules = list(self._span_rules)
        for start, end, rules in spans:
            for rule in rules:
                if rule.target in wanted:
                    hits = by_target.get(rule.target)
                    if hits is None:
                        hits = by_target[rule.target] = []
                    hits.append((start, end, rule.log10_prob, rule))
        return _TargetRules(self.source, by_target, sorted({len(t) for t in by_target}), self.word_positions)

    def segment(self, i: int, j: int, k: int, l: int, rule: int) -> Segment:
        if rule < 0:
            word = self.source[i]
            same = self._identity_rules.get(word) or self._identity_rules.setdefault(word, identity_rule(word))
            made = Segment(i, j, k, l, same, True)
        else:
            made = Segment(i, j, k, l, self._make_rule(rule, i, j) if self._make_rule is not None else self.rules[rule],
                           False)
        self.segments[(i, j, k, l, rule)] = made
        return made

    def native(self):
        """The compiled dynamic program's index of these rules (built on first use), or None without it."""
        if self._native is None and self._from_table is not None:
            # Read in C++ from the table's arrays: no Rule built but a read derivation's (was 3/4 of generate's
            # true scores).
            found = self._from_table()
            if found is not None:
                self._native, self._make_rule = found
        if self._native is None and _truescore_core is not None:
            ids = self.word_ids
            for word in self.source:
                ids.setdefault(word, len(ids))
            words, offsets, groups, starts, ends, log_ps = [], [0], [], [], [], []
            for group, (target, hits) in enumerate(self.by_target.items()):
                words.extend([ids.setdefault(word, len(ids)) for word in target])
                offsets.append(len(words))
                for start, end, log_p, rule in hits:
                    groups.append(group)
                    starts.append(start)
                    ends.append(end)
                    log_ps.append(log_p)
                    self.rules.append(rule)
            self._native = _truescore_core.RuleIndex([ids[word] for word in self.source], words, offsets, groups,
                                                     starts, ends, log_ps)
        return self._native

    @property
    def by_start(self) -> list[dict[tuple[str, ...], list[tuple[int, float]]]]:
        """``by_start[i][target phrase]``: ``(source end, log10 p)`` of the rules starting at ``i``.

        Built on first use: only :func:`best_rules_log10_forward` reads it.
        """
        if self._by_start is None:
            self._build_by_start()
        return self._by_start

    @property
    def start_lengths(self) -> list[list[int]]:
        """``start_lengths[i]``: the target lengths of the rules starting at ``i``, increasing."""
        if self._by_start is None:
            self._build_by_start()
        return self._start_lengths

    def _build_by_start(self) -> None:
        by_start: list[dict[tuple[str, ...], list[tuple[int, float]]]] = [{} for _ in self.source]
        for target, hits in self.by_target.items():
            for start, end, log_p, _ in hits:
                by_start[start].setdefault(target, []).append((end, log_p))
        self._start_lengths = [sorted({len(t) for t in entry}) for entry in by_start]
        self._by_start = by_start

    def rules_at_most_one(self) -> bool:
        """Whether every rule's probability is at most 1 (then ``P_LM(t)`` bounds the true score from above)."""
        return all(log_p <= 0.0 for hits in self.by_target.values() for _, _, log_p, _ in hits)


class _TargetRules(NamedTuple):
    """The part of a :class:`SourceRuleIndex` one target can use (see :meth:`SourceRuleIndex.for_target`)."""

    source: tuple[str, ...]
    by_target: dict[tuple[str, ...], list[tuple[int, int, float, Rule]]]
    target_lengths: list[int]
    word_positions: dict[str, list[int]]


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
    target: tuple[str, ...], index: SourceRuleIndex
) -> tuple[float, tuple[Segment, ...]] | None:
    """Best ``sum log10 p`` over disjoint rule sets turning ``index.source`` into ``target``.

    Returns ``(log10 of the best product, segments)`` or ``None`` if unreachable.
    Ties go to the derivation with fewer non-identity rules, then to the one
    found first, so results are deterministic. In C++ when it is built, else
    :func:`best_derivation_reference`; both give the same result.
    """
    index.targets_scored += 1
    # A source scored once (a one-off `parastudio truescore`) is not worth the compiled index's build.
    native = index.native() if index.targets_scored > 1 else None
    if native is None:
        columns = (index.columns_toward(target) if index.columns_toward is not None and index._by_target is None
                   and _truescore_core is not None else None)
        if columns is not None:  # a binary table's rules as numbers: the same program, no Rule built
            return best_from_columns(target, columns)
        return best_derivation_reference(target, index.for_target(target))
    if index._make_rule is not None:  # its words are interned in C++
        found = native.best_words(list(target))
    else:
        word_ids = index.word_ids
        found = native.best([word_ids.get(word, -1) for word in target])
    if found is None:
        return None
    score, path = found
    return score, SegmentPath(path, index)


def best_derivation_reference(
    target: tuple[str, ...], index: SourceRuleIndex
) -> tuple[float, tuple[Segment, ...]] | None:
    """:func:`best_derivation` in Python: the reference the compiled dynamic program is tested against."""
    source = index.source
    n, m = len(source), len(target)
    # edges[i]: (end in source, start in target, end in target, log10 p, changes, rule or None for identity)
    edges: list[list[tuple]] = [[] for _ in range(n)]
    word_positions = index.word_positions
    for k, word in enumerate(target):
        for i in word_positions.get(word, ()):
            edges[i].append((i + 1, k, k + 1, 0.0, 0, None))
    by_target = index.by_target
    for length in index.target_lengths:
        if length > m:
            break
        for k in range(m - length + 1):
            entries = by_target.get(target[k : k + length])
            if entries:
                for start, end, log_p, rule in entries:
                    edges[start].append((end, k, k + length, log_p, 1, rule))

    # best[(i, k)] = (log10 score, -changes, edge) of the best way to rewrite
    # source[i:] into target[k:]. Successors have a larger i, so fill i downwards.
    best: dict[tuple[int, int], tuple[float, int, tuple | None]] = {(n, m): (0.0, 0, None)}
    for i in range(n - 1, -1, -1):
        for edge in edges[i]:
            rest = best.get((edge[0], edge[2]))
            if rest is None:
                continue
            score = edge[3] + rest[0]
            changes = rest[1] - edge[4]
            current = best.get((i, edge[1]))
            if current is None or score > current[0] or (score == current[0] and changes > current[1]):
                best[(i, edge[1])] = (score, changes, edge)
    root = best.get((0, 0))
    if root is None:
        return None

    segments: list[Segment] = []
    i, k = 0, 0
    while (i, k) != (n, m):
        j, k_start, l, _, _, rule = best[(i, k)][2]
        if rule is None:
            segments.append(Segment(i, j, k_start, l, identity_rule(source[i]), True))
        else:
            segments.append(Segment(i, j, k_start, l, rule, False))
        i, k = j, l
    return root[0], tuple(segments)


def best_rules_log10(target: tuple[str, ...], index: SourceRuleIndex) -> float:
    """The score of :func:`best_derivation`, ``-inf`` when ``target`` is unreachable (backward, score only)."""
    n, m = len(index.source), len(target)
    edges: list[list[tuple[int, int, int, float]]] = [[] for _ in range(n)]
    by_target = index.by_target
    for length in index.target_lengths:
        if length > m:
            break
        for k in range(m - length + 1):
            hits = by_target.get(target[k : k + length])
            if hits:
                k_end = k + length
                for start, end, log_p, _ in hits:
                    edges[start].append((end, k, k_end, log_p))
    for k, word in enumerate(target):
        for i in index.word_positions.get(word, ()):
            edges[i].append((i + 1, k, k + 1, 0.0))
    unseen = -math.inf
    best = {(n, m): 0.0}
    for i in range(n - 1, -1, -1):
        for end, k, k_end, log_p in edges[i]:
            rest = best.get((end, k_end))
            if rest is not None:
                value = log_p + rest
                if value > best.get((i, k), unseen):
                    best[(i, k)] = value
    return best.get((0, 0), unseen)


def best_rules_log10_forward(target: tuple[str, ...], index: SourceRuleIndex) -> float:
    """The score of :func:`best_derivation` computed forward from ``(0, 0)`` (``-inf`` when unreachable).

    ``cells[j][l]`` is the best ``sum log10 p`` turning ``source[:j]`` into
    ``target[:l]``. Every edge moves the source position forward, so filling
    by increasing ``i`` is a topological order; a cell's successors are found
    through ``index.by_start[i]`` from the target words at the cell, so only
    reachable cells cost anything.
    """
    source = index.source
    n, m = len(source), len(target)
    unseen = -math.inf
    cells: list[dict[int, float]] = [{} for _ in range(n + 1)]
    cells[0][0] = 0.0
    by_start, start_lengths = index.by_start, index.start_lengths
    for i in range(n):
        row = cells[i]
        if not row:
            continue
        word = source[i]
        entry = by_start[i]
        lengths = start_lengths[i]
        for k, value in row.items():
            if k < m and target[k] == word:  # identity rule, log10 1 = 0
                following = cells[i + 1]
                if value > following.get(k + 1, unseen):
                    following[k + 1] = value
            for length in lengths:
                k_end = k + length
                if k_end > m:
                    break
                hits = entry.get(target[k:k_end])
                if hits:
                    for end, log_p in hits:
                        candidate = value + log_p
                        following = cells[end]
                        if candidate > following.get(k_end, unseen):
                            following[k_end] = candidate
    return cells[n].get(m, unseen)
