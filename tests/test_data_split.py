"""The held-out split: exact sizes, whole chapters held out, fixed by the seed."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.evaldata.corpus_split import chapter_of, split_by_chapter, training_refs


def corpus(chapter_sizes: list[int]) -> list[str]:
    return [f"Bk.{chapter}.{verse}" for chapter, size in enumerate(chapter_sizes, 1) for verse in range(1, size + 1)]


def reference_split(refs, seed, test_size, dev_size, min_test, min_dev):
    """Independent restatement of the documented procedure, for comparison."""
    chapters = []
    for ref in refs:
        if chapter_of(ref) not in chapters:
            chapters.append(chapter_of(ref))
    rng = random.Random(seed)
    rng.shuffle(chapters)
    picked, parts, index = [], [], 0
    for size, minimum in ((test_size, min_test), (dev_size, min_dev)):
        pool = []
        while sum(1 for ref in refs if chapter_of(ref) in pool) < size or len(pool) < minimum:
            pool.append(chapters[index])
            index += 1
        verses = [ref for ref in refs if chapter_of(ref) in pool]
        drawn = set(rng.sample(verses, size))
        parts.append([ref for ref in refs if ref in drawn])
        picked += pool
    return parts[0], parts[1], set(picked)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=30, max_size=80), st.integers(0, 10_000))
def test_matches_the_documented_procedure(sizes, seed):
    refs = corpus(sizes)
    test_size, dev_size = 20, 60
    assume(len(refs) >= 200)
    split = split_by_chapter(refs, seed=seed, test_size=test_size, dev_size=dev_size, min_test_chapters=3,
                             min_dev_chapters=5)
    test, dev, heldout = reference_split(refs, seed, test_size, dev_size, 3, 5)
    assert split.test == test and split.dev == dev and set(split.heldout_chapters) == heldout
    assert len(split.test) == test_size and len(split.dev) == dev_size
    assert not set(split.test) & set(split.dev)
    assert {chapter_of(ref) for ref in split.test}.isdisjoint({chapter_of(ref) for ref in split.dev})
    train = training_refs(refs, split, [])
    assert all(chapter_of(ref) not in heldout for ref in train)
    assert len(train) + sum(1 for ref in refs if chapter_of(ref) in heldout) == len(refs)


def test_same_seed_same_split_other_seed_other_split():
    refs = corpus([25] * 200)
    assert split_by_chapter(refs, seed=0).test == split_by_chapter(refs, seed=0).test
    assert split_by_chapter(refs, seed=0).test != split_by_chapter(refs, seed=1).test


def test_minimum_chapter_counts():
    split = split_by_chapter(corpus([150] * 60), seed=3, min_test_chapters=10, min_dev_chapters=20)
    assert split.procedure["test_chapters"] == 10 and split.procedure["dev_chapters"] == 20
    assert len({chapter_of(ref) for ref in split.test}) > 1


def test_training_drops_verses_whose_text_equals_a_heldout_verse():
    refs = corpus([5] * 40)
    split = split_by_chapter(refs, seed=0, test_size=5, dev_size=10, min_test_chapters=1, min_dev_chapters=1)
    heldout_ref = next(ref for ref in refs if split.is_heldout(ref))
    english = {ref: f"text of {ref}" for ref in refs}
    spanish = {ref: f"texto de {ref}" for ref in refs}
    train_refs = [ref for ref in refs if not split.is_heldout(ref)]
    english[train_refs[0]] = english[heldout_ref]  # a formulaic verse repeated elsewhere
    spanish[train_refs[1]] = spanish[heldout_ref]
    kept = training_refs(refs, split, [english, spanish])
    assert kept == train_refs[2:]


def test_too_small_corpus_is_an_error():
    with pytest.raises(ValueError, match="not enough verses"):
        split_by_chapter(corpus([10] * 5), test_size=20, dev_size=100)
