"""A study's live judgments as :class:`JudgmentRecords`, the form every statistic reads.

The CLI's ``report`` and the desktop dashboard both go through here, so a
figure on screen and one pasted from the command line come from one place.
"""

from __future__ import annotations

from core.stats.judgment_records import JudgmentRecords
from core.store import operations as ops
from core.store.database import Database


def study_judgment_records(db: Database, study_id: int) -> JudgmentRecords:
    """Live judgments on normal items. An item made by several systems counts
    once, in the group of its first system; "-" stands for no system or
    application."""
    records = ops.judgment_records(db, study_id)
    return JudgmentRecords.from_columns(
        [r["item"] for r in records], [r["annotator"] for r in records], [r["criterion"] for r in records],
        [r["value"] for r in records],
        systems=[r["system"] or "-" for r in records],
        applications=[r["application"] or "-" for r in records],
    )


def is_sqlite_file(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False
