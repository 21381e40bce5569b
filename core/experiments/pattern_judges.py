"""Scripted judges of pattern pairs: what a program can say about them, and what it cannot.

Neither function replaces seed 002's human judges (§3.4: "two patterns are
regarded as paraphrase patterns if they can generate paraphrase fragments by
filling the corresponding slots with identical words"); the results file says
so next to every number they give.

* :func:`scripted_type` sorts a pair into seed 002's five types (§4.4, Table 3)
  from its strings alone: which content words the two patterns share, and
  whether anything moved (the shared items, slots and content words, come in
  another order, or a slot has another number of content words before it).
  It does not know whether the pair is correct; seed 002 types correct pairs
  only. On Table 3's five examples it gives Table 3's five types.
* :class:`KjvAttestation` checks a pair against a second English translation of
  the same verse: the pair is *attested* when, in some training verse, e1
  occurs in the WEB text and e2 filled with the same slot words occurs in the
  KJV text of that verse. Attestation is evidence of a correct pair, its
  absence is not evidence of a wrong one (the KJV words its verses its own
  way), so attestation rates compare models and are not precisions.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, Sequence

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse
from parastudio.core.engine.tables.patterns.induction import induce_patterns
from parastudio.core.vocabulary import is_slot

# Function words: what a "trivial change" may add, drop or swap (§4.4: "changes of prepositions and articles").
FUNCTION_WORDS = frozenset(
    "a an the of to in on at by for with from into onto upon unto as and or but nor that which who whom whose "
    "this these those there here it its 's ' , . ; : ! ? \" be is are was were been am do does did have has had "
    "shall will would should may might must can could not no so then than also".split())


def _content(tokens: Sequence[str]) -> list[str]:
    return [t for t in tokens if not is_slot(t) and t not in FUNCTION_WORDS and any(c.isalpha() for c in t)]


def _order(tokens: Sequence[str], shared: set[str]) -> list[str]:
    seen: Counter = Counter()
    order = []
    for token in tokens:
        if is_slot(token) or token in shared:
            seen[token] += 1
            order.append(f"{token}#{seen[token]}")
    return order


def _words_before_slots(tokens: Sequence[str]) -> dict[str, int]:
    before, count = {}, 0
    for token in tokens:
        if is_slot(token):
            before[token] = count
        elif token not in FUNCTION_WORDS and any(c.isalpha() for c in token):
            count += 1
    return before


def scripted_type(e1: str, e2: str) -> str:
    """One of trivial, replacement, reordering, structural, information (seed 002 Table 3's types)."""
    first, second = e1.split(), e2.split()
    content1, content2 = Counter(_content(first)), Counter(_content(second))
    shared = set(content1) & set(content2)
    kept_order = [item for item in _order(first, shared) if item in set(_order(second, shared))]
    other_order = [item for item in _order(second, shared) if item in set(kept_order)]
    reordered = kept_order != other_order or _words_before_slots(first) != _words_before_slots(second)
    if content1 == content2:
        return "reordering" if reordered else "trivial"
    if not reordered and ((content1 - content2 and not content2 - content1) or
                          (content2 - content1 and not content1 - content2)):
        return "information"
    return "structural" if reordered else "replacement"


class KjvAttestation:
    """Pairs whose e2, filled with e1's slot words in a WEB verse, occurs in the KJV text of the same verse."""

    def __init__(self, wanted: dict[str, list[str]]):
        self.wanted = wanted  # e1 -> its e2s
        self.attested: set[tuple[str, str]] = set()
        self.e1_seen: Counter = Counter()

    def add_verse(self, parse: DependencyParse, kjv: Sequence[str]) -> None:
        text = f" {' '.join(kjv)} "
        for instance in induce_patterns(parse):
            e1 = instance.text
            targets = self.wanted.get(e1)
            if not targets:
                continue
            self.e1_seen[e1] += 1
            fillers = instance.filler_words()
            for e2 in targets:
                if (e1, e2) in self.attested:
                    continue
                words = [w for token in e2.split() for w in (fillers[token] if is_slot(token) else (token,))]
                if f" {' '.join(words)} " in text:
                    self.attested.add((e1, e2))

    @classmethod
    def over(cls, pairs: Iterable[tuple[str, str]], parses: Iterable[DependencyParse],
             kjv_verses: Iterable[Sequence[str]]) -> "KjvAttestation":
        wanted: dict[str, list[str]] = defaultdict(list)
        for e1, e2 in pairs:
            wanted[e1].append(e2)
        judge = cls(dict(wanted))
        for parse, kjv in zip(parses, kjv_verses):
            judge.add_verse(parse, kjv)
        return judge
