"""The running record of :mod:`core.experiments.mcpg_vs_beam`: one JSON line per finished MCPG search.

A run at the papers' eta (100,000 episodes per decision, seed 000 §4.2) takes minutes per sentence, so each
search's result is appended to ``--records FILE`` the moment it ends (one line, flushed): a run stopped at any
point keeps every sentence it finished, and the same command run again with the same file reuses them and
searches only what is missing (``--recorded-only`` searches nothing and reports what the file holds).

A record is reused only for the same sentence (its id and words), system, search settings (eta, time cap, seed)
and inputs (the table's and LM's sha256, in the settings since 2026-12-07: a record without them, or made on
another table, is never reused, and the run says how many it passed over): the search runs by count, so a record
is exactly what the search would give again (the core that ran it, native or python, gives the same outputs:
``tests/test_mcpg_native.py``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from parastudio.core.errors import InputFormatError
from parastudio.core.textio import open_text_maybe_gzip

if TYPE_CHECKING:
    from parastudio.core.experiments.mcpg_vs_beam_results import MCPGSystem, SentenceResult

_FIELDS = ("sentence_id", "source", "system", "settings", "core", "score", "text", "seconds", "commits", "cut",
           "episodes", "search_seconds")


def _key(sentence_id: int, source, label: str, settings: dict) -> str:
    return json.dumps([sentence_id, list(source), label, settings], sort_keys=True)


def _without_inputs(settings):
    return {key: value for key, value in settings.items() if key != "inputs"} if isinstance(settings, dict) \
        else settings


class SearchRecords:
    """The searches a run has finished, read from ``path`` and appended to it as more finish."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.known: dict[str, dict] = {}
        self.other_inputs = 0  # records asked for whose only difference is the inputs (or that predate them)
        self._any_inputs: set[str] = set()  # each record's key with its inputs left out
        if self.path.exists():
            with open_text_maybe_gzip(self.path) as handle:
                for number, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    try:
                        record = json.loads(line)
                    except ValueError:
                        # A run killed mid-write leaves at most its last line cut short: that search runs again.
                        if line.endswith("\n"):
                            raise InputFormatError(self.path, number, "one JSON search record per line",
                                                   line.rstrip("\n")) from None
                        continue
                    if not isinstance(record, dict) or set(record) != set(_FIELDS):
                        raise InputFormatError(self.path, number, f"a record with the fields {', '.join(_FIELDS)}",
                                               line.rstrip("\n"))
                    self.known[_key(record["sentence_id"], record["source"], record["system"],
                                    record["settings"])] = record
                    self._any_inputs.add(_key(record["sentence_id"], record["source"], record["system"],
                                              _without_inputs(record["settings"])))

    def restore(self, sentence_id: int, result: "SentenceResult", system: "MCPGSystem", settings: dict) -> bool:
        """Fill ``result`` with the recorded search of ``system`` on it; False when there is none."""
        record = self.known.get(_key(sentence_id, result.source, system.label, settings))
        if record is None:
            if _key(sentence_id, result.source, system.label, _without_inputs(settings)) in self._any_inputs:
                self.other_inputs += 1
            return False
        result.scores[system] = record["score"]
        result.texts[system] = record["text"]
        result.seconds[system] = record["seconds"]
        result.commits[system] = record["commits"]
        result.cut[system] = record["cut"]
        result.episodes[system] = record["episodes"]
        result.search_seconds[system] = record["search_seconds"]
        return True

    def append(self, sentence_id: int, result: "SentenceResult", system: "MCPGSystem", settings: dict,
               core: str) -> None:
        """Add ``system``'s finished search on ``result`` to the file (one line, flushed to disk)."""
        record = {"sentence_id": sentence_id, "source": list(result.source), "system": system.label,
                  "settings": settings, "core": core, "score": result.scores.get(system),
                  "text": result.texts.get(system), "seconds": result.seconds.get(system),
                  "commits": result.commits.get(system), "cut": result.cut.get(system),
                  "episodes": result.episodes.get(system), "search_seconds": result.search_seconds.get(system)}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Appending, not an atomic rewrite: the file is a log that grows one finished search at a time.
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())
        self.known[_key(sentence_id, result.source, system.label, settings)] = record
