"""The per-case file of seed 001's results (``seed001-approaches.jsonl.gz``): one record per case, approach and
feedback setting, with what each case set ran on (its command, code and inputs by sha256)."""

from __future__ import annotations

from pathlib import Path

from parastudio.core.experiments.per_sentence import file_input, run_provenance, write_per_sentence
from parastudio.core.experiments.seed001_variants import graph_size

PER_SENTENCE = "seed001-approaches.jsonl.gz"
PER_SENTENCE_FIELDS = {
    "set": "the case set (a section of this file)",
    "approach": "the approach (a row of Fig. 4.2 and of the fates table)",
    "feedback": "whether the run had feedback (§5.2's table) or not (every other table)",
    "case": "the case's id in its cases file",
    "length": "the case's phrase length in tokens (Fig. 4.3's groups)",
    "success": "whether the gold was among the top 5 suggestions (\"successes\"; the sign tests compare these "
               "per case)",
    "reading": "\"chosen\", or the other reading the run used (\"SDSF as printed\", \"NLTK stopwords\"; "
               "the other readings table)",
    "fate": "where the gold was lost, the first stage that lost it (null with feedback, which is not traced)",
    "tie_at_cut": "whether the first list's top-5 cut falls inside a tie (the ties table)",
    "seconds": "the request's time in seconds (\"p95 ms\": the value at index int(0.95 n) of the sorted times)",
}


def per_sentence_records(sets: list[dict]) -> list[dict]:
    """One record per case, approach and feedback setting (:data:`PER_SENTENCE_FIELDS`)."""
    return [{"set": result["name"], "approach": name, "feedback": feedback, "case": row.case.id,
             "length": row.case.length, "success": row.success, "reading": reading, "fate": row.fate,
             "tie_at_cut": row.tie_at_cut, "seconds": row.seconds}
            for result in sets
            for reading, feedback, runs in (("chosen", False, result["results"]), ("chosen", True, result["feedback"]),
                                            *((r, False, rows) for r, rows in result.get("readings", {}).items()))
            for name, rows in runs.items() for row in rows]


def set_commands(sets: list[dict], command: str) -> dict[str, str]:
    """Per set, the command that ran it (``command`` for sets run by this one)."""
    return {result["name"]: result.get("command", command) for result in sets}


def set_inputs(result: dict, lm: Path) -> dict:
    """A set's input files by sha256 as its run recorded them. A set saved before runs recorded them is hashed
    now, where its files still are, and says so; a file gone since is named with no sha256."""
    if "inputs" in result:
        return result["inputs"]

    def now(path) -> dict | None:
        if path is None:
            return None
        if not Path(path).is_file():
            return {"path": str(path), "sha256": None, "bytes": None, "hashed": "gone when the sets were joined"}
        return {**file_input(path), "hashed": "when the sets were joined, not by the run"}

    return {"cases": now(result["cases_file"]), "graph": now(result["graph"]), "lm": now(lm), "table": None}


def set_settings(result: dict) -> dict | None:
    """The larger graph's decoding settings as the set's run read them (older saved sets: read now)."""
    return result["graph_settings"] if "graph_settings" in result else graph_size(Path(result["graph"]))


def write_per_sentence_file(sets: list[dict], out: Path, *, command: str, recorded: list[dict]) -> dict:
    """The per-case file; ``recorded``: each set's :func:`set_inputs`."""
    commands = set_commands(sets, command)
    codes = {result["name"]: result.get("code") for result in sets}
    header = run_provenance("seed001-approaches", command, {}, PER_SENTENCE_FIELDS,
                            **({"set_commands": commands} if set(commands.values()) != {command} else {}))
    header["inputs"] = {"lm": [r["lm"] for r in recorded], "cases": [r["cases"] for r in recorded],
                        "graphs": [r["graph"] for r in recorded], "tables": [r["table"] for r in recorded]}
    if any(code != {"version": header["version"], "commit": header["commit"]} for code in codes.values()):
        header["set_code"] = codes  # the code each set ran on, where it is not the code that joined them
    write_per_sentence(out / PER_SENTENCE, header, per_sentence_records(sets))
    return header
