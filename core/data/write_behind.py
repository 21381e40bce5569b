"""Write text through a background thread, so that gzip compression overlaps with making the next lines.

zlib releases the GIL while it compresses, so a thread that writes (and so
compresses) one batch while the caller formats the next uses a second core.
The bytes written are the same: the file receives the same text in the same
order, and deflate's output does not depend on how its input is chunked.
"""

from __future__ import annotations

import queue
import threading
from typing import IO


class WriteBehind:
    """``with WriteBehind(handle) as writer: writer.write(text)``; at exit every batch has been written."""

    def __init__(self, handle: IO[str], *, depth: int = 4) -> None:
        self._handle = handle
        self._batches: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, name="write-behind", daemon=True)

    def _drain(self) -> None:
        while True:
            batch = self._batches.get()
            if batch is None:
                return
            if self._error is None:
                try:
                    self._handle.write(batch)
                except BaseException as error:  # re-raised in the caller's thread
                    self._error = error

    def write(self, text: str) -> None:
        if self._error is not None:
            raise self._error
        self._batches.put(text)

    def __enter__(self) -> "WriteBehind":
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._batches.put(None)
        self._thread.join()
        if self._error is not None and exc_info[0] is None:
            raise self._error
