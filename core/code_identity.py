"""Which code ran: ``{"version", "commit"}``, recorded in every candidate's provenance.

``core.__version__`` is the release the code builds on; between releases it does
not change, so it cannot tell two runs apart. The version here adds where the
code stands since then, as PEP 440 local versions do (``setuptools-scm`` makes
the same shape): ``0.1.0.dev191+ge114d6b`` is 191 commits into the history at
commit ``e114d6b``, and ``.dirty`` marks uncommitted changes in the source
tree (the commit then does not name all of the code that ran).

Where it comes from, in order:

1. the source tree is a git checkout (an editable install, a clone, a worktree):
   ``git rev-parse HEAD``, ``git rev-list --count HEAD`` and ``git status``;
2. ``core/_build_identity.json``, written beside this module when a wheel is
   built from a checkout (``setup.py``), for installed copies;
3. neither: the release with ``"commit": "unknown"``.

Computed once per process (git takes tens of milliseconds).
"""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

from parastudio.core import __version__

SOURCE_ROOT = Path(__file__).resolve().parent.parent
BUILD_IDENTITY = Path(__file__).resolve().parent / "_build_identity.json"
UNKNOWN = "unknown"


def _git(*arguments: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(SOURCE_ROOT), *arguments], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def identity_from_git() -> dict | None:
    """The version and commit of the git checkout this module is in, or None when it is not in one."""
    if not (SOURCE_ROOT / ".git").exists():  # a directory in a clone, a file in a worktree
        return None
    commit = _git("rev-parse", "HEAD")
    count = _git("rev-list", "--count", "HEAD")
    if not commit or not count:
        return None
    status = _git("status", "--porcelain", "--untracked-files=no", "--", "core")
    dirty = ".dirty" if status else ""
    return {"version": f"{__version__}.dev{count}+g{commit[:7]}{dirty}", "commit": commit}


def identity_from_build() -> dict | None:
    """What ``setup.py`` recorded when the installed copy was built, or None."""
    try:
        recorded = json.loads(BUILD_IDENTITY.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(recorded, dict) and isinstance(recorded.get("version"), str) \
            and isinstance(recorded.get("commit"), str):
        return {"version": recorded["version"], "commit": recorded["commit"]}
    return None


@functools.cache
def _identity() -> tuple[str, str]:
    found = identity_from_git() or identity_from_build() or {"version": __version__, "commit": UNKNOWN}
    return found["version"], found["commit"]


def code_identity() -> dict:
    """``{"version", "commit"}`` of the running code (module docstring)."""
    version, commit = _identity()
    return {"version": version, "commit": commit}


def code_version() -> str:
    """The running code's version alone (``0.1.0.dev191+ge114d6b``): what a statistic's signature names."""
    return _identity()[0]
