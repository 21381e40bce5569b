"""A dependency tree over the project's tokens: words, fine-grained POS tags, heads and labels.

The parse's tokens are the project's tokens one to one (tables, alignments and
LMs index the same positions). ``heads[i]`` is the 0-based position of word
``i``'s head, ``-1`` for a root; a verse of several sentences has several roots.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

ROOT = -1


@dataclass(frozen=True)
class DependencyParse:
    words: tuple[str, ...]
    tags: tuple[str, ...]
    heads: tuple[int, ...]
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        n = len(self.words)
        if not (len(self.tags) == len(self.heads) == len(self.labels) == n):
            raise ValueError(f"a parse needs one tag, head and label per word: {n} words, {len(self.tags)} tags, "
                             f"{len(self.heads)} heads, {len(self.labels)} labels")
        for position, head in enumerate(self.heads):
            if head != ROOT and not 0 <= head < n or head == position:
                raise ValueError(f"word {position} has head {head}; expected -1 or another word's position in 0..{n - 1}")
        # Every chain of heads ends at a root: no cycle. Each word is walked once (a chain of 12,000 words
        # walked from every word took minutes, issue 39): a chain that reaches a word already known to end at a
        # root stops there.
        ends_at_root = [False] * n
        for position in range(n):
            chain, on_chain, node = [], set(), position
            while node != ROOT and not ends_at_root[node]:
                if node in on_chain:
                    cycle = chain[chain.index(node):]
                    raise ValueError(f"the heads of words {sorted(cycle)} form a cycle")
                chain.append(node)
                on_chain.add(node)
                node = self.heads[node]
            for member in chain:
                ends_at_root[member] = True

    @classmethod
    def of(cls, words: Sequence[str], tags: Sequence[str], heads: Sequence[int], labels: Sequence[str]) -> "DependencyParse":
        return cls(tuple(words), tuple(tags), tuple(int(h) for h in heads), tuple(labels))

    def __len__(self) -> int:
        return len(self.words)

    @cached_property
    def children(self) -> tuple[tuple[int, ...], ...]:
        """The dependents of each word, in sentence order."""
        found: list[list[int]] = [[] for _ in self.words]
        for position, head in enumerate(self.heads):
            if head != ROOT:
                found[head].append(position)
        return tuple(tuple(c) for c in found)

    @cached_property
    def subtrees(self) -> tuple[tuple[int, ...], ...]:
        """ST(e) of every word e (seed 002 §3.1): e and all its descendants, in sentence order.

        Children before their heads, without recursion: a parse as deep as its sentence is long (a chain of
        12,000 words) would pass Python's recursion limit (issue 39)."""
        result: list[tuple[int, ...]] = [()] * len(self.words)
        for node in reversed(self._heads_first()):
            members = [node]
            for child in self.children[node]:
                members.extend(result[child])
            result[node] = tuple(sorted(members))
        return tuple(result)

    @cached_property
    def subtree_sizes(self) -> tuple[int, ...]:
        """|ST(e)| of every word e, in time linear in the sentence (no subtree is built)."""
        sizes = [1] * len(self.words)
        for node in reversed(self._heads_first()):
            if self.heads[node] != ROOT:
                sizes[self.heads[node]] += sizes[node]
        return tuple(sizes)

    def subtree(self, node: int) -> tuple[int, ...]:
        """ST(node) alone (``subtrees[node]``), without building every word's."""
        members = [node]
        for member in members:  # grows as it is read
            members.extend(self.children[member])
        return tuple(sorted(members))

    def _heads_first(self) -> list[int]:
        """Every word after its head (breadth first from the roots)."""
        order = [position for position, head in enumerate(self.heads) if head == ROOT]
        for node in order:  # grows as it is read
            order.extend(self.children[node])
        return order

    def is_descendant(self, node: int, ancestor: int) -> bool:
        node = self.heads[node]
        while node != ROOT:
            if node == ancestor:
                return True
            node = self.heads[node]
        return False

    def to_json(self) -> dict:
        return {"words": list(self.words), "tags": list(self.tags), "heads": list(self.heads),
                "labels": list(self.labels)}

    @classmethod
    def from_json(cls, record: dict) -> "DependencyParse":
        return cls.of(record["words"], record["tags"], record["heads"], record["labels"])

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))
