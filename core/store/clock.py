"""Time in the store: aware UTC datetimes, their ISO text, and how long a judgment took."""

from __future__ import annotations

from datetime import datetime, timezone


def now() -> datetime:
    return datetime.now(timezone.utc)


def aware(moment: datetime | None) -> datetime | None:
    """A datetime with a time zone (naive ones, as SQLite returns them, are UTC)."""
    if moment is None:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def iso_time(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC, to the millisecond."""
    moment = aware(moment)
    if moment is None:
        return None
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def duration_ms(started_at: datetime | None, answered_at: datetime | None, recorded: int | None = None) -> int | None:
    """How long a judgment took: ``recorded`` when known (the screen's clock, which pauses while the screen is
    hidden or idle), else milliseconds from ``started_at`` to ``answered_at`` (never negative); None when neither."""
    if recorded is not None:
        return recorded
    started_at, answered_at = aware(started_at), aware(answered_at)
    if started_at is None or answered_at is None:
        return None
    return max(0, round((answered_at - started_at).total_seconds() * 1000))
