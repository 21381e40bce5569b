"""The independent count of a set's golds beside its stage counts in ``seed001-approaches.md`` (issue 26: the
results file's explanation agrees with independent counts).

``benchmarks/seed001_independent_counts.py CASES GRAPH --table TABLE --out FILE`` shares nothing with the
experiment's pipeline; its file holds each case's last stage passed (approach 1 through PTPF, approach 2 through
PTPF FWPF SDPF), whether the table spells the gold, and its inputs by sha256. ``--independent FILE`` hands it to
the report: the file belongs to the set that ran on the same cases and graph (by sha256), its counts are shown
under the set's, and every case where the two disagree is named with both stages, so agreement is read in the
results file itself rather than taken on trust.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from parastudio.core.errors import InputFileError, InputFormatError
from parastudio.core.experiments.seed001_accounting import _approach, _lost_at, stage_names

_EXPECTED = "the JSON that benchmarks/seed001_independent_counts.py --out writes"
SPELLABLE = "spellable by the table"
TIED = "tied derivations"  # the stages under other derivations of the sentence, tied with the best as written
_SHOWN_IDS = 8  # per kind of disagreement; the rest are counted


def read_counter_file(path: Path) -> dict:
    """The counter's file, checked field by field (anything else is one line naming the file)."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise InputFormatError(path, 1, _EXPECTED, type(error).__name__) from None
    problem = _problem(record)
    if problem:
        raise InputFormatError(path, 1, _EXPECTED, problem)
    return {**record, "path": str(path)}


def _problem(record) -> str | None:
    if not isinstance(record, dict):
        return "not an object"
    inputs = record.get("inputs")
    for name in ("cases", "graph"):
        if not (isinstance(inputs, dict) and isinstance(inputs.get(name), dict)
                and isinstance(inputs[name].get("sha256"), str)):
            return f"no inputs.{name}.sha256"
    if not isinstance(record.get("counts", {}), dict):
        return "counts not an object"
    per_case = record.get("per_case")
    if not isinstance(per_case, dict) or not per_case:
        return "no per_case (run the counter with --out)"
    for case_id, reached in per_case.items():
        problem = _stages_problem(reached, tied_allowed=True)
        if problem:
            return f"per_case {case_id!r}: {problem}"
    return None


def _stages_problem(reached, *, tied_allowed: bool) -> str | None:
    """What is wrong with one case's stages (approach -> stage, the table's answer, and tied derivations')."""
    if not isinstance(reached, dict):
        return "not an object"
    for key, value in reached.items():
        if key == SPELLABLE:
            if not isinstance(value, bool):
                return f"{SPELLABLE} not true or false"
        elif key == TIED and tied_allowed:
            if not isinstance(value, list):
                return f"{TIED} not a list"
            problem = next(filter(None, (_stages_problem(v, tied_allowed=False) for v in value)), None)
            if problem:
                return f"{TIED}: {problem}"
        elif key not in ("approach-1", "approach-2") or value not in stage_names(_approach(key)):
            return f"{key!r}: {value!r} is not a stage of that approach"
    return None


def match_counts(sets: list[dict], inputs: list[dict], records: list[dict]) -> dict[str, dict]:
    """Per set name, the counter file made on that set's cases and graph (sha256 of both). A file that fits no set
    is refused: figures beside the wrong set would read as agreement or disagreement that is not there."""
    matched = {}
    for record in records:
        key = (record["inputs"]["cases"]["sha256"], record["inputs"]["graph"]["sha256"])
        names = [result["name"] for result, recorded in zip(sets, inputs)
                 if (_sha(recorded.get("cases")), _sha(recorded.get("graph"))) == key]
        if not names:
            raise InputFileError(record["path"], "counts of the cases and graph one of the sets ran on",
                                 f"cases sha256 {key[0][:12]} and graph sha256 {key[1][:12]}, which no set ran on")
        for result, recorded in zip(sets, inputs):
            if result["name"] in names:  # the table the set's spellable count read, to compare the counter's with
                matched[result["name"]] = {**record, "set_table": _sha(recorded.get("table"))}
    return matched


def _sha(recorded: dict | None) -> str | None:
    return recorded.get("sha256") if isinstance(recorded, dict) else None


def our_last_stage(row, approach) -> str:
    """The last stage of :func:`stage_names` a case's gold passed in our run ("shown" for a success)."""
    names = stage_names(approach)
    if row.success:
        return "shown"
    lost = _lost_at(row.fate, approach)
    index = names.index(lost)
    return names[index - 1] if index else "none"


def _capped(stage: str, names: list[str], deepest: str) -> str:
    """``stage``, or ``deepest`` where ours went further than the counter counts."""
    return deepest if stage == "shown" or names.index(stage) > names.index(deepest) else stage


