"""Where seed 001's automatic evaluation loses each gold, by approach and by selection length (issue 26, item 3).

The tables of ``seed001-approaches.md`` that account for Fig. 4.2's counts,
read from the runs of :mod:`core.experiments.seed001_approaches`:

* stage counts: of a set's cases, how many golds are spellable by the
  translation table from the selection's source words, in the search graph,
  retrieved (§3.4.2), left by each partial filter, among the K best FSM paths,
  left by each filter, and shown in the top 5 (cumulative: each count is of
  the golds that survived every stage before it; from each case's ``fate``,
  :mod:`core.engine.decoders.cat.gold_trace`);
* Fig. 4.2 by selection length in the groups 1, 2, 3, 4, 5+ tokens (the
  thesis's queries are 2-3 words);
* ties at the top-5 cut (:meth:`core.engine.decoders.cat.paraphraser.SuggestResult.tie_at_cut`);
* the counts under the other reading of SDSF and of the function-word list.

:func:`stage_counts` is the contract the independent count
(``benchmarks/seed001_independent_counts.py``) is tested against.
"""

from __future__ import annotations

from typing import Callable, Sequence

from parastudio.core.engine.decoders.cat.approaches import APPROACHES, PAPER_SUCCESSES

SELECTION_GROUPS = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 10_000))
# Every stage in the order approach 10 runs them (an approach without a stage leaves its cell empty).
STAGE_COLUMNS = ("aligned", "not the selection", "in graph", "retrieved", "after PTPF", "after FWPF", "after SDPF",
                 "among K best", "after PTRF", "after FNRF", "after SBRF", "shown")


def _group_label(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}+"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "–"


def stage_names(approach) -> list[str]:
    """The stages a gold passes, in order, for one approach (the columns of :func:`stage_counts`)."""
    return ["aligned", "not the selection", "in graph", "retrieved",
            *[f"after {name}" for name in approach.partial_filters], "among K best",
            *[f"after {name}" for name in approach.filters], "shown"]


def _lost_at(fate: str | None, approach) -> str:
    """The stage of :func:`stage_names` a fate says the gold did not pass ("" when shown)."""
    fate = fate or ""
    fixed = {"not aligned": "aligned", "the selection itself": "not the selection", "not in graph": "in graph",
             "not retrieved": "retrieved", "not among K best": "among K best"}
    if fate in fixed:
        return fixed[fate]
    if fate.startswith("dropped by "):
        return f"after {fate.removeprefix('dropped by ')}"
    if fate.startswith("shown"):
        return ""
    return "shown"  # ranked below the top 5 (or, with no trace, not shown)


def stage_counts(rows: Sequence, approach) -> dict[str, int]:
    """``{"cases": n, stage: golds that passed it and every stage before it}`` (module docstring)."""
    names = stage_names(approach)
    lost = {name: 0 for name in names}
    for row in rows:
        stage = _lost_at(row.fate, approach) if not row.success else ""
        if stage:
            lost[stage] += 1
    counts, left = {"cases": len(rows)}, len(rows)
    for name in names:
        left -= lost[name]
        counts[name] = left
    return counts


def stage_table(result: dict, more_rows: Callable[[list[str]], list[str]] | None = None) -> list[str]:
    """The stage counts per approach; ``more_rows(columns)`` adds rows in the same columns (an independent count)."""
    spellable = result.get("spellable")
    runs = {name: rows for name, rows in result["results"].items()}
    used = {column for name in runs for column in stage_names(_approach(name))}
    columns = [c for c in STAGE_COLUMNS if c in used]
    lines = ["| approach | cases | spellable by the table | " + " | ".join(columns) + " |",
             "|---" * (len(columns) + 3) + "|"]
    table_count = str(sum(spellable.values())) if spellable else "–"
    for name, rows in runs.items():
        counts = stage_counts(rows, _approach(name))
        cells = [str(counts[c]) if c in counts else "" for c in columns]
        lines.append(f"| {name} | {counts['cases']} | {table_count} | " + " | ".join(cells) + " |")
    return lines + (more_rows(columns) if more_rows else [])


def _approach(name: str):
    from parastudio.core.experiments.seed001_variants import diagnostic_approaches

    return {**APPROACHES, **diagnostic_approaches()}[name]


def _in_group(length: int, group: tuple[int, int]) -> bool:
    return group[0] <= length <= group[1]


