"""Scripted judges whose labels follow a documented silver rule: a stand-in for people, never called human.

The rule reads only the source verse (WEB) and an independent translation of it, the KJV verse of
``evaldata/demo/test.ref.en`` (the study's reference): nothing from the table, the LM or any weight being
tuned, so tuning cannot game it except by making rewrites the KJV agrees with.

* **replacement** ``s -> t`` is correct when the words it adds (in ``t``, not in ``s``) all occur in the KJV
  verse and the words it drops (in ``s``, not in ``t``) all do not: the independent translation made the same
  change. A rewrite that adds nothing and drops nothing (reordering, or repeated words) is correct.
* **meaning**: yes when at least half of the candidate's replacements are correct (the unchanged source: yes).
  The demo's beam candidates carry about six replacements each and the KJV agrees with few of them, so "all
  correct" would make nearly every candidate a no; "at least half" is the stated, arbitrary, middle ground.
* **fluency**: yes when at least 80 % of the candidate's word bigrams (with sentence-start and -end marks)
  occur in the WEB source or in the KJV verse: few word sequences the two translations do not attest.

``judge-1`` applies the rule. ``judge-2`` applies it too but answers the opposite on a seeded ``noise`` share of
its items (hashed from the item, criterion and unit, so it is the same on every run): the two disagree
sometimes, which the aggregation and the adjudication have to settle. The ``adjudicator`` applies the rule.
Other criteria (usability, 3-point scales) get the middle or "yes" answer and are not read by the loop.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import REPLACEMENT_UNIT
from parastudio.core.vocabulary import NO, YES

if TYPE_CHECKING:  # annotations only; the store loads when the judges run, not when the CLI lists commands
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import Database

JUDGES = ("judge-1", "judge-2")
ADJUDICATOR = "adjudicator"
NOISE = 0.1
MEANING_SHARE = 0.5  # meaning: yes when at least this share of the replacements is correct
FLUENCY_SHARE = 0.8  # fluency: yes when at least this share of the bigrams is attested
RULE = ("a replacement is correct iff the words it adds occur in the KJV verse and the words it drops do not; "
        f"meaning is yes iff at least {MEANING_SHARE:.0%} of the candidate's replacements are correct; fluency is "
        f"yes iff at least {FLUENCY_SHARE:.0%} of its word bigrams occur in the WEB source or the KJV verse")


def replacement_correct(source: str, target: str, reference: str) -> bool:
    s, t, ref = set(source.split()), set(target.split()), set(reference.split())
    return (t - s) <= ref and not ((s - t) & ref)


def _bigrams(tokens: list[str]) -> set[tuple[str, str]]:
    padded = ["<s>", *tokens, "</s>"]
    return set(zip(padded, padded[1:]))


def silver_verdicts(source: str, candidate: str, replacements: list[tuple[str, str]], reference: str
                    ) -> dict[str, bool]:
    """The rule's meaning and fluency of a candidate outside a study: ``replacements`` are its unit
    replacements ``(source words, target words)``, left to right (what the study shows as units)."""
    correct = sum(replacement_correct(s, t, reference) for s, t in replacements)
    attested = _bigrams(source.split()) | _bigrams(reference.split())
    bigrams = _bigrams(candidate.split())
    return {"meaning": correct >= MEANING_SHARE * len(replacements),
            "fluency": len(bigrams & attested) >= FLUENCY_SHARE * len(bigrams)}


def silver_answer(item: ops.ItemView) -> str:
    """The rule's answer to one item the annotation session shows."""
    from parastudio.core.store import operations as ops

    reference = item.references[0] if item.references else ""
    units = ops.replacement_units(item.derivation)
    protocol = protocol_of(item.scale)
    if protocol.item == REPLACEMENT_UNIT:
        unit = units[item.unit]
        return YES if replacement_correct(unit["source"], unit["target"], reference) else NO
    if item.criterion in ("meaning", "fluency"):
        verdicts = silver_verdicts(item.source, item.candidate or "", [(u["source"], u["target"]) for u in units],
                                   reference)
        return YES if verdicts[item.criterion] else NO
    values = [str(level["value"]) for level in item.levels]
    return YES if protocol.yes_no else values[len(values) // 2]


def _flipped(item: ops.ItemView, noise: float, seed: int) -> bool:
    digest = hashlib.sha256(f"{seed}:{item.item}:{item.criterion}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < noise


def judge_study(db: Database, study_id: int, *, noise: float = NOISE, seed: int = 0) -> dict:
    """Both scripted judges answer every open item, then the adjudicator settles each disagreement.

    Returns counts: answers per judge and adjudications."""
    from parastudio.core.store import operations as ops

    counts = {}
    for number, name in enumerate(JUDGES):
        annotator = ops.find_annotator(db, study_id, name)
        answered = 0
        while (item := ops.next_item(db, annotator)) is not None:
            answer = silver_answer(item)
            if number == 1 and answer in (YES, NO) and _flipped(item, noise, seed):
                answer = NO if answer == YES else YES
            ops.record_judgment(db, item.assignment_id, answer)
            answered += 1
        counts[name] = answered
    counts[ADJUDICATOR] = adjudicate(db, study_id)
    return counts


def adjudicate(db: Database, study_id: int) -> int:
    """The adjudicator's silver answer on every undecided disagreement."""
    from parastudio.core.store import operations as ops

    decided = 0
    for entry in ops.disagreements(db, study_id, include_decided=False):
        if entry.candidate is None:
            continue
        view = ops.ItemView(0, 0, entry.item, entry.criterion, entry.question, entry.scale, entry.levels, True,
                            entry.source, None, _references(db, study_id, entry.key[0]), entry.candidate,
                            entry.derivation, None, entry.key[2], [], None, None, False, None)
        ops.record_adjudication(db, study_id, ADJUDICATOR, entry.key, silver_answer(view))
        decided += 1
    return decided


def _references(db: Database, study_id: int, candidate_id: int) -> list:
    from parastudio.core.store.models import Candidate, SourceSentence

    with db.reading() as session:
        candidate = session.get(Candidate, candidate_id)
        return list(session.get(SourceSentence, candidate.source_id).references or [])
