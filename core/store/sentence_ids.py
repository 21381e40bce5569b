"""A source sentence's id in every output: ``sentence_id``, an integer, as ``parastudio generate`` writes it.

A study keeps each source's id as text (``study import-candidates`` reads a
JSONL ``sentence_id``, a CSV ``item`` or the line of ``--sources``; a choice
task is keyed by its case id). Every output that names the source (``study
export-judgments``, ``study items``, ``inspect``, the dev set) writes
``sentence_id`` as the integer it is when it is a whole number, so a join with
``generate``'s output or a dev set (``docs/devset.schema.json``) matches; an id
that is not a whole number (``Gen.18.1:0``) has no sentence number and is
written as null (an empty CSV cell). ``source_key`` is the id as the study
keeps it, the same for the same source in every output, for studies whose ids
are not numbers. The dev set, whose schema requires the integer, refuses such
a study instead (:func:`core.tuning.devset.sentence_number`).

Judgment files written before (a ``sentence`` column holding the text id) are
still read (:func:`core.stats.judgment_records.read_judgments`).
"""

from __future__ import annotations

import re

_WHOLE = re.compile(r"[0-9]+")


def sentence_id(external_id: str | None) -> int | None:
    """``generate``'s sentence number for a stored source id; None when the id is not a whole number."""
    if external_id is None or _WHOLE.fullmatch(external_id) is None:
        return None
    return int(external_id)

