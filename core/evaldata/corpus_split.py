"""The held-out split, fixed before anything is trained: test (100 verses), dev (1,000 verses), train.

The exact procedure (``split_by_chapter``), with ``seed`` = 0 unless told otherwise:

1. Candidate verses are those present (non-empty) in all three texts; a chapter
   (``Gen.1`` for ``Gen.1.1``) is a candidate if it holds at least one. Chapters
   are listed in canonical order and shuffled once with ``random.Random(seed)``.
2. Test: walk the shuffled chapters, adding each to the test pool, until the
   pool holds at least ``test_size`` candidate verses and at least
   ``min_test_chapters`` chapters (so 100 verses do not all come from one
   genealogy). ``rng.sample`` draws exactly ``test_size`` verses from the pool's
   candidate verses in canonical order.
3. Dev: continue the walk with the same generator until the dev pool holds at
   least ``dev_size`` candidate verses and ``min_dev_chapters`` chapters; draw
   exactly ``dev_size`` the same way.
4. Every verse of a test or dev chapter is held out, sampled or not and in every
   text, so neighbouring verses never reach training.
5. Train is every other verse; a training verse whose text (in any of the three
   languages, after tokenization) equals the text of a held-out verse in that
   language is dropped too, so formulaic verses ("Yahweh spoke to Moses,
   saying,") cannot leak a held-out sentence into a table or the LM.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Mapping, Sequence


def chapter_of(ref: str) -> str:
    """``Gen.1.1`` -> ``Gen.1``."""
    return ref.rsplit(".", 1)[0]


@dataclass(frozen=True)
class Split:
    """Verse references of each part, in canonical order."""

    test: list[str]
    dev: list[str]
    heldout_chapters: list[str]
    seed: int
    procedure: dict = field(default_factory=dict)

    def is_heldout(self, ref: str) -> bool:
        return chapter_of(ref) in self._heldout_set

    @property
    def _heldout_set(self) -> frozenset[str]:
        cached = self.__dict__.get("_heldout_cache")
        if cached is None:
            cached = frozenset(self.heldout_chapters)
            object.__setattr__(self, "_heldout_cache", cached)
        return cached


def _take_pool(chapters: Sequence[str], start: int, verses_by_chapter: Mapping[str, list[str]],
               size: int, min_chapters: int) -> tuple[list[str], int]:
    pool: list[str] = []
    verse_count = 0
    index = start
    while index < len(chapters) and (verse_count < size or len(pool) < min_chapters):
        pool.append(chapters[index])
        verse_count += len(verses_by_chapter[chapters[index]])
        index += 1
    if verse_count < size:
        raise ValueError(f"not enough verses for a held-out set of {size}: only {verse_count} left")
    return pool, index


def split_by_chapter(candidate_refs: Sequence[str], *, seed: int = 0, test_size: int = 100, dev_size: int = 1000,
                     min_test_chapters: int = 10, min_dev_chapters: int = 50) -> Split:
    """Draw the test and dev verses from ``candidate_refs`` (canonical order) as the module docstring says."""
    verses_by_chapter: dict[str, list[str]] = {}
    for ref in candidate_refs:
        verses_by_chapter.setdefault(chapter_of(ref), []).append(ref)
    chapters = list(verses_by_chapter)
    rng = random.Random(seed)
    rng.shuffle(chapters)
    order = {ref: position for position, ref in enumerate(candidate_refs)}

    def draw(pool: list[str], size: int) -> list[str]:
        # Pool verses in canonical order, so the draw depends only on the seed.
        verses = sorted((ref for chapter in pool for ref in verses_by_chapter[chapter]), key=order.__getitem__)
        return sorted(rng.sample(verses, size), key=order.__getitem__)

    test_pool, next_index = _take_pool(chapters, 0, verses_by_chapter, test_size, min_test_chapters)
    test = draw(test_pool, test_size)
    dev_pool, _ = _take_pool(chapters, next_index, verses_by_chapter, dev_size, min_dev_chapters)
    dev = draw(dev_pool, dev_size)
    chapter_order = {chapter: position for position, chapter in enumerate(verses_by_chapter)}
    heldout = sorted(test_pool + dev_pool, key=chapter_order.__getitem__)
    procedure = {"seed": seed, "test_size": test_size, "dev_size": dev_size, "min_test_chapters": min_test_chapters,
                 "min_dev_chapters": min_dev_chapters, "test_chapters": len(test_pool), "dev_chapters": len(dev_pool),
                 "candidate_verses": len(candidate_refs), "candidate_chapters": len(chapters)}
    return Split(test=test, dev=dev, heldout_chapters=heldout, seed=seed, procedure=procedure)


def training_refs(refs: Sequence[str], split: Split, texts: Sequence[Mapping[str, str]]) -> list[str]:
    """``refs`` minus held-out chapters minus verses whose text equals a held-out verse's text.

    ``texts`` are the tokenized texts of each language; a ref absent from one of them is simply not compared there.
    """
    heldout_texts = [{text[ref] for ref, in_heldout in ((r, split.is_heldout(r)) for r in text) if in_heldout}
                     for text in texts]
    kept = []
    for ref in refs:
        if split.is_heldout(ref):
            continue
        if any(ref in text and text[ref] in seen for text, seen in zip(texts, heldout_texts)):
            continue
        kept.append(ref)
    return kept
