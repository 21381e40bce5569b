"""Rule blame: the rules that occur in rejected candidates more than in accepted ones, across a study.

For each rule (source phrase -> target phrase) in the derivations of the
judged candidates (an imported candidate without one: its replaced word spans): in how many rejected and how many accepted candidates it
occurs, and a one-sided Fisher exact test (scipy) of "this rule's candidates
are rejected more often than the study's": a small p is a rule worth pruning.
Candidates the judges disagreed on are left out. The prune list is one
``source ||| target`` per line; ``parastudio table prune`` and
``parastudio pivot --prune`` drop those rules, so a bad rule is fixed where it
comes from.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass

import Levenshtein
from sqlalchemy import text

from parastudio.core.inspection.candidate_rows import candidate_rows
from parastudio.core.stats.verdicts import ACCEPTED, REJECTED
from parastudio.core.store.database import Database
from parastudio.core.textio import atomic_output, read_lines


@dataclass(frozen=True)
class BlamedRule:
    source: str
    target: str
    rejected: int  # rejected candidates that apply it
    accepted: int  # accepted candidates that apply it
    p_value: float  # one-sided Fisher exact test: rejected more often than the study's candidates

    @property
    def rejected_share(self) -> float:
        return self.rejected / (self.rejected + self.accepted) if self.rejected + self.accepted else 0.0

    def to_json(self) -> dict:
        return {"source": self.source, "target": self.target, "rejected": self.rejected, "accepted": self.accepted,
                "rejected_share": self.rejected_share, "p_value": self.p_value}


def rule_blame(db: Database, study_id: int, *, criteria: set[str] | None = None, system: str | None = None,
               min_rejected: int = 1) -> list[BlamedRule]:
    """Rules of rejected candidates, most suspicious first (smallest p, then most rejections)."""
    rows = [row for row in candidate_rows(db, study_id, criteria=criteria)
            if row.verdict in (ACCEPTED, REJECTED) and (system is None or system in row.systems)]
    verdict = {row.candidate_id: row.verdict for row in rows}
    in_rejected: Counter = Counter()
    in_accepted: Counter = Counter()
    with db.read_connection() as connection:
        for candidate_id, derivation, candidate, source in connection.execute(text(
                "SELECT c.id, c.derivation, c.text, s.text FROM candidate c JOIN source_sentence s "
                "ON s.id = c.source_id WHERE c.study_id = :s AND c.kind = 'candidate'"), {"s": study_id}):
            if candidate_id not in verdict:
                continue
            (in_rejected if verdict[candidate_id] == REJECTED else in_accepted).update(
                applied_rules(derivation, source, candidate))
    total_rejected = sum(1 for v in verdict.values() if v == REJECTED)
    return _fisher_ranked(in_rejected, in_accepted, total_rejected, len(verdict) - total_rejected, min_rejected)


def rule_blame_from_spans(db: Database, study_id: int, *, criteria: set[str] | None = None,
                          system: str | None = None, min_rejected: int = 1) -> list[BlamedRule]:
    """Rule blame from the words judges marked (error spans, issue 30) rather than from whole-candidate
    verdicts: each rewrite of a candidate judged in an ``esa`` criterion counts as ``rejected`` when more than
    half of its judges marked a word it produced, ``accepted`` when fewer than half did (a tie is left out);
    the Fisher test compares the rule's rewrites with all the study's (:mod:`core.judging.span_rewrites`)."""
    from parastudio.core.demo import demo_files
    from parastudio.core.judging.span_rewrites import marked_rewrites

    in_rejected: Counter = Counter()
    in_accepted: Counter = Counter()
    for rewrite in marked_rewrites(db, study_id, criteria=criteria,
                                   truecase_model=str(demo_files().truecase_model)):
        if rewrite.verdict is not None and (system is None or system in rewrite.systems):
            (in_rejected if rewrite.verdict == "marked" else in_accepted)[(rewrite.source, rewrite.target)] += 1
    return _fisher_ranked(in_rejected, in_accepted, sum(in_rejected.values()), sum(in_accepted.values()),
                          min_rejected)


def _fisher_ranked(in_rejected: Counter, in_accepted: Counter, total_rejected: int, total_accepted: int,
                   min_rejected: int) -> list[BlamedRule]:
    from scipy.stats import fisher_exact

    blamed = []
    for rule, rejected in in_rejected.items():
        if rejected < min_rejected:
            continue
        accepted = in_accepted.get(rule, 0)
        table = [[rejected, accepted], [total_rejected - rejected, total_accepted - accepted]]
        p_value = float(fisher_exact(table, alternative="greater").pvalue)
        blamed.append(BlamedRule(rule[0], rule[1], rejected, accepted, min(1.0, p_value)))
    return sorted(blamed, key=lambda b: (b.p_value, -b.rejected, b.source, b.target))


def applied_rules(derivation, source: str, candidate: str) -> set[tuple[str, str]]:
    """The rewrites of a candidate: from its derivation, or, for an imported candidate without one, the
    replaced word spans of a word-level edit alignment (python-Levenshtein's opcodes)."""
    segments = json.loads(derivation) if isinstance(derivation, str) else derivation
    if isinstance(segments, list) and segments:
        return {(s["source"], s["target"]) for s in segments if isinstance(s, dict) and not s.get("identity")
                and "source" in s and "target" in s and s["source"] != s["target"]}
    words, new = source.split(), candidate.split()
    return {(" ".join(words[i1:i2]), " ".join(new[j1:j2]))
            for tag, i1, i2, j1, j2 in Levenshtein.opcodes(words, new) if tag == "replace"}


def write_prune_list(rules: list[BlamedRule], path: str | os.PathLike, *, inputs=()) -> int:
    with atomic_output(path, inputs=inputs) as handle:
        for rule in rules:
            handle.write(f"{rule.source} ||| {rule.target}\n")
    return len(rules)


def read_prune_list(path: str | os.PathLike) -> set[tuple[str, str]]:
    """``source ||| target`` lines (whitespace normalized); a malformed line stops with its number."""
    from parastudio.core.errors import InputFormatError

    pairs = set()
    for number, line in read_lines(path):
        if not line.strip():
            continue
        fields = line.split("|||")
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise InputFormatError(str(path), number, "'source phrase ||| target phrase'", line)
        pairs.add((" ".join(fields[0].split()), " ".join(fields[1].split())))
    return pairs
