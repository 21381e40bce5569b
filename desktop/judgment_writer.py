"""The single writer thread: every judgment committed in its own transaction,
in the order given, while the screen has already moved on.

The annotation screen puts a task on the queue and shows the next item at
once; this thread runs the store operations one by one (``record_judgment``,
``annotate_judgment``, ``undo_last``), each one committed transaction, and
reports back through Qt signals (delivered on the UI thread). One writer
means no two writes of this process ever wait on each other. ``close()``
drains the queue before returning, so closing the window loses nothing;
only a process killed within the few milliseconds between a key press and
its commit can lose that one answer. A study another program keeps locked
is waited for by the store itself (:mod:`core.store.write_retry`).

After each task the writer asks whether the study's write-ahead log it
writes into is still the file on disk (:mod:`core.store.wal_file`): when
another program deleted it, an answer committed into it reached nobody, so
the connections are opened afresh and the answer is written again, once
(found by its ``uid`` if the old log was saved after all), and the status
bar says what happened. Never a silent loss.

On a study on a server the writer has an outbox (:mod:`core.store.answer_outbox`): every answer, flag, comment
and undo is on the judge's disk before it is sent, and while the server cannot be reached the writer keeps
trying, in order, and says so (``offline``: the number of entries waiting; 0 once they are all written). Each
is written exactly once; what is still waiting when the window closes is sent first at the next start.
"""

from __future__ import annotations

import queue
import threading
import time
import traceback
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, Signal

from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.store.operations import AnswerOutbox, Outgoing, is_connection_lost, send_once
from parastudio.core.store.wal_file import reopen_if_wal_replaced

WAL_REPLACED = ("Another program replaced the study's log file (the one this app was writing): the study was "
                "opened again")


@dataclass
class _Task:
    kind: str  # "answer", "annotate", "undo", "call"
    args: dict[str, Any]


