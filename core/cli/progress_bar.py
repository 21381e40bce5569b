"""The CLI's :class:`core.progress.Progress`: a tqdm bar on stderr, a new one when the stage (message) changes."""

from __future__ import annotations

import contextlib
import sys
from typing import Iterator

from parastudio.core.progress import Progress
from parastudio.core.terminal_bar import terminal_bar


@contextlib.contextmanager
def progress_bar(unit: str = "", *, leave: bool = False, units: dict[str, str] | None = None) -> Iterator[Progress]:
    """``with progress_bar("sentence") as progress: work(progress=progress)``; bars close at exit.

    The message names the stage: a report with a new message closes the bar and
    opens another. ``units`` gives a per-stage unit. tqdm hides itself when
    stderr is not a terminal (``disable=None``).
    """
    if not _shown():  # tqdm would hide itself (disable=None): do not pay for importing it
        yield lambda done, total, message="": None
        return
    bars: dict = {}
    current: list[str] = []

    def report(done: int, total: int | None, message: str = "") -> None:
        stage = message.split(":", 1)[0] if message else ""
        bar = bars.get(stage)
        if bar is None:
            for other in bars.values():
                other.close()
            bar = bars[stage] = terminal_bar(desc=stage or None, total=total, unit=(units or {}).get(stage, unit),
                                             leave=leave, disable=None)
            current[:] = [stage]
        bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield report
    finally:
        for bar in bars.values():
            bar.close()


def _shown() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False
