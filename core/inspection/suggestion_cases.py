"""Failures of span suggestions: seed 001's visualisation tool (§4.1.3), one row per test case and approach.

Rustamli listed the test cases of an automatic evaluation green (the gold among
the top 5) or red, each with a "Details" window: the sentence, the selection,
the desired result and the suggestions. A :class:`CaseRow` keeps that and more:
the gold's rank after the sorters, each shown suggestion's FSM and LM scores,
the gold's fate through the pipeline (:mod:`core.engine.decoders.cat.gold_trace`: never
in the graph, dropped by PTRF, ranked 7th by the sorters, ...), how many
partials and candidates each stage kept, and what became of the candidates that
were not shown. Rows of two approaches on the same cases are compared case by
case (:func:`rows_of_case`); :func:`success_by_length` is Fig. 4.3's table.

Success is decided exactly as ``parastudio autoeval`` decides it
(:meth:`SuggestResult.hit`), so the counts agree.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from parastudio.core.engine.decoders.cat.approaches import Approach
from parastudio.core.engine.decoders.cat.autoeval import Case, read_cases
from parastudio.core.engine.decoders.cat.filters import FILTERS
from parastudio.core.engine.decoders.cat.graph_store import GraphStore
from parastudio.core.engine.decoders.cat.paraphraser import SuggestResult, normalized, suggest
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.progress import Progress, no_progress

CASE_SETS = ("roundtrip", "webkjv")
OTHERS_KEPT = 30  # candidates not shown, kept per row with their fate (the best by FSM score)

# What each fate of core.engine.decoders.cat.gold_trace means, in a researcher's words.
FATE_GLOSSES = {
    "not aligned": "the selection could not be aligned with the source",
    "the selection itself": "the gold is the selected text (never a suggestion)",
    "not in graph": "never in the graph: no chain of hypotheses inside the selection's source coverage spells it",
    "not retrieved": "the graph spells it, but not with the spans the retrieval queried (§3.4.2)",
    "not among K best": "the FSM spells it, but none of its paths is among the K best",
    "dropped by": "filtered out by this stage",
    "ranked": "survived every filter but ranked below the suggestions shown",
    "shown": "shown to the user",
}


@dataclass(frozen=True)
class ScoredSuggestion:
    rank: int
    text: str
    fsm_score: float
    lm_score: float | None  # log10 P(sentence with the selection replaced), when LMBS ran
    is_gold: bool


@dataclass(frozen=True)
class CaseRow:
    """One test case under one approach."""

    approach: str
    case: Case
    success: bool
    rank: int | None  # the gold's rank after the sorters; None when it never became a candidate
    fate: str
    fate_detail: str | None
    suggestions: tuple[ScoredSuggestion, ...]  # the ones shown (top)
    others: tuple[tuple[str, float, str], ...]  # other candidates: text, FSM score, fate
    pipeline: tuple[tuple[str, int], ...]  # what each stage kept
    source_span: tuple[int, int] | None  # the selection's source coverage
    milliseconds: float
    error: str | None = None
    ordered_by: str = "FSM score"  # what put the final list in its order: the approach's sorters

    @property
    def fate_text(self) -> str:
        """The fate as a researcher reads it: ``ranked 7 by LMBS, CDBS``, ``dropped by PTRF``, ``not in graph``."""
        return f"{self.fate} by {self.ordered_by}" if self.fate.startswith(("shown", "ranked")) else self.fate

    @property
    def case_id(self) -> str:
        return self.case.id

    @property
    def length(self) -> int:
        return self.case.length

    @property
    def gold(self) -> str:
        return " ".join(self.case.gold)

    @property
    def selection(self) -> str:
        return " ".join(self.case.sentence[slice(*self.case.span)])

    @property
    def fate_gloss(self) -> str:
        for prefix, gloss in FATE_GLOSSES.items():
            if self.fate.startswith(prefix):
                return gloss
        return ""

    def to_json(self) -> dict:
        return {"approach": self.approach, "id": self.case.id, "sentence_id": self.case.sentence_id,
                "sentence": " ".join(self.case.sentence), "span": list(self.case.span), "length": self.length,
                "gold": self.gold, "success": self.success, "rank": self.rank, "fate": self.fate_text,
                "fate_detail": self.fate_detail,
                "suggestions": [{"rank": s.rank, "text": s.text, "fsm_score": s.fsm_score, "lm_score": s.lm_score}
                                for s in self.suggestions],
                "pipeline": dict(self.pipeline), "milliseconds": self.milliseconds, "error": self.error}


@dataclass(frozen=True)
class CaseSet:
    name: str
    cases: list[Case]
    graph: Path


def load_case_set(name_or_path: str | os.PathLike, graph: str | os.PathLike | None = None) -> CaseSet:
    """A bundled case set (``roundtrip``, ``webkjv``) or a cases file with the graph its sentence ids refer to."""
    if str(name_or_path) in CASE_SETS:
        from parastudio.core.demo import demo_files

        cases_path, graph_path = demo_files().case_set(str(name_or_path))
        return CaseSet(str(name_or_path), read_cases(cases_path), Path(graph or graph_path))
    if graph is None:
        raise ValueError("a cases file needs the search graph (or graph store) its sentence ids refer to")
    return CaseSet(Path(name_or_path).name, read_cases(name_or_path), Path(graph))


def case_row(result: SuggestResult, case: Case, approach: str) -> CaseRow:
    """The row of one case from the paraphraser's full result (every intermediate list is in it)."""
    key = normalized(case.gold)
    ranked_keys = [normalized(s.words) for s in result.ranked]
    rank = ranked_keys.index(key) + 1 if key in ranked_keys else None
    shown = tuple(ScoredSuggestion(i, s.text, s.fsm_score, s.lm_score, normalized(s.words) == key)
                  for i, s in enumerate(result.suggestions, start=1))
    trace = result.explain(case.gold)
    return CaseRow(approach, case, result.hit(case.gold), rank, trace["fate"], trace["detail"], shown,
                   _others(result), _pipeline(result),
                   result.alignment.coverage if result.alignment else None, round(result.seconds * 1000, 2),
                   result.error, ", ".join(result.approach.sorters) or "FSM score")