class JudgmentWriter(QObject):
    committed = Signal(int, int)  # assignment id, judgment id
    annotated = Signal(int, int)  # assignment id, new judgment id
    undone = Signal(int, int)  # annotator id, assignment id open again (-1: nothing to undo)
    session_lost = Signal(int, int)  # study id, annotator id: another window took over judging as them
    failed = Signal(str)
    warned = Signal(str)  # saved, but something the user should know happened (the status bar shows it)
    closed = Signal()  # the queue is drained and the thread stopped: nothing more can be queued
    offline = Signal(int)  # entries waiting on this computer for the server (0: all written, online again)

    _STOP = object()
    RETRY_S = (0.25, 0.5, 1.0, 2.0, 4.0)  # waits between tries while the server cannot be reached, then the last

    def __init__(self, db: Database, parent: QObject | None = None, outbox: AnswerOutbox | None = None):
        super().__init__(parent)
        self.db = db
        self.outbox = outbox
        self.offline_waiting = 0  # as last said by ``offline``
        self._queue: queue.Queue = queue.Queue()
        self._closed = False
        self._closing = threading.Event()
        for entry in outbox.waiting() if outbox is not None else ():  # left by a window closed (or killed) offline
            self._queue.put(_Task("send", {"entry": entry}))
        self._thread = threading.Thread(target=self._run, name="judgment-writer", daemon=True)
        self._thread.start()

    # called from the UI thread ------------------------------------------------
    def answer(self, assignment_id: int, value: str, *, text: str | None = None,
               started_at: datetime | None = None, answered_at: datetime | None = None,
               comment: str | None = None, flag: bool = False, duration_ms: int | None = None) -> None:
        self._put("answer", assignment_id=assignment_id, value=value, text=text, started_at=started_at,
                  answered_at=answered_at, comment=comment, flag=flag, duration_ms=duration_ms,
                  uid=str(uuid.uuid4()))

    def is_offline(self) -> bool:
        return self.offline_waiting > 0

    @property
    def is_closed(self) -> bool:
        return self._closed

    def heartbeat(self, lock) -> None:
        """Keep a judging session's lock fresh (:mod:`core.store.session_lock`, through the store's operations); ``session_lost`` if taken over.

        Upkeep, not data: once the writer is closed a heartbeat is skipped (the lock then goes stale and is
        free again), where an answer queued on a closed writer still raises."""
        if not self._closed:
            self._put("heartbeat", lock=lock)

    def release(self, lock) -> None:
        if not self._closed:
            self._put("release", lock=lock)

    def annotate(self, assignment_id: int, *, comment: str | None = None, flag: bool | None = None) -> None:
        """Flag or comment an answered assignment (after any answer still queued for it)."""
        self._put("annotate", assignment_id=assignment_id, comment=comment, flag=flag)

    def undo(self, annotator_id: int) -> None:
        self._put("undo", annotator_id=annotator_id)

    def pending(self) -> int:
        return self._queue.unfinished_tasks

    def drain(self, timeout_s: float | None = None) -> bool:
        """Wait until every queued task is committed; False on timeout."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while self._queue.unfinished_tasks:
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.002)
        return True

    def close(self) -> None:
        """Commit everything queued, then stop the thread; while the server cannot be reached, what waits stays in
        the outbox for the next start."""
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        self._queue.put(self._STOP)
        self._thread.join()
        self.closed.emit()

    def _put(self, kind: str, **args: Any) -> None:
        if self._closed:
            raise RuntimeError("the judgment writer is closed")
        if self.outbox is not None and kind in ("answer", "annotate", "undo"):
            entry = Outgoing(kind, args.pop("uid", None) or str(uuid.uuid4()), args)
            self.outbox.add(entry)  # on this computer's disk before it is sent
            self._queue.put(_Task("send", {"entry": entry}))
            return
        self._queue.put(_Task(kind, args))

    # the writer thread -----------------------------------------------------------
    def _run(self) -> None:
        while True:
            task = self._queue.get()
            try:
                if task is self._STOP:
                    return
                self._execute(task)
                self._check_wal(task)
            except Exception as error:  # locked through every retry, a bug or a bad value: say so, keep the thread
                self._report(error)
            finally:
                self._queue.task_done()

    def _check_wal(self, task: _Task) -> None:
        """Write an answer again when the log it went into was deleted under us (module docstring)."""
        if not reopen_if_wal_replaced(self.db):
            return
        if task.kind == "answer":
            if ops.judgment_with_uid(self.db, task.args["uid"]) is None:
                self._execute(task)
            self.warned.emit(f"{WAL_REPLACED} and your last answer saved again.")
        elif task.kind in ("heartbeat", "release"):  # the same again changes nothing: no answer was in the lost log
            self._execute(task)
        else:
            self.warned.emit(f"{WAL_REPLACED}: check that your last change ({task.kind}) is there.")
        if reopen_if_wal_replaced(self.db):
            raise OSError("the study's log file is still not the one on disk: close the app and open the study again")

    def _report(self, error: Exception) -> None:
        traceback.print_exc()
        self.failed.emit(f"{type(error).__name__}: {error}")

    def _send(self, entry: Outgoing) -> None:
        """Send one outbox entry exactly once, trying again while the server cannot be reached (module docstring)."""
        tries = 0
        while True:
            if self._closing.is_set() and self.offline_waiting:
                return  # the window closes offline: the entry waits in the outbox for the next start
            try:
                _, result = send_once(self.db, entry)
                break
            except Exception as error:
                if not is_connection_lost(error):
                    self.outbox.done(entry.uid)  # refused by the server for what it is: said, never sent again
                    raise
                self.offline_waiting = len(self.outbox.waiting())
                self.offline.emit(self.offline_waiting)
                self._closing.wait(self.RETRY_S[min(tries, len(self.RETRY_S) - 1)])
                tries += 1
        self.outbox.done(entry.uid)
        if entry.kind == "answer":
            self.committed.emit(entry.args["assignment_id"], result)
        elif entry.kind == "annotate":
            self.annotated.emit(entry.args["assignment_id"], result)
        else:
            self.undone.emit(entry.args["annotator_id"], -1 if result is None else result)
        if self.offline_waiting:
            self.offline_waiting = len(self.outbox.waiting())
            self.offline.emit(self.offline_waiting)

    def _execute(self, task: _Task) -> None:
        args = task.args
        if task.kind == "send":
            self._send(args["entry"])
        elif task.kind == "answer":
            judgment_id = ops.record_judgment(
                self.db, args["assignment_id"], args["value"], text=args["text"], started_at=args["started_at"],
                answered_at=args["answered_at"], comment=args["comment"], flag=args["flag"],
                duration_ms=args.get("duration_ms"), uid=args["uid"])
            self.committed.emit(args["assignment_id"], judgment_id)
        elif task.kind == "annotate":
            live = ops.live_judgment_of(self.db, args["assignment_id"])
            if live is None:
                raise LookupError(f"assignment {args['assignment_id']} has no answer to flag or comment")
            new_id = ops.annotate_judgment(self.db, live, comment=args["comment"], flag=args["flag"])
            self.annotated.emit(args["assignment_id"], new_id)
        elif task.kind == "undo":
            reopened = ops.undo_last(self.db, args["annotator_id"])
            self.undone.emit(args["annotator_id"], -1 if reopened is None else reopened)
        elif task.kind == "heartbeat":
            lock = args["lock"]
            if not ops.heartbeat_session(self.db, lock):
                self.session_lost.emit(lock.study_id, lock.annotator_id)
        elif task.kind == "release":
            ops.release_session(self.db, args["lock"])
        else:
            raise ValueError(task.kind)
