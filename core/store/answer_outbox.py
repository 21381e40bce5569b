"""Answers on their way to a study on a server, kept on the judge's own disk until the server has them (issue 38).

A judge on another machine can lose the network or see the server restart. Each answer, correction and undo is
appended to the outbox (one JSON line, flushed to disk) before it is sent; the line ``{"done": UID}`` follows
once the server committed it. Sent again after a failure, an entry is first looked for by its uid, so the server
gets each exactly once, in the order given, even when a commit's reply was lost with the connection. An app
killed while offline finds the waiting entries in the outbox at its next start and sends them first.

The file is the judge's alone (mode 0600, beside their other data) and holds answers, never a password.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from parastudio.core.errors import InputFormatError
from parastudio.core.store.annotation import annotate_judgment, judgment_with_uid, record_judgment, undo_last
from parastudio.core.store.database import Database

KINDS = ("answer", "annotate", "undo")
TIMES = ("started_at", "answered_at")


@dataclass(frozen=True)
class Outgoing:
    """One write to send: ``kind`` (an answer, a flag or comment, an undo), its uid and its arguments."""

    kind: str
    uid: str
    args: dict[str, Any]

    def line(self) -> str:
        args = {key: value.isoformat() if isinstance(value, datetime) else value for key, value in self.args.items()}
        return json.dumps({"kind": self.kind, "uid": self.uid, "args": args}, sort_keys=True) + "\n"


class AnswerOutbox:
    """The outbox file at ``path`` (module docstring); made when the first entry is added."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    def waiting(self) -> list[Outgoing]:
        """The entries the server does not have yet, in the order given."""
        if not self.path.exists():
            return []
        entries: dict[str, Outgoing] = {}
        with open(self.path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if not text.endswith("\n"):  # the last line of a process killed while writing it: never sent
                    break
                try:
                    record = json.loads(text)
                    if "done" in record:
                        entries.pop(record["done"], None)
                        continue
                    entry = Outgoing(record["kind"], record["uid"], dict(record["args"]))
                except (ValueError, KeyError, TypeError):
                    raise InputFormatError(str(self.path), number, "an outbox entry (JSON with kind, uid, args) "
                                           'or {"done": UID}', text.strip()[:80]) from None
                if entry.kind not in KINDS:
                    raise InputFormatError(str(self.path), number, f"an entry kind among {', '.join(KINDS)}",
                                           entry.kind)
                entries[entry.uid] = entry
        return [Outgoing(e.kind, e.uid, {k: (datetime.fromisoformat(v) if k in TIMES and v else v)
                                         for k, v in e.args.items()}) for e in entries.values()]

    def add(self, entry: Outgoing) -> None:
        self._append(entry.line())

    def done(self, uid: str) -> None:
        """The server has ``uid``; an outbox with nothing left waiting is emptied."""
        self._append(json.dumps({"done": uid}) + "\n")
        if not self.waiting():
            os.truncate(self.path, 0)

    def _append(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            _drop_torn_tail(descriptor)
            os.write(descriptor, line.encode("utf-8"))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _drop_torn_tail(descriptor: int) -> None:
    """A last line without its newline is one a killed process was writing: it was never on disk as far as the
    judge's screen knew, so it goes (the file is small: it is emptied whenever nothing waits)."""
    size = os.fstat(descriptor).st_size
    if size == 0 or os.pread(descriptor, 1, size - 1) == b"\n":
        return
    content = os.pread(descriptor, size, 0)
    os.ftruncate(descriptor, content.rfind(b"\n") + 1)


def send_once(db: Database, entry: Outgoing) -> tuple[str, int | None]:
    """Write ``entry`` to the study unless the study has it already (its uid): ``(what happened, row id)``,
    what happened being "sent" or "there already"."""
    stored = judgment_with_uid(db, entry.uid)
    if stored is not None:  # an undo answers with the assignment it opened again, as undo_last does
        return "there already", (_assignment_of(db, stored) if entry.kind == "undo" else stored)
    args = entry.args
    if entry.kind == "answer":
        return "sent", record_judgment(db, args["assignment_id"], args["value"], text=args.get("text"),
                                           started_at=args.get("started_at"), answered_at=args.get("answered_at"),
                                           comment=args.get("comment"), flag=bool(args.get("flag")),
                                           duration_ms=args.get("duration_ms"), uid=entry.uid)
    if entry.kind == "annotate":
        from parastudio.core.store.annotation_queries import live_judgment_of

        live = live_judgment_of(db, args["assignment_id"])
        if live is None:
            raise LookupError(f"assignment {args['assignment_id']} has no answer to flag or comment")
        return "sent", annotate_judgment(db, live, comment=args.get("comment"), flag=args.get("flag"),
                                             uid=entry.uid)
    return "sent", undo_last(db, args["annotator_id"], uid=entry.uid)


def _assignment_of(db: Database, judgment_id: int) -> int:
    from sqlalchemy import select

    from parastudio.core.store.models import Judgment

    with db.read_connection() as connection:
        return connection.scalar(select(Judgment.assignment_id).where(Judgment.id == judgment_id))


def is_connection_lost(error: BaseException) -> bool:
    """Whether ``error`` is the server gone (refused, dropped, restarting), not a refusal of what was sent."""
    if getattr(error, "connection_invalidated", False):
        return True
    cause = getattr(error, "orig", None) or error
    module = type(cause).__module__ or ""
    if module.startswith("psycopg"):
        import psycopg

        return isinstance(cause, (psycopg.OperationalError, psycopg.InterfaceError)) and not isinstance(
            cause, psycopg.errors.QueryCanceled)
    return False