def by_selection_length(result: dict) -> list[str]:
    """Fig. 4.2 in the groups 1, 2, 3, 4, 5+: successes (share) per approach, with where the golds stand."""
    cases = result["cases"]
    header = [_group_label(*g) for g in SELECTION_GROUPS]
    sizes = [sum(_in_group(c.length, g) for c in cases) for g in SELECTION_GROUPS]
    lines = ["| | " + " | ".join(header) + " | all |", "|---" * (len(header) + 2) + "|",
             "| cases | " + " | ".join(map(str, sizes)) + f" | {len(cases)} |"]
    spellable = result.get("spellable")
    if spellable:
        per = [sum(spellable[c.id] for c in cases if _in_group(c.length, g)) for g in SELECTION_GROUPS]
        lines.append("| *spellable by the table* | " + " | ".join(f"{n} ({_share(n, s)})" for n, s in zip(per, sizes))
                     + f" | {sum(per)} |")
    one = result["results"].get("approach-1")
    if one:
        for stage in ("in graph", "retrieved"):
            per = [stage_counts([r for r in one if _in_group(r.case.length, g)], _approach("approach-1"))[stage]
                   for g in SELECTION_GROUPS]
            lines.append(f"| *{stage}* | " + " | ".join(f"{n} ({_share(n, s)})" for n, s in zip(per, sizes))
                         + f" | {sum(per)} |")
    for name, rows in result["results"].items():
        per = [sum(r.success for r in rows if _in_group(r.case.length, g)) for g in SELECTION_GROUPS]
        lines.append(f"| {name} | " + " | ".join(f"{n} ({_share(n, s)})" for n, s in zip(per, sizes))
                     + f" | {sum(per)} |")
    return lines


def ties_table(result: dict) -> list[str]:
    lines = ["| approach | successes | cut inside a tie | hits inside that tie | successes, ties broken the other way |",
             "| --- | --- | --- | --- | --- |"]
    for name, rows in result["results"].items():
        tied = [r for r in rows if r.tie_at_cut]
        lines.append(f"| {name} | {sum(r.success for r in rows)} | {len(tied)} | {sum(r.success for r in tied)} | "
                     f"{sum(bool(r.success_with_ties_reversed) for r in rows)} |")
    return lines


# What our graphs and tables lack that the thesis's had (seed 001 §4.1.1 decoded with Moses' defaults).
DEPARTURES = ("- Our graphs differ from the thesis's beyond their size: our decoder is monotone (no reordering), "
              "its tables carry one score per rule (Moses weighs several), and it uses neither "
              "minimum Bayes risk decoding nor cube pruning; any of these changes which hypotheses a graph holds.")


def tie_line(one: list, ten: list) -> str:
    """How many successes the order of tied suggestions decides (the ties table gives them per approach)."""
    def tied_hits(rows):
        return sum(r.success for r in rows if r.tie_at_cut)

    def reversed_hits(rows):
        return sum(bool(r.success_with_ties_reversed) for r in rows)

    return (f"- Tie order decides part of the comparison: {tied_hits(one)} of approach 1's {sum(r.success for r in one)} "
            f"successes and {tied_hits(ten)} of approach 10's {sum(r.success for r in ten)} are golds inside a tie at "
            f"the top-5 cut; with every tie broken the other way approach 1 has {reversed_hits(one)} and approach "
            f"10 {reversed_hits(ten)} (the ties table below).")


def readings_table(result: dict) -> list[str]:
    """Successes and FWPF losses under the chosen readings and under each other one (same cases)."""
    readings = result.get("readings") or {}
    if not readings:
        return []
    names = list(readings)
    lines = ["| approach | chosen: successes (FWPF drops) | " + " | ".join(f"{n}: successes (FWPF drops)" for n in names)
             + " | paper |", "|---" * (len(names) + 3) + "|"]

    def cell(rows) -> str:
        return f"{sum(r.success for r in rows)} ({sum((r.fate or '') == 'dropped by FWPF' for r in rows)})"

    for name in APPROACHES:
        chosen = result["results"].get(name)
        if chosen is None:
            continue
        others = [cell(readings[n][name]) if name in readings[n] else "same" for n in names]
        lines.append(f"| {name} | {cell(chosen)} | " + " | ".join(others) + f" | {PAPER_SUCCESSES.get(name, '')} |")
    return lines
