"""Algorithm 1 of seed 002 (§3.1-3.2, §4): the English patterns of a parsed sentence.

Notation -> names: ST_E(e) -> ``parse.subtree(root)``; PST_E(e) -> ``kept``
(a connected set of words holding ``root``); P_E(e) -> :class:`PatternInstance`.

For every word e whose subtree ST(e) has at most ``MAX_SUBTREE_WORDS`` words
(§4: "only subtrees containing no more than 10 words were used") and every
partial subtree PST(e) (all of them, footnote 1), Algorithm 1 walks ST(e) in
sentence order and keeps a word of PST(e), or writes the POS of a word outside
it. The simplification step then removes a slot whose word descends from
another slot's word (§3.2), which leaves exactly one slot per *frontier* word:
a word outside PST(e) whose head is in it; the slot stands for that word's
whole subtree (its *filler*). The paper's constraints (§4) are applied:

* a slot's tag must be a noun, verb or adjective tag (:mod:`.slots`); a
  partial subtree that would leave another tag as a slot gives no pattern;
* the pattern holds at least one content word;
* and, ours: at least one slot (PST(e) = ST(e) is a phrase, not a pattern;
  the paper's patterns all have slots, its Table 4 counts 1, 2 and >= 3) and
  a subtree that is one contiguous span (a non-projective arc would make the
  pattern's words not a phrase of the sentence).

Slots are numbered per tag from left to right (``take [NN_1] into
consideration``); seed 002 numbers them through the aligned pivot pattern,
which :mod:`core.tablebuild.patterns` does when it pairs patterns.

The parse is first put in the paper's parser's shape (:mod:`.verb_groups`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse
from parastudio.core.engine.tables.patterns.slots import CONTENT_TAGS, SLOT_TAGS
from parastudio.core.engine.tables.patterns.verb_groups import auxiliary_headed
from parastudio.core.vocabulary import slot_token

MAX_SUBTREE_WORDS = 10


@dataclass(frozen=True)
class PatternInstance:
    """One English pattern P_E(e) where it occurs in a sentence.

    ``elements`` are the pattern's items in order: ``(position, None)`` for a
    word of PST(e), ``(position, tag)`` for a slot (``position`` is its
    frontier word). ``fillers[k]`` are the positions of the k-th slot's
    subtree. ``span`` is ST(e) as ``[start, end)``.
    """

    root: int
    span: tuple[int, int]
    elements: tuple[tuple[int, str | None], ...]
    fillers: tuple[tuple[int, ...], ...]
    words: tuple[str, ...]  # the sentence's words

    @property
    def tokens(self) -> tuple[str, ...]:
        """The pattern with its slots numbered per tag, left to right."""
        numbers: dict[str, int] = {}
        tokens = []
        for position, tag in self.elements:
            if tag is None:
                tokens.append(self.words[position])
            else:
                numbers[tag] = numbers.get(tag, 0) + 1
                tokens.append(slot_token(tag, numbers[tag]))
        return tuple(tokens)

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    @property
    def unnumbered(self) -> str:
        """Algorithm 1's own output after simplification: ``take NN into consideration``."""
        return " ".join(self.words[p] if tag is None else tag for p, tag in self.elements)

    def filler_words(self) -> dict[str, tuple[str, ...]]:
        """The words each numbered slot stands for in this sentence."""
        slots = [token for token in self.tokens if token.startswith("[")]
        return {slot: tuple(self.words[p] for p in positions) for slot, positions in zip(slots, self.fillers)}


def _partial_subtrees(parse: DependencyParse, node: int, memo: dict) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every connected word set rooted at ``node`` whose frontier words all have slot tags: (kept, frontier)."""
    if node in memo:
        return memo[node]
    choices = []
    for child in parse.children[node]:
        options = [((child,) + kept, frontier) for kept, frontier in _partial_subtrees(parse, child, memo)]
        if parse.tags[child] in SLOT_TAGS:
            options.append(((), (child,)))
        choices.append(options)
    found = []
    for combination in product(*choices):
        kept = (node,) + tuple(p for part, _ in combination for p in part)
        frontier = tuple(p for _, part in combination for p in part)
        found.append((kept, frontier))
    memo[node] = found
    return found


def induce_patterns(parse: DependencyParse, *, max_subtree_words: int = MAX_SUBTREE_WORDS,
                    reshape: bool = True) -> list[PatternInstance]:
    """Every English pattern of ``parse`` (Algorithm 1 with simplification and §4's constraints).

    ``reshape`` re-heads verb groups first (:mod:`.verb_groups`); a parse made
    by hand in the paper's shape may skip it.
    """
    if reshape:
        parse = auxiliary_headed(parse)
    patterns: list[PatternInstance] = []
    memo: dict = {}
    sizes = parse.subtree_sizes  # only the small subtrees are built: a long sentence's big ones never are
    for root in range(len(parse)):
        if sizes[root] > max_subtree_words:
            continue
        subtree = parse.subtree(root)
        if subtree[-1] - subtree[0] + 1 != len(subtree):
            continue
        for kept, frontier in _partial_subtrees(parse, root, memo):
            if not frontier or not any(parse.tags[p] in CONTENT_TAGS for p in kept):
                continue
            kept_set, frontier_set = set(kept), set(frontier)
            elements = tuple((p, None) if p in kept_set else (p, parse.tags[p])
                             for p in subtree if p in kept_set or p in frontier_set)
            fillers = tuple(parse.subtree(p) for p, tag in elements if tag is not None)
            patterns.append(PatternInstance(root, (subtree[0], subtree[-1] + 1), elements, fillers, parse.words))
    return patterns
