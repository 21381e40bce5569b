"""A guard against reference-count bugs of PySide6 6.12.0 (on Python < 3.12).

Measured on PySide6 6.12.0 with CPython 3.11 (and not on 6.11.3): every
``Signal.emit()`` made from Python drops one reference to ``True``, and every
call of a Qt method returning void (``repaint()``, ``setText()``, a queued
``QTimer.singleShot`` callback, ...) drops one reference to ``None``. Python
3.12 made these objects immortal, but on 3.11 their counts reach zero after
some thousands of calls and the interpreter aborts ("Fatal Python error:
bool_dealloc" / "none_dealloc"), in the middle of an annotation session.

The fix is another PySide6 (6.11.3 is clean). Until then, when a leak is
detected, the counts of ``True``, ``False`` and ``None`` are raised far beyond
anything a session can drain, which is what 3.12's immortal objects do by
design. Answers are committed by the writer thread either way; this keeps the
window alive.
"""

from __future__ import annotations

import ctypes
import sys

PROBE_CALLS = 32
_checked = False
_applied = False


def _leaks() -> bool:
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    true_before, none_before = sys.getrefcount(True), sys.getrefcount(None)
    for _ in range(PROBE_CALLS):
        probe.ping.emit()
        probe.setObjectName("probe")  # returns void
    lost_true = true_before - sys.getrefcount(True)
    lost_none = none_before - sys.getrefcount(None)
    return max(lost_true, lost_none) >= PROBE_CALLS // 2


def guard_true_refcount() -> bool:
    """Detect the leaks once per process; if present, make True, False and None practically immortal.

    Returns whether the guard was applied."""
    global _checked, _applied
    if _checked:
        return _applied
    _checked = True
    if sys.version_info >= (3, 12):
        return False  # immortal there
    if _leaks():
        for constant in (True, False, None):
            # CPython keeps ob_refcnt first in every object, at id(obj).
            ctypes.c_ssize_t.from_address(id(constant)).value += 1 << 40
        _applied = True
    return _applied
