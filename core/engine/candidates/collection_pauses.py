"""Fewer garbage-collector passes while a long loop builds objects that live to the end.

A decoder keeps what it builds (rules read from a mapped table, scored
options, rule indexes): CPython's cycle collector scans those again and again,
and on the 100 demo verses at stack 5 it took about a third of a whole
``generate`` (docs/BENCHMARKS.md, "A whole generate beside Moses"). Objects
loaded before the loop are frozen (never scanned again) and the youngest
generation is collected less often; both are undone on exit. Nothing here
changes a result: cycles are still collected, only later.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

# Allocations between two young-generation passes (CPython's default is 700).
YOUNG_THRESHOLD = 50_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
