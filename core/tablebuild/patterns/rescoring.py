"""A pattern table scored again under new weights λ and threshold T (seed 002 §3.4), and its statistics.

The table keeps every pivot's h1..h4, so Eq. 3 under any λ needs no corpus:
:func:`rescore_table` rewrites the score field, keeps the pairs whose ln score
exceeds T, re-sorts each e1's pairs and writes a new sidecar. λ = (1, 1, 0, 0)
gives the MLE-model (Eq. 1).

:func:`table_stats` counts what seed 002 §4 reports: pairs (#PP), distinct
patterns, and the pairs by number and kind of slots (Tables 4 and 5).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterator, Sequence

from parastudio.core.tablebuild.patterns.scoring import KEEP_ALL, extracted, log_score
from parastudio.core.tablebuild.patterns.table_file import (
    PatternPair,
    read_meta,
    read_table,
    scored_pair,
    sidecar_path,
    write_table,
)
from parastudio.core.vocabulary import parse_slot

_KINDS = {"N": ("NN", "NNS", "NNP", "NNPS"), "V": ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ"), "J": ("JJ", "JJR", "JJS")}
KIND_OF_TAG = {tag: kind for kind, tags in _KINDS.items() for tag in tags}


def rescored(pairs: Iterator[PatternPair], lambdas: Sequence[float], threshold: float) -> Iterator[PatternPair]:
    """Pairs (in e1 order) scored under ``lambdas``, filtered by ``threshold``, each e1's pairs re-sorted."""
    group: list[tuple[float, PatternPair]] = []  # (ln score, pair): sorted on the exact value, not the capped score
    current = None
    for pair in pairs:
        if pair.e1 != current and group:
            yield from (p for _, p in sorted(group, key=lambda item: (-item[0], item[1].e2)))
            group = []
        current = pair.e1
        value = log_score(pair.features, lambdas)
        if extracted(value, threshold):
            group.append((value, scored_pair(pair.e1, pair.e2, list(zip(pair.pivots, pair.features)), lambdas)))
    yield from (p for _, p in sorted(group, key=lambda item: (-item[0], item[1].e2)))


def rescore_table(table: Path, output: Path, *, lambdas: Sequence[float], threshold: float = KEEP_ALL,
                  compresslevel: int = 6, inputs=()) -> dict:
    meta = read_meta(table)
    lambdas = [float(value) for value in lambdas]
    written = write_table(rescored(read_table(table), lambdas, threshold), output,
                          {**{k: v for k, v in meta.items() if k not in ("format", "features", "pairs")},
                           "lambdas": lambdas, "threshold": threshold, "rescored_from": str(table),
                           "rescored_from_lambdas": meta.get("lambdas"), "rescored_from_threshold": meta.get("threshold")},
                          compresslevel=compresslevel, inputs=[table, sidecar_path(table), *inputs])
    return {"input": str(table), "output": str(output), "lambdas": lambdas, "threshold": threshold, "pairs": written}


def table_stats(table: Path) -> dict:
    """#PP, distinct e1 and e2, pivots per pair, and the pairs by slot count and slot kind (seed 002 Tables 4, 5)."""
    pairs = 0
    e1s, e2s = set(), set()
    pivots = 0
    by_slots: Counter = Counter()
    by_kind: Counter = Counter()
    for pair in read_table(table):
        pairs += 1
        e1s.add(pair.e1)
        e2s.add(pair.e2)
        pivots += len(pair.pivots)
        slots = [parse_slot(token) for token in pair.e1.split()]
        slots = [slot for slot in slots if slot is not None]
        by_slots["1-slot" if len(slots) == 1 else "2-slots" if len(slots) == 2 else ">=3-slots"] += 1
        for kind in sorted({KIND_OF_TAG.get(tag, "other") for tag, _ in slots}):
            by_kind[f"{kind}-slots"] += 1
    meta = read_meta(table)
    return {"table": str(table), "pairs": pairs, "distinct_e1": len(e1s), "distinct_e2": len(e2s),
            "mean_pivots_per_pair": pivots / pairs if pairs else 0.0,
            "pairs_by_slot_count": dict(sorted(by_slots.items())), "pairs_by_slot_kind": dict(sorted(by_kind.items())),
            "lambdas": meta.get("lambdas"), "threshold": meta.get("threshold")}