def comparison(result: dict, record: dict) -> tuple[dict[str, dict[str, int]], list[tuple[str, str, str, str, bool]]]:
    """The counter's counts over this set's cases (per approach, golds that passed each stage), and every
    ``(what, ours, independent, case id, tied)`` where the two disagree; ``tied``: under some derivation of the
    sentence tied with the counter's up to the graph's rounding, the counter reaches ours."""
    per_case = record["per_case"]
    counts, differences = {}, []
    for name in ("approach-1", "approach-2"):
        rows = result["results"].get(name)
        if rows is None:
            continue
        approach = _approach(name)
        names = stage_names(approach)
        reached = [per_case.get(row.case.id, {}).get(name) for row in rows]
        deepest = max((stage for stage in reached if stage), key=names.index, default="aligned")
        depth = names.index(deepest)
        counts[name] = {"cases": len(rows), **{stage: sum(1 for r in reached if r and names.index(r) >= i)
                                               for i, stage in enumerate(names[:depth + 1])}}
        for row, theirs in zip(rows, reached):
            ours = _capped(our_last_stage(row, approach), names, deepest)
            if theirs != ours:
                tied = any(other.get(name) == ours for other in per_case.get(row.case.id, {}).get(TIED, []))
                differences.append((name, ours, theirs or "not counted", row.case.id, tied))
    if not same_table(record):
        counts[SPELLABLE] = None
        return counts, differences
    spellable = result.get("spellable") or {}
    for case in result["cases"]:
        theirs = per_case.get(case.id, {}).get(SPELLABLE)
        if case.id in spellable and theirs is not None and theirs != spellable[case.id]:
            tied = any(other.get(SPELLABLE) == spellable[case.id] for other in per_case[case.id].get(TIED, []))
            differences.append((SPELLABLE, _yes(spellable[case.id]), _yes(theirs), case.id, tied))
    counts[SPELLABLE] = sum(bool(per_case.get(c.id, {}).get(SPELLABLE)) for c in result["cases"])
    return counts, differences


def same_table(record: dict) -> bool:
    """The counter read the table the set's own spellable count read (else the two answer different questions)."""
    table = record["inputs"].get("table")
    return bool(record.get("set_table")) and isinstance(table, dict) and table.get("sha256") == record["set_table"]


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def independent_rows(counts: dict, columns: list[str]) -> list[str]:
    """The stage table's italic rows: the counter's counts in the table's columns (blank past its last stage)."""
    spellable = "–" if counts[SPELLABLE] is None else counts[SPELLABLE]
    return [f"| *{name}, independent* | {row['cases']} | {spellable} | "
            + " | ".join(str(row[c]) if c in row else "" for c in columns) + " |"
            for name, row in counts.items() if name != SPELLABLE]


def independent_note(result: dict, record: dict | None, differences: list[tuple] = ()) -> list[str]:
    """What the italic rows are, and every disagreement (``comparison``'s, grouped by the stages each side
    reached)."""
    if record is None:
        why = ("the counter aligns a round-trip case's selection exactly, so it does not count a set aligned "
               "fuzzily" if result["name"].startswith("webkjv") else
               "none was given for this set: `python3 benchmarks/seed001_independent_counts.py CASES GRAPH --table "
               "TABLE --out FILE` on its files, then `--independent FILE`")
        return [f"No independent count stands beside this set ({why}); `tests/test_seed001_accounting.py` checks "
                "the counter against these counts on the bundled cases.", ""]
    inputs = record["inputs"]
    lines = [f"The italic rows are an independent count on this set's files (`benchmarks/seed001_independent_"
             f"counts.py`: its own graph parser, aligner, retrieval and partial filters; cases sha256 "
             f"`{inputs['cases']['sha256'][:12]}`, graph `{inputs['graph']['sha256'][:12]}`, read from "
             f"`{Path(record['path']).name}` by `--independent`)."]
    ties = record.get("counts", {}).get("cases whose sentence is a path tied with the back pointers' 1-best")
    if ties:
        lines[-1] += (f" In {ties} cases the sentence is a lattice path that ties with the graph's 1-best up to "
                      "its 6-digit rounding; the counter follows that path.")
    if not same_table(record):
        lines[-1] += (" It read another table than this set's (or none), so what the table can spell is not "
                      "compared.")
    if not differences:
        return lines + ["It agrees with ours case by case, through the partial filters"
                        + (" and on what the table can spell." if same_table(record) else "."), ""]
    groups = defaultdict(list)
    for what, ours, theirs, case_id, tied in differences:
        groups[(what, ours, theirs, tied)].append(case_id)
    cases = len({d[3] for d in differences})
    untied = len({d[3] for d in differences if not d[4]})
    lines += [f"It disagrees with ours in {cases} case{'s' if cases != 1 else ''}, each named here (ours, then "
              "the counter's: the last stage the gold passed, or whether the table spells the gold)."
              + _ties_sentence(cases - untied, cases), ""]
    for (what, ours, theirs, tied), ids in sorted(groups.items()):
        shown = ", ".join(f"`{i}`" for i in ids[:_SHOWN_IDS]) + (f" and {len(ids) - _SHOWN_IDS} more"
                                                                 if len(ids) > _SHOWN_IDS else "")
        lines.append(f"- {what}: {ours} against {theirs}{', *tied*' if tied else ''}, {len(ids)} "
                     f"case{'s' if len(ids) != 1 else ''}: {shown}")
    return lines + [""]


def _ties_sentence(tied: int, cases: int) -> str:
    """What a disagreement marked *tied* is (empty when none is)."""
    if not tied:
        return ""
    how_many = "Every one is" if tied == cases else f"{tied} of them {'are' if tied != 1 else 'is'}"
    return (f" {how_many} a tie of derivations (*tied*): the case's sentence, which the graph's forward links spell "
            "(the path the paraphraser follows), is the counter's 1-best string in another segmentation, through a "
            "recombined hypothesis that scores as its winner up to the graph's 6-digit rounding; the selection then "
            "touches other phrases, so the aligned source coverage differs, and under that derivation the counter "
            "reaches ours.")