def _others(result: SuggestResult) -> tuple[tuple[str, float, str], ...]:
    """The candidates not shown and which stage dropped each (as :meth:`SuggestResult.fate`, in one pass)."""
    after = [(stage, {normalized(s.words) for s in kept}) for stage, kept in result.stages if stage in FILTERS]
    rank_of: dict[tuple[str, ...], int] = {}
    for rank, suggestion in enumerate(result.ranked, start=1):
        rank_of.setdefault(normalized(suggestion.words), rank)
    others = []
    for suggestion in result.candidates:
        key = normalized(suggestion.words)
        dropped = next((stage for stage, keys in after if key not in keys), None)
        if dropped is None and rank_of.get(key, 0) <= result.top:
            continue  # shown
        fate = f"dropped by {dropped}" if dropped else f"ranked {rank_of[key]}"
        others.append((suggestion.text, suggestion.fsm_score, fate))
        if len(others) == OTHERS_KEPT:
            break
    return tuple(others)


def _pipeline(result: SuggestResult) -> tuple[tuple[str, int], ...]:
    steps = [("partials retrieved", result.retrieved_count)]
    steps += [(f"partials after {stage}", len(kept)) for stage, kept in result.partial_stages]
    if result.fsm is not None:
        steps.append(("FSM transitions", result.fsm.transitions))
    steps.append(("candidates from the K best paths", len(result.candidates)))
    steps += [(f"after {stage}", len(kept)) for stage, kept in result.stages]
    return tuple(steps)


def evaluate_rows(store: GraphStore, cases: Sequence[Case], approaches: Sequence[Approach], *,
                  lm: LanguageModel | None, top: int = 5, progress: Progress = no_progress) -> list[CaseRow]:
    """Every case under every approach (approach by approach), as ``parastudio autoeval`` runs them."""
    rows = []
    total = len(cases) * len(approaches)
    for number, approach in enumerate(approaches):
        for index, case in enumerate(cases):
            graph = store.sentence_graph(case.sentence_id)
            result = suggest(graph, *case.span, approach, lm=lm, top=top, tokens=case.sentence)
            rows.append(case_row(result, case, approach.name))
            progress(number * len(cases) + index + 1, total, f"{approach.name}: case {index + 1} of {len(cases)}")
    return rows


def approaches_of(rows: Iterable[CaseRow]) -> list[str]:
    return list(dict.fromkeys(row.approach for row in rows))


