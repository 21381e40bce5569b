"""Whether a translation table can spell a gold phrase from a stretch of source words (issue 26, item 3).

The first question of an honest account of seed 001's automatic evaluation
(§4.1.2): before a search graph is built, could the decoder have produced the
gold at all? A gold is *spellable* from source ``[low, high)`` when some
monotone segmentation of those words into phrases of the table has target
sides that, joined, are the gold (both compared as the paraphraser compares
suggestions: lowercase, punctuation removed). Reordering is not tried: the
round trip's decoder is monotone (distortion limit 0).

Only the phrases the asked stretches contain are kept from the table, so a
table of millions of lines is read once in a stream and held as a small dict.
"""

from __future__ import annotations

import os
from typing import Iterable, Sequence

from parastudio.core.engine.decoders.cat.stages import strip_punctuation
from parastudio.core.errors import InputFormatError
from parastudio.core.textio import read_lines

MAX_PHRASE = 7  # Moses' default maximum phrase length, the tables' own


def _key(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(w.lower() for w in strip_punctuation(words))


def needed_phrases(stretches: Iterable[Sequence[str]], max_phrase: int = MAX_PHRASE) -> set[str]:
    """Every source phrase (space-joined) of at most ``max_phrase`` words inside the stretches."""
    wanted: set[str] = set()
    for words in stretches:
        for i in range(len(words)):
            for j in range(i + 1, min(len(words), i + max_phrase) + 1):
                wanted.add(" ".join(words[i:j]))
    return wanted


def read_targets(path: str | os.PathLike, wanted: set[str]) -> dict[str, set[tuple[str, ...]]]:
    """``source phrase -> normalized target sides`` of a Moses table (``src ||| tgt ||| ...``), for ``wanted``."""
    targets: dict[str, set[tuple[str, ...]]] = {}
    for number, line in read_lines(path):
        if not line.strip():
            continue
        fields = line.split(" ||| ", 2)
        if len(fields) < 2:
            raise InputFormatError(str(path), number, "source ||| target ||| scores", line[:80])
        source = " ".join(fields[0].split())
        if source in wanted:
            targets.setdefault(source, set()).add(_key(fields[1].split()))
    return targets


def spellable(source: Sequence[str], gold: Sequence[str], targets: dict[str, set[tuple[str, ...]]],
              max_phrase: int = MAX_PHRASE) -> bool:
    """Whether phrases of ``targets`` segmenting all of ``source`` in order spell ``gold`` (normalized)."""
    goal = _key(gold)
    reached = {(0, 0)}
    for i in range(len(source)):
        states = sorted(done for at, done in reached if at == i)
        for j in range(i + 1, min(len(source), i + max_phrase) + 1):
            for target in targets.get(" ".join(source[i:j]), ()):
                for done in states:
                    if goal[done:done + len(target)] == target:
                        reached.add((j, done + len(target)))
    return (len(source), len(goal)) in reached
