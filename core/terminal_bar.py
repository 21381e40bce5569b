"""A tqdm bar on standard error that a signal may cut short while it is being made.

Ctrl+C or SIGTERM (raised as an exception by :mod:`core.interruption`) can arrive inside ``tqdm.__init__``,
before the bar has its position: the half-made bar is dropped, and tqdm's own ``__del__`` then printed an
``AttributeError`` traceback ("no attribute 'pos'") after the command's one line. This bar has nothing to close
in that case and says nothing.
"""

from __future__ import annotations

import functools
import sys

from parastudio.core.terminal_text import unescaped


@functools.cache
def _bar_class():
    from tqdm import tqdm  # here: a command that draws no bar never imports it

    class TerminalBar(tqdm):
        def __del__(self) -> None:
            if hasattr(self, "pos"):  # not made whole: nothing was drawn, nothing to close
                super().__del__()

    return TerminalBar


def terminal_bar(iterable=None, **options):
    """``tqdm(iterable, **options)`` on standard error with control characters left as they are (its own \\r)."""
    return _bar_class()(iterable, file=unescaped(sys.stderr), **options)