def filter_case_rows(rows: Sequence[CaseRow], *, approach: str | None = None, min_length: int = 0,
                     max_length: int | None = None, success: bool | None = None,
                     split: bool = False) -> list[CaseRow]:
    """The rows of one approach (or all), of spans ``min_length..max_length`` tokens, succeeded or failed; with
    ``split``, only the cases where the approaches disagree (one finds the gold, another does not)."""
    split_cases = None
    if split:
        outcomes: dict[str, set[bool]] = {}
        for row in rows:
            outcomes.setdefault(row.case_id, set()).add(row.success)
        split_cases = {case for case, seen in outcomes.items() if len(seen) == 2}
    return [row for row in rows
            if (approach is None or row.approach == approach)
            and min_length <= row.length <= (max_length if max_length is not None else row.length)
            and (success is None or row.success == success)
            and (split_cases is None or row.case_id in split_cases)]


COLUMNS = ("approach", "case", "length", "found", "rank", "fate", "gold", "first suggestion")


def column_value(row: CaseRow, column: int):
    """What a table shows in ``COLUMNS[column]`` (and sorts by: numbers as numbers, a missing rank last)."""
    return (row.approach, row.case_id, row.length, "yes" if row.success else "no", row.rank, row.fate_text, row.gold,
            row.suggestions[0].text if row.suggestions else "")[column]


def sort_case_rows(rows: Sequence[CaseRow], column: int, descending: bool = False) -> list[CaseRow]:
    def key(row):
        value = column_value(row, column)
        return (value is None, value if value is not None else 0, row.case_id, row.approach)

    return sorted(rows, key=key, reverse=descending)


def case_major(rows: Sequence[CaseRow]) -> list[CaseRow]:
    """The rows case by case (in the order of the cases file), each case's approaches together in evaluated order."""
    cases = {case: index for index, case in enumerate(dict.fromkeys(row.case_id for row in rows))}
    approaches = {name: index for index, name in enumerate(approaches_of(rows))}
    return sorted(rows, key=lambda row: (cases[row.case_id], approaches[row.approach]))


def rows_of_case(rows: Iterable[CaseRow], case_id: str) -> dict[str, CaseRow]:
    """Every approach's row of one case: approach -> row, in the order evaluated."""
    return {row.approach: row for row in rows if row.case_id == case_id}


def length_bucket(length: int, longest: int = 8) -> str:
    return str(length) if length < longest else f"{longest}+"


def success_by_length(rows: Iterable[CaseRow], longest: int = 8) -> dict[str, dict[str, tuple[int, int]]]:
    """Seed 001 Fig. 4.3: per approach, per span length (``longest``+ together), (cases, successes)."""
    outcomes: dict[str, list[tuple[int, bool]]] = {}
    for row in rows:
        outcomes.setdefault(row.approach, []).append((row.length, row.success))
    return tabulate_by_length(outcomes, longest)


def tabulate_by_length(outcomes: dict[str, Iterable[tuple[int, bool]]],
                       longest: int = 8) -> dict[str, dict[str, tuple[int, int]]]:
    """``approach -> [(span length, success), ...]`` as :func:`success_by_length`'s table."""
    order = [length_bucket(n, longest) for n in range(1, longest + 1)]
    table = {}
    for approach, pairs in outcomes.items():
        counts: dict[str, list[int]] = {}
        for length, success in pairs:
            cell = counts.setdefault(length_bucket(length, longest), [0, 0])
            cell[0] += 1
            cell[1] += bool(success)
        table[approach] = {bucket: tuple(counts[bucket]) for bucket in order if bucket in counts}
    return table


def fate_counts(rows: Iterable[CaseRow]) -> dict[str, dict[str, int]]:
    """Per approach, how many golds met each fate (``shown 3`` and ``ranked 9`` counted as shown and ranked)."""
    table: dict[str, dict[str, int]] = {}
    for row in rows:
        fate = row.fate.split()[0] if row.fate.startswith(("shown", "ranked")) else row.fate
        counts = table.setdefault(row.approach, {})
        counts[fate] = counts.get(fate, 0) + 1
    return {approach: dict(sorted(counts.items(), key=lambda item: -item[1])) for approach, counts in table.items()}


def choice_task(row: CaseRow, case_set: str) -> dict:
    """Seed 001 §4.2's manual evaluation task of one case: the sentence as context, its span highlighted, the
    approach's suggestions as the options (``core.store.candidates.add_choice_tasks``'s format)."""
    if not row.suggestions:
        raise ValueError(f"case {row.case_id}: {row.approach} made no suggestion to choose from")
    return {"id": f"{case_set}/{row.case_id}", "sentence": " ".join(row.case.sentence), "span": list(row.case.span),
            "options": [s.text for s in row.suggestions], "system": row.approach, "test_set": case_set}
