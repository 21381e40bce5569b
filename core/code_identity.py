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
DISTRIBUTION = "paraphrase-studio"


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
    status = _git("status", "--porcelain", "--untracked-files=no", "--", "core", "desktop", "parastudio")
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


def source_version(root: Path) -> str:
    """The version to build the distribution under from the source tree at ``root`` (``setup.py`` asks): an sdist's
    ``PKG-INFO`` when there is one (an sdist has no git), else this tree's git identity, else the release."""
    pkg_info = root / "PKG-INFO"
    if pkg_info.is_file():
        for line in pkg_info.read_text(encoding="utf-8").splitlines():
            if line.startswith("Version: "):
                return line.removeprefix("Version: ").strip()
    found = identity_from_git() if root.resolve() == SOURCE_ROOT else None
    return found["version"] if found else __version__


def installed_version() -> str | None:
    """The installed distribution's version (what ``pip show`` and ``importlib.metadata`` say), None when the code
    runs from a source tree that is not installed."""
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def version_line() -> str:
    """``parastudio --version``: the installed version and the commit of the code; in an editable install whose
    source has moved on since it was installed, also the source's own version (reinstall to make them one)."""
    identity = code_identity()
    installed = installed_version()
    line = f"parastudio {installed or identity['version']} (commit {identity['commit']})"
    if installed is not None and installed != identity["version"]:
        line += (f"; the source tree is now {identity['version']}: reinstall it (pip install -e .) and pip, "
                 "importlib.metadata and every provenance record say one version again")
    return line


def code_version() -> str:
    """The running code's version alone (``0.1.0.dev191+ge114d6b``): what a statistic's signature names."""
    return _identity()[0]
