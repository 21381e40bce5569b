"""Seed 001's sorters (§3.4.4.4, §5.1): LMBS, CDBS and the feedback sorter UFBS.

Sorters are stable: suggestions a sorter cannot tell apart keep the order the
previous stage gave them (FSM score order to begin with).
"""

from __future__ import annotations

import warnings

import Levenshtein

from parastudio.core.engine.decoders.cat.stages import Sorter, SuggestContext, Suggestion


def lmbs(suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]:
    """Language Model Based Sorter: the LM's score of the whole sentence with the selection replaced, best first."""
    if context.lm is None:
        return list(suggestions)
    scored = [s.with_lm(context.lm.score(context.with_replacement(s.words))) for s in suggestions]
    return sorted(scored, key=lambda s: -s.lm_score)


def load_clustering() -> None:
    """Import SciPy's k-means now (about half a second the first time), so that a request's time is its own."""
    import scipy.cluster.vq  # noqa: F401


def word_distance(a, b) -> int:
    """Levenshtein distance with words as the atomic units."""
    return Levenshtein.distance(list(a), list(b))


def clusters(suggestions: list[Suggestion], k: int, *, seed: int = 0) -> list[int]:
    """A cluster label per suggestion: k-means (SciPy, as seed 001) on each suggestion's vector of word
    distances to every suggestion (k-means needs points; these embed the word distance)."""
    import numpy as np  # here, not at import: the CLI registers its commands without numpy
    from scipy.cluster.vq import kmeans2

    n = len(suggestions)
    if n <= k:
        return list(range(n))
    points = np.array([[word_distance(a.words, b.words) for b in suggestions] for a in suggestions], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "One of the clusters is empty": the labels are still a clustering
        try:
            _, labels = kmeans2(points, k, minit="++", rng=np.random.default_rng(seed))
        except TypeError:  # SciPy before 1.15 names it seed
            _, labels = kmeans2(points, k, minit="++", seed=np.random.default_rng(seed))
    return [int(label) for label in labels]


def cdbs(suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]:
    """Cluster Diversity Based Sorter: k = the number of suggestions shown; clusters in the order of their first
    item, the output built by taking the next item of each cluster in turn, order within a cluster kept."""
    labels = clusters(suggestions, context.top)
    groups: dict[int, list[Suggestion]] = {}
    for label, suggestion in zip(labels, suggestions):
        groups.setdefault(label, []).append(suggestion)  # dicts keep first-seen order: clusters by first item
    ordered: list[Suggestion] = []
    queues = list(groups.values())
    depth = 0
    while len(ordered) < len(suggestions):
        for queue in queues:
            if depth < len(queue):
                ordered.append(queue[depth])
        depth += 1
    return ordered


def ufbs(suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]:
    """User Feedback Based Sorter ("more like this", §5.1): closest to the feedback phrase first, by string
    distance, then word distance. Without feedback the order is kept."""
    if context.feedback is None:
        return list(suggestions)
    feedback = context.feedback
    text = " ".join(feedback)
    return sorted(suggestions, key=lambda s: (Levenshtein.distance(s.text, text), word_distance(s.words, feedback)))


SORTERS: dict[str, Sorter] = {"LMBS": lmbs, "CDBS": cdbs, "UFBS": ufbs}
