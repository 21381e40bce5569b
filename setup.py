"""The compiled part of Paraphrase Studio: the search cores (beam, MCPG) and the true-score core, C++ with KenLM.

Everything else about the package is in ``pyproject.toml``. The extension
``parastudio.core.engine._search_cores`` (the beam decoder's search and MCPG's tree search, one module so that a process
holds one KenLM and one model per LM file) links KenLM's query code, compiled here from the
kenlm source distribution on PyPI (the one ``core/engine/lm/kenlm_tools.py`` builds
lmplz from; query code needs no Boost). Where that source comes from, first
found wins:

1. ``PARASTUDIO_KENLM_SOURCE``: a kenlm source folder or ``kenlm-*.tar.gz``;
2. the per-user cache, ``~/.cache/paraphrase-studio/kenlm-src/kenlm-VERSION``;
3. ``pip download --no-binary kenlm kenlm==VERSION`` into that cache.

Every archive (given or downloaded) must have the pinned sha256 before it is unpacked. The extension is
optional: with no compiler, no network and no cached source, or a failed compile, the install goes on
without it and prints one warning; the beam decoder and MCPG then run their Python searches (same results,
slower), and say so once when they first decode.

``PARASTUDIO_BUILD_JOBS`` sets how many files compile at once (default: all cores).

A build from a git checkout also records which code it is, ``parastudio/core/_build_identity.json``
(``{"version", "commit"}``, :mod:`core.code_identity`), so an installed copy names its
commit in every candidate's provenance.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext, naive_recompile
from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

KENLM_SOURCE_VERSION = "0.3.0"
# sha256 of kenlm-0.3.0.tar.gz as PyPI serves it (checked 2026-11-26).
KENLM_SOURCE_SHA256 = "c4628bb9fb63c8a6f9240035b8b037385cfc404cb72e933cf48878291edac1e8"
KENLM_MAX_ORDER = 6  # as the kenlm Python module is built
HERE = Path(__file__).resolve().parent


def _cache_root() -> Path:
    base = os.environ.get("PARASTUDIO_CACHE")
    if base:
        return Path(base)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "paraphrase-studio"


class SourceUnavailable(Exception):
    """The kenlm source cannot be had: the compiled core is skipped, the install goes on."""


def _check_sha256(archive: Path) -> None:
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != KENLM_SOURCE_SHA256:
        raise SourceUnavailable(f"{archive}: expected the kenlm {KENLM_SOURCE_VERSION} source distribution "
                                f"with sha256 {KENLM_SOURCE_SHA256}, found {digest}")


def _extract(archive: Path, into: Path) -> Path:
    _check_sha256(archive)
    into.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=into.parent) as work:
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data") if sys.version_info >= (3, 12) else tar.extractall(work)
        folders = [p for p in Path(work).iterdir() if (p / "lm" / "model.hh").is_file()]
        if not folders:
            raise SourceUnavailable(f"{archive}: expected a kenlm source distribution (lm/model.hh inside)")
        if not into.exists():
            os.replace(folders[0], into)  # atomic: a half-extracted tree is never seen as the cache
    return into


def kenlm_source() -> Path:
    given = os.environ.get("PARASTUDIO_KENLM_SOURCE")
    cached = _cache_root() / "kenlm-src" / f"kenlm-{KENLM_SOURCE_VERSION}"
    if given:
        path = Path(given)
        if path.is_dir():
            return path
        if not path.is_file():
            raise SourceUnavailable(f"PARASTUDIO_KENLM_SOURCE={given}: expected a kenlm source folder or archive")
        return _extract(path, cached.with_name(path.name.removesuffix(".tar.gz")))
    if (cached / "lm" / "model.hh").is_file():
        return cached
    with tempfile.TemporaryDirectory() as download:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "kenlm",
                   "--dest", download, f"kenlm=={KENLM_SOURCE_VERSION}"]
        print("setup.py: downloading the kenlm source distribution:", " ".join(command), flush=True)
        result = subprocess.run(command, capture_output=True, text=True)
        archives = list(Path(download).glob("kenlm-*.tar.gz"))
        if result.returncode != 0 or not archives:
            last = (result.stderr.strip().splitlines() or ["no archive"])[-1]
            raise SourceUnavailable(f"the kenlm source distribution could not be downloaded ({last})")
        return _extract(archives[0], cached)


def kenlm_query_sources(root: Path) -> list[str]:
    """KenLM's query code: lm/, util/ and double-conversion, no programs, tests or builders' mains."""
    files = sorted([*root.glob("lm/*.cc"), *root.glob("util/*.cc"), *root.glob("util/double-conversion/*.cc")])
    return [str(f) for f in files if not (f.name.endswith("main.cc") or f.name.endswith("test.cc"))]


SEARCH_CORES = "parastudio.core.engine._search_cores"
TRUESCORE_CORE = "parastudio.core.engine._truescore_core"
WITH_KENLM = (SEARCH_CORES,)
# extension -> (what is missing when it is not built, what runs instead)
NOT_BUILT = {SEARCH_CORES: ("the compiled search cores were not built", "the beam decoder and MCPG run their Python "
                            "searches (same results, several to many times slower)"),
             TRUESCORE_CORE: ("the compiled true-score core was not built", "the Python dynamic program runs (same "
                              "results, about half as fast)")}


class build_ext_with_kenlm(build_ext):
    """Builds each extension on its own, the search cores with KenLM's query sources (added only when it is
    actually built, not when pip only asks for metadata); one that cannot be built is left out with a warning."""

    def build_extensions(self):
        wanted, built = list(self.extensions), []
        for extension in wanted:
            sources, include_dirs = list(extension.sources), list(extension.include_dirs)
            try:
                if extension.name in WITH_KENLM:
                    root = kenlm_source()
                    extension.sources += kenlm_query_sources(root)
                    extension.include_dirs.append(str(root))
                self.extensions = [extension]
                super().build_extensions()
                built.append(extension)
            except SourceUnavailable as why:
                _warn_without(extension.name, str(why))
            except Exception as why:  # no compiler, missing headers: the Python code still works
                _warn_without(extension.name, f"compiling it failed ({str(why)[-300:]})")
            finally:  # the manifest step after this refuses paths outside the project
                extension.sources, extension.include_dirs = sources, include_dirs
        self.extensions = built  # nothing for the install to copy of what was not built


def _warn_without(name: str, why: str) -> None:
    what, instead = NOT_BUILT[name]
    print(f"setup.py: WARNING: {what}: {why}. Paraphrase Studio is installed all the same; {instead}. Set "
          "PARASTUDIO_KENLM_SOURCE to a kenlm source folder or archive, or install a C++ compiler, and reinstall to "
          "build it.", file=sys.stderr, flush=True)


NATIVE = "core/engine/native/"
# The search cores' one translation unit each (beam_core.cpp, mcpg_core.cpp), the module that joins them
# (search_cores.cpp), and the headers they include (an sdist carries all).
SEARCH_CORES_SOURCES = [NATIVE + name for name in ("search_cores.cpp", "beam_core.cpp", "mcpg_core.cpp")]
SEARCH_CORES_HEADERS = [NATIVE + name for name in (
    "search_cores.hh", "fsm_kbest.hh", "kenlm_model.hh", "kenlm_score_cache.hh", "beam_search.hh", "beam_recombination.hh", "beam_nbest.hh",
    "beam_search_graph.hh", "beam_table_options.hh", "binary_table_arrays.hh", "beam_source_hash.hh", "mcpg_arena.hh", "mcpg_select.hh",
    "mcpg_true_score.hh")]


def extensions() -> list[Pybind11Extension]:
    macros = [("KENLM_MAX_ORDER", str(KENLM_MAX_ORDER)), ("NDEBUG", None), ("HAVE_CLOCKGETTIME", None)]
    libraries = []
    if Path("/usr/include/zlib.h").is_file():
        macros.append(("HAVE_ZLIB", None))
        libraries.append("z")
    return [Pybind11Extension(
        SEARCH_CORES,
        SEARCH_CORES_SOURCES,
        depends=SEARCH_CORES_HEADERS,
        define_macros=macros,
        libraries=libraries,
        # -w: KenLM's own warnings are not ours to fix. No fused multiply-add: MCPG's selection index must round
        # as the Python reference's does (errno is never read: without it sqrt can be vectorised, the same IEEE
        # operation); the beam search and KenLM compute the same either way (no sqrt; x86-64 has no FMA without
        # -march, and elsewhere contraction off is what the Python reference does).
        extra_compile_args=["-O3", "-w", "-ffp-contract=off", "-fno-math-errno"],
        cxx_std=17,
    ), Pybind11Extension(
        TRUESCORE_CORE,
        [NATIVE + "truescore_core.cpp"],
        depends=[NATIVE + "binary_table_arrays.hh"],
        extra_compile_args=["-O3"],
        cxx_std=17,
    )]


class build_py_with_identity(build_py):
    """Copies the package and writes ``core/_build_identity.json`` from git, when built from a checkout."""

    def run(self):
        super().run()
        sys.path.insert(0, str(HERE))
        try:
            from parastudio.core.code_identity import identity_from_git
        finally:
            sys.path.pop(0)
        found = identity_from_git()
        if found is not None:
            import json

            target = Path(self.build_lib) / "parastudio" / "core" / "_build_identity.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(found) + "\n", encoding="utf-8")


# An object already compiled (and newer than its source) is linked again, not compiled again.
def _recompile(obj: str, src: str) -> bool:
    """An object is compiled again when its source or any native header is newer (naive_recompile alone looks at
    the .cpp: an edited header left the old object linked in)."""
    if naive_recompile(obj, src):
        return True
    built = os.stat(obj).st_mtime
    return any(os.stat(header).st_mtime > built for header in SEARCH_CORES_HEADERS
               if os.path.exists(header))


ParallelCompile("PARASTUDIO_BUILD_JOBS", default=0, needs_recompile=_recompile).install()


def packages() -> tuple[list[str], dict[str, str]]:
    """The repository's ``core/``, ``desktop/`` and ``evaldata/`` (and their subpackages) as ``parastudio.*``."""
    found = find_packages(include=["core", "core.*", "desktop", "desktop.*", "evaldata"])
    return ["parastudio", *(f"parastudio.{name}" for name in found)], {
        "parastudio": "parastudio", "parastudio.core": "core", "parastudio.desktop": "desktop",
        "parastudio.evaldata": "evaldata"}


def package_version() -> str:
    """The one version (issue 42): :func:`core.code_identity.source_version` of this tree."""
    sys.path.insert(0, str(HERE))
    try:
        from parastudio.core.code_identity import source_version
    finally:
        sys.path.pop(0)
    return source_version(HERE)


PACKAGES, PACKAGE_DIR = packages()
setup(version=package_version(), packages=PACKAGES, package_dir=PACKAGE_DIR, ext_modules=extensions(), cmdclass={"build_ext": build_ext_with_kenlm, "build_py": build_py_with_identity})
