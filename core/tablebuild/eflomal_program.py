"""eflomal's aligner built so that its links depend on the input and the seed only, not on the machine.

Why not the program in the ``eflomal`` wheel: pip compiles it from source on each machine with eflomal's own
``-Ofast -march=native``, so its floating point (fused multiply-adds, reassociated sums, the vector width)
follows the CPU and the compiler of whoever installed it, and the Gibbs sampler, fed the same seed, draws
other links: on one machine the same 3,000 verse pairs gave 142,274 links from the wheel's program and
142,316 from the same source built for a CPU without FMA (issue 39). We build the same version's source
distribution ourselves, once per user (fetched with pip, as :mod:`core.engine.lm.kenlm_tools` does for
KenLM), with

* ``-O2 -ffp-contract=off`` and no ``-march``: IEEE arithmetic in the order the C source states, so every
  x86-64 (and any other IEEE target) computes the same floats; the program calls no libm function but
  ``sqrtf``, which IEEE rounds exactly;
* no ``-fopenmp``: its OpenMP pragmas are ignored, so the two directions and the three samplers run one
  after another in one fixed order whatever the environment says (with threads, samplers take their
  random streams in the order they arrive); ``omp_set_nested`` is stubbed below;
* ``fopen`` wrapped at link time: eflomal 2.0 has no seed option and seeds itself from /dev/urandom; the
  wrapper answers that read with bytes derived from ``PARASTUDIO_EFLOMAL_SEED`` and refuses to run
  without it, so a run can never be silently unseeded (the build checks that the wrapper took).

Only the program is ours; the input files are still written by the installed package's Python half.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from parastudio.core.file_fingerprint import sha256_of

# The flags are part of the result: changing them changes the links, so they name the cached program.
COMPILE_FLAGS = ("-O2", "-ffp-contract=off", "-std=gnu99", "-w")
LINK_FLAGS = ("-Wl,--wrap=fopen", "-lm")
SEED_VARIABLE = "PARASTUDIO_EFLOMAL_SEED"
UNSEEDED_EXIT = 97  # the wrapper's exit when asked for /dev/urandom without a seed
SOURCE_ARCHIVE = "source.tar.gz"

SEEDING_C = r"""
/* Link-time companion of eflomal.c: answer fopen("/dev/urandom") from PARASTUDIO_EFLOMAL_SEED (or refuse to run
   unseeded), and stand in for the one OpenMP call left when eflomal is compiled without OpenMP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
FILE *__real_fopen(const char *path, const char *mode);
static unsigned char seed_bytes[4096];
static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
FILE *__wrap_fopen(const char *path, const char *mode) {
    if (path && strcmp(path, "/dev/urandom") == 0) {
        const char *seed_text = getenv("PARASTUDIO_EFLOMAL_SEED");
        if (!seed_text) {
            fprintf(stderr, "eflomal: PARASTUDIO_EFLOMAL_SEED is not set; refusing to run unseeded\n");
            exit(97);
        }
        uint64_t state = strtoull(seed_text, NULL, 10);
        for (size_t i = 0; i < sizeof(seed_bytes); i += 8) {
            uint64_t value = splitmix(&state);
            memcpy(seed_bytes + i, &value, 8);
        }
        return fmemopen(seed_bytes, sizeof(seed_bytes), "rb");
    }
    return __real_fopen(path, mode);
}
void omp_set_nested(int nested) { (void)nested; }
"""


class EflomalUnavailable(RuntimeError):
    """The reproducible eflomal program could not be built here (no compiler, no source); the message says why."""


@dataclass(frozen=True)
class EflomalProgram:
    """The built program and what it was built from, for the phrase table's provenance."""

    path: Path  # its folder also holds SOURCE_ARCHIVE
    version: str
    source_sha256: str
    compiler: str
    flags: tuple[str, ...]

    def provenance(self) -> dict:
        return {"version": self.version, "source_sha256": self.source_sha256, "compiler": self.compiler,
                "flags": " ".join(self.flags)}


def _cache_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "parastudio"


def eflomal_version() -> str:
    from importlib import metadata  # package metadata is read only when an alignment runs

    try:
        return metadata.version("eflomal")
    except metadata.PackageNotFoundError:
        raise EflomalUnavailable("the eflomal Python package is not installed: pip install eflomal") from None


def eflomal_program() -> EflomalProgram:
    """The program for the installed eflomal version, built on first use (about ten seconds)."""
    version = eflomal_version()
    recipe = hashlib.sha256(repr((COMPILE_FLAGS, LINK_FLAGS, SEEDING_C)).encode()).hexdigest()[:12]
    directory = _cache_directory() / f"eflomal-{version}-{recipe}"
    built = _read_build_record(directory)
    if built is not None:
        return built
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / ".eflomal-build.lock", "w") as lock:
        # The data build aligns in two processes at once: one builds, the other waits and reuses.
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = _read_build_record(directory)
        if built is None:
            _build(version, directory)
            built = _read_build_record(directory)
    if built is None:
        raise EflomalUnavailable(f"building eflomal {version} left no program in {directory}")
    return built


def _read_build_record(directory: Path) -> EflomalProgram | None:
    program, record = directory / "eflomal", directory / "build.json"
    if not (os.access(program, os.X_OK) and record.is_file()):
        return None
    facts = json.loads(record.read_text(encoding="utf-8"))
    return EflomalProgram(program, facts["version"], facts["source_sha256"], facts["compiler"], tuple(facts["flags"]))


def _build(version: str, directory: Path) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise EflomalUnavailable("the word alignment builds eflomal's aligner from source and needs a C compiler; "
                                 "install one with: apt-get install -y gcc")
    print(f"parastudio: building eflomal {version}'s aligner into {directory} (once per user): the wheel's program "
          "is compiled for its machine's CPU, which changes the alignment; this one gives the same links "
          "everywhere", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="parastudio-eflomal-") as work:
        work_path = Path(work)
        fetched = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "eflomal",
             f"eflomal=={version}", "-d", str(work_path)],
            cwd=work_path, capture_output=True, text=True,  # pip fails if the caller's directory has gone
        )
        archives = sorted(work_path.glob("eflomal-*.tar.gz"))
        if fetched.returncode != 0 or not archives:
            said = (fetched.stderr.strip().splitlines() or ["no archive"])[-1]
            raise EflomalUnavailable(f"could not fetch eflomal {version}'s source distribution with pip ({said})")
        source_sha256 = sha256_of(archives[0])
        with tarfile.open(archives[0]) as archive:
            archive.extractall(work_path, filter="data")
        sources = sorted(work_path.glob("*/src/eflomal.c"))
        if not sources:
            raise EflomalUnavailable(f"eflomal {version}'s source distribution has no src/eflomal.c")
        seeding = work_path / "seeding.c"
        seeding.write_text(SEEDING_C, encoding="utf-8")
        # Staged beside its final place and renamed, so a reader never sees half a program (same file system).
        staging = directory.with_name(directory.name + ".part")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        compiled = subprocess.run(
            [compiler, *COMPILE_FLAGS, "-o", str(staging / "eflomal"), str(sources[0]), str(seeding), *LINK_FLAGS],
            capture_output=True, text=True,
        )
        if compiled.returncode != 0:
            raise EflomalUnavailable(f"compiling eflomal {version} failed: {compiled.stderr.strip()[-500:]}")
        _check_unseeded_run_refused(staging / "eflomal", work_path)
        version_line = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout
        shutil.copyfile(archives[0], staging / SOURCE_ARCHIVE)  # the exact source beside what was built from it
        record = {"version": version, "source_sha256": source_sha256,
                  "compiler": (version_line.splitlines() or [compiler])[0],
                  "flags": [*COMPILE_FLAGS, *LINK_FLAGS]}
        (staging / "build.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        shutil.rmtree(directory, ignore_errors=True)
        staging.rename(directory)


def _check_unseeded_run_refused(program: Path, work: Path) -> None:
    """Run the program on one sentence pair without a seed: only a wrapper that took refuses (exit 97)."""
    text = work / "one.txt"
    text.write_text("1 1\n1 0\n", encoding="utf-8")
    environment = {name: value for name, value in os.environ.items() if name != SEED_VARIABLE}
    ran = subprocess.run([str(program), "-m", "1", "-s", str(text), "-t", str(text), "-f", str(work / "links"), "-q"],
                         env=environment, capture_output=True, text=True)
    if ran.returncode != UNSEEDED_EXIT:
        raise EflomalUnavailable("eflomal was built but its /dev/urandom read is not the seeded one (this linker "
                                 f"ignored --wrap=fopen; exit {ran.returncode})")
