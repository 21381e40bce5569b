"""The versions of the libraries a tuning run used, read from the installed packages (never written by hand)."""

from __future__ import annotations

from importlib import metadata

from parastudio.core.code_identity import code_version

LIBRARIES = ("numpy", "scipy", "scikit-learn", "kenlm", "duckdb")


def library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"parastudio": code_version()}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
