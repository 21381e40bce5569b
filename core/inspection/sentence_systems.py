"""Every system's judged candidates of one source sentence, side by side: per system its rows in rank order,
how many were judged and how many rejected (the Inspect screen's "Systems on this sentence")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from parastudio.core.inspection.candidate_rows import CandidateRow
from parastudio.core.stats.verdicts import REJECTED


@dataclass(frozen=True)
class SystemColumn:
    system: str
    rows: tuple[CandidateRow, ...]  # by the system's own rank

    @property
    def judged(self) -> int:
        return len(self.rows)

    @property
    def rejected(self) -> int:
        return sum(row.verdict == REJECTED for row in self.rows)


def systems_on_sentence(rows: Iterable[CandidateRow]) -> list[SystemColumn]:
    """One column per system (by name) of ``rows`` (the judged candidates of one sentence); a candidate two
    systems made appears under each, at that system's rank."""
    by_system: dict[str, list[CandidateRow]] = {}
    for row in rows:
        for system in row.systems:
            by_system.setdefault(system, []).append(row)
    return [SystemColumn(system, tuple(sorted(by_system[system],
                                              key=lambda r: r.scores.get(system, {}).get("rank") or 0)))
            for system in sorted(by_system)]
