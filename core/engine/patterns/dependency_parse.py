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
        for position in range(n):  # every chain of heads ends at a root: no cycle
            seen, node = set(), position
            while node != ROOT:
                if node in seen:
                    raise ValueError(f"the heads of words {sorted(seen)} form a cycle")
                seen.add(node)
                node = self.heads[node]

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
        """ST(e) of every word e (seed 002 §3.1): e and all its descendants, in sentence order."""
        result: list[tuple[int, ...]] = [()] * len(self.words)

        def collect(node: int) -> list[int]:
            members = [node]
            for child in self.children[node]:
                members.extend(collect(child))
            result[node] = tuple(sorted(members))
            return members

        for position, head in enumerate(self.heads):
            if head == ROOT:
                collect(position)
        return tuple(result)

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
