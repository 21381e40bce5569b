"""Seed 001's automatic evaluation (§4.1.2, §5.2): a case succeeds when its gold is among the top suggestions.

A case is ``{"id", "sentence_id", "sentence", "span": [i, j], "gold"}`` (round-trip
cases also carry their ``source``): suggestions are asked for tokens
``[i, j)`` of ``sentence`` from the graph's sentence ``sentence_id``; when
``sentence`` is not the graph's 1-best (the WEB-KJV cases: the WEB verse
against the machine translation of the RV1909 verse), the selection is aligned
with the fuzzy aligner, as for a translation the user has edited.

With ``feedback`` (§5.2), each of the ``top`` suggestions shown is also given
back as "more like this" feedback once, and the case succeeds when the gold
is in the first list or in any list that feedback produced.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Sequence

from parastudio.core.engine.decoders.cat.approaches import Approach
from parastudio.core.engine.decoders.cat.graph_store import GraphStore
from parastudio.core.engine.decoders.cat.paraphraser import SuggestResult, suggest
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.errors import InputFormatError
from parastudio.core.progress import Progress, no_progress
from parastudio.core.textio import read_lines


@dataclass(frozen=True)
class Case:
    id: str
    sentence_id: int
    sentence: tuple[str, ...]
    span: tuple[int, int]
    gold: tuple[str, ...]
    source: tuple[str, ...] = ()  # the source sentence's words, when the case carries them (round-trip cases)

    @property
    def length(self) -> int:
        return self.span[1] - self.span[0]


def read_cases(path: str | os.PathLike) -> list[Case]:
    """A cases file, one JSON object per line; a malformed line stops with ``file:line: expected ...``."""
    cases = []
    expected = 'a JSON object {"id", "sentence_id", "sentence", "span": [i, j], "gold"} with 0 <= i < j <= tokens'
    for number, text in read_lines(path):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
            sentence = tuple(row["sentence"].split())
            start, end = (int(v) for v in row["span"])
            sentence_id = int(row["sentence_id"])
            gold = tuple(row["gold"].split())
            ok = isinstance(row["id"], (str, int)) and 0 <= start < end <= len(sentence) and gold and sentence_id >= 0
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            ok = False
        if not ok:
            raise InputFormatError(str(path), number, expected, text[:80])
        source = row.get("source")
        cases.append(Case(str(row["id"]), sentence_id, sentence, (start, end), gold,
                          tuple(source.split()) if isinstance(source, str) else ()))
    return cases


@dataclass(frozen=True)
class CaseResult:
    case: Case
    success: bool
    shown: tuple[str, ...]  # the suggestions of the first list
    seconds: float
    error: str | None = None
    fate: str | None = None  # with explain: where the gold was lost (core.engine.decoders.cat.gold_trace)
    tie_at_cut: bool = False  # the first list's cut falls inside a tie (SuggestResult.tie_at_cut)
    success_with_ties_reversed: bool | None = None  # the first list's hit had that tie been broken the other way
    coverage: tuple[int, int] | None = None  # the source words the selection was aligned to

    def to_json(self) -> dict:
        return {"id": self.case.id, "sentence_id": self.case.sentence_id, "span": list(self.case.span),
                "length": self.case.length, "gold": " ".join(self.case.gold), "success": self.success,
                "suggestions": list(self.shown), "milliseconds": round(self.seconds * 1000, 2),
                "error": self.error, "fate": self.fate, "tie_at_cut": self.tie_at_cut,
                "success_with_ties_reversed": self.success_with_ties_reversed}


@dataclass
class Evaluation:
    approach: Approach
    feedback: bool
    top: int
    results: list[CaseResult] = field(default_factory=list)

    @property
    def successes(self) -> int:
        return sum(r.success for r in self.results)

    def by_length(self) -> dict[str, list[int]]:
        table: dict[int, list[int]] = {}
        for result in self.results:
            row = table.setdefault(result.case.length, [0, 0])
            row[0] += 1
            row[1] += result.success
        return {str(length): table[length] for length in sorted(table)}

    def ties(self) -> dict[str, int]:
        """How much the tie rule decides: cases whose first list is cut inside a tie, hits among them, and the
        hits there would be if every such tie were broken the other way."""
        tied = [r for r in self.results if r.tie_at_cut]
        return {"cases_with_tie_at_cut": len(tied), "hits_in_tie_at_cut": sum(r.success for r in tied),
                "successes_with_ties_reversed": sum(bool(r.success_with_ties_reversed) for r in self.results)}

    def to_json(self) -> dict:
        """The ``parastudio autoeval --json`` contract."""
        return {"approach": self.approach.name, "cases": len(self.results), "successes": self.successes,
                "by_length": self.by_length(), "ties": self.ties()}


def evaluate_case(store: GraphStore, case: Case, approach: Approach, *, lm: LanguageModel | None, top: int = 5,
                  feedback: bool = False, explain: bool = False) -> CaseResult:
    graph = store.sentence_graph(case.sentence_id)
    first = suggest(graph, *case.span, approach, lm=lm, top=top, tokens=case.sentence)
    success = first.hit(case.gold)
    seconds = first.seconds
    if feedback and not success:
        for shown in first.suggestions:
            again: SuggestResult = suggest(graph, *case.span, approach, lm=lm, top=top, tokens=case.sentence,
                                           feedback=shown.words)
            seconds += again.seconds
            if again.hit(case.gold):
                success = True
                break
    fate = first.explain(case.gold)["fate"] if explain else None
    tied = first.tie_at_cut() is not None
    reversed_hit = success if (success and feedback and not first.hit(case.gold)) else \
        first.hit_with_ties_reversed(case.gold)
    return CaseResult(case, success, tuple(s.text for s in first.suggestions), seconds, first.error, fate, tied,
                      reversed_hit, first.alignment.coverage if first.alignment else None)


def evaluate(store: GraphStore, cases: Sequence[Case], approach: Approach, *, lm: LanguageModel | None,
             top: int = 5, feedback: bool = False, explain: bool = False,
             progress: Progress = no_progress) -> Evaluation:
    evaluation = Evaluation(approach, feedback, top)
    for index, case in enumerate(cases):
        evaluation.results.append(evaluate_case(store, case, approach, lm=lm, top=top, feedback=feedback,
                                                explain=explain))
        progress(index + 1, len(cases), approach.name)
    return evaluation
