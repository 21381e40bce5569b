"""Algorithm 2 of seed 002 (§3.2): the pivot pattern aligned with an English pattern, and numbered slots.

Notation -> names: S_C -> ``pivot_words``; t_l -> ``pivot_words[l]``; w_k ->
English position ``k``; P_E(e) -> ``elements`` (``(k, None)`` for a pattern
word, ``(k, tag)`` for a slot); P_C -> :attr:`AlignedPattern.pivot`.

Algorithm 2 walks S_C in order; a pivot word aligned with a pattern word is
appended, and one aligned with a slot's word appends the slot. Where the
paper is silent we decide:

* a slot is written once, where its first aligned pivot word is (the paper
  pairs each English slot with one pivot slot, "each slot in P_E(e) is
  assigned the same number as its aligned slot in P_C");
* a pivot word aligned with both a pattern word and a slot's word appends the
  word, then the slot (the algorithm's order of lines 5 and 7);
* an English pattern with a slot no pivot word is aligned with, or whose
  pivot pattern has no word, gives no aligned pattern: its slots could not be
  numbered through P_C, and a pivot of slots alone would pair every pattern
  with every other.

Numbering (§3.2, Figure 3): the slots of P_C are numbered per tag from left to
right, and each English slot takes its pivot slot's number. The words a slot's
word governs (its filler, "market" in "market demand") are neither pattern
words nor slots, so pivot words aligned only with them are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from parastudio.core.vocabulary import slot_token

Element = tuple[int, "str | None"]  # (English position, slot tag or None for a pattern word)
PatternLink = tuple[int, int]  # (pivot pattern index, English pattern index), words only


@dataclass(frozen=True)
class AlignedPattern:
    """An English pattern and its pivot pattern, slots numbered through the pivot (seed 002 Figure 3)."""

    english: tuple[str, ...]
    pivot: tuple[str, ...]
    links: tuple[PatternLink, ...]  # pivot word index -> English word index, sorted


def aligned_pivot_pattern(elements: Sequence[Element], english_words: Sequence[str], pivot_words: Sequence[str],
                          links: Sequence[tuple[int, int]]) -> AlignedPattern | None:
    """Algorithm 2 for one English pattern; ``links`` are the sentence pair's (English, pivot) word links."""
    index_of = {position: index for index, (position, _) in enumerate(elements)}
    slot_tags = {position: tag for position, tag in elements if tag is not None}
    by_pivot: dict[int, list[int]] = {}
    for english, pivot in links:
        if english in index_of:
            by_pivot.setdefault(pivot, []).append(english)
    pivot_items: list[tuple[str, str | None]] = []  # (word or tag, None for a word / the slot's English position)
    pattern_links: list[PatternLink] = []
    emitted: set[int] = set()
    for pivot in sorted(by_pivot):
        aligned = sorted(by_pivot[pivot])
        words = [k for k in aligned if k not in slot_tags]
        if words:
            pattern_links.extend((len(pivot_items), index_of[k]) for k in words)
            pivot_items.append((pivot_words[pivot], None))
        for k in aligned:
            if k in slot_tags and k not in emitted:
                emitted.add(k)
                pivot_items.append((slot_tags[k], k))
    if len(emitted) != len(slot_tags) or len(emitted) == len(pivot_items):
        return None
    numbers: dict[str, int] = {}
    pivot_tokens, number_of_slot = [], {}
    for text, slot in pivot_items:
        if slot is None:
            pivot_tokens.append(text)
        else:
            numbers[text] = numbers.get(text, 0) + 1
            number_of_slot[slot] = numbers[text]
            pivot_tokens.append(slot_token(text, numbers[text]))
    english_tokens = tuple(english_words[k] if tag is None else slot_token(tag, number_of_slot[k])
                           for k, tag in elements)
    return AlignedPattern(english_tokens, tuple(pivot_tokens), tuple(sorted(pattern_links)))
