"""KenLM's training tools (lmplz, build_binary, query), built on first use.

The ``kenlm`` wheel on PyPI only scores; estimating a model needs KenLM's C++
programs. On first use we download the *same version's* source distribution
from PyPI with pip, build the three programs with cmake against Debian's Boost,
and keep them in a per-user cache. Set ``PARASTUDIO_KENLM_BIN`` to a directory
that already holds them (a Moses or KenLM install) to skip the build.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from parastudio.core.errors import InputFileError
from parastudio.core.out_of_space import WHY
from parastudio.core.output_files import resolve_output
from parastudio.core.textio import missing_input, open_text_maybe_gzip, staged_output

PROGRAMS = ("lmplz", "build_binary", "query")
# Debian packages the build needs; unit_test_framework is required by
# KenLM's CMakeLists even when its tests are off.
BUILD_PACKAGES = (
    "cmake",
    "g++",
    "libboost-program-options-dev",
    "libboost-system-dev",
    "libboost-thread-dev",
    "libboost-test-dev",
    "zlib1g-dev",
)


class KenLMToolsError(RuntimeError):
    pass


def cache_root() -> Path:
    base = os.environ.get("PARASTUDIO_CACHE") or os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    root = Path(base)
    return root if os.environ.get("PARASTUDIO_CACHE") else root / "paraphrase-studio"


def kenlm_version() -> str:
    from importlib import metadata  # reading package metadata costs start-up time every other command would pay

    try:
        return metadata.version("kenlm")
    except metadata.PackageNotFoundError:
        raise KenLMToolsError("the kenlm Python package is not installed: pip install kenlm") from None


def binaries_directory() -> Path:
    override = os.environ.get("PARASTUDIO_KENLM_BIN")
    if override:
        return Path(override)
    return cache_root() / f"kenlm-{kenlm_version()}" / "bin"


def _have_all(directory: Path) -> bool:
    return all(os.access(directory / name, os.X_OK) for name in PROGRAMS)


def _say(message: str) -> None:
    print(f"parastudio: {message}", file=sys.stderr, flush=True)


def ensure_kenlm_binaries() -> dict[str, Path]:
    """Paths of lmplz, build_binary and query, building them once if needed."""
    directory = binaries_directory()
    if _have_all(directory):
        return {name: directory / name for name in PROGRAMS}
    if os.environ.get("PARASTUDIO_KENLM_BIN"):
        raise KenLMToolsError(f"PARASTUDIO_KENLM_BIN={directory} does not hold {', '.join(PROGRAMS)}")
    directory.parent.mkdir(parents=True, exist_ok=True)
    lock_path = directory.parent / ".build.lock"
    with open(lock_path, "w") as lock:
        # Two processes asking at once: one builds, the other waits and reuses.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _have_all(directory):
            _build(directory)
    return {name: directory / name for name in PROGRAMS}


def _missing_build_tools() -> list[str]:
    missing = [tool for tool in ("cmake", "make", "g++") if shutil.which(tool) is None]
    headers = {
        "libboost-program-options-dev": "/usr/include/boost/program_options.hpp",
        "libboost-thread-dev": "/usr/include/boost/thread.hpp",
        "libboost-test-dev": "/usr/include/boost/test/unit_test.hpp",
        "zlib1g-dev": "/usr/include/zlib.h",
    }
    missing += [package for package, header in headers.items() if not Path(header).exists()]
    return missing


def _build(directory: Path) -> None:
    version = kenlm_version()
    missing = _missing_build_tools()
    if missing:
        raise KenLMToolsError(
            "building KenLM's lmplz/build_binary needs: "
            + ", ".join(missing)
            + f". Install them with: apt-get install -y {' '.join(BUILD_PACKAGES)}"
        )
    _say(
        f"installing KenLM {version}'s lmplz, build_binary and query into {directory} "
        "(once per user): the kenlm wheel can score but not train language models, "
        "so its source distribution is fetched from PyPI with pip and built with cmake (about a minute)."
    )
    with tempfile.TemporaryDirectory(prefix="parastudio-kenlm-") as work:
        work_path = Path(work)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "kenlm",
             f"kenlm=={version}", "-d", str(work_path)],
            check=True, cwd=work_path,  # pip fails if the caller's directory has gone
        )
        archives = list(work_path.glob("kenlm-*.tar.gz"))
        if not archives:
            raise KenLMToolsError(f"pip did not download the kenlm {version} source distribution")
        with tarfile.open(archives[0]) as archive:
            archive.extractall(work_path, filter="data")
        source = next(p for p in work_path.iterdir() if p.is_dir() and (p / "CMakeLists.txt").exists())
        build = source / "build"
        build.mkdir()
        log_path = work_path / "build.log"
        with open(log_path, "w") as log:
            try:
                subprocess.run(
                    ["cmake", "..", "-DCMAKE_BUILD_TYPE=Release", "-DCOMPILE_TESTS=OFF"],
                    cwd=build, check=True, stdout=log, stderr=subprocess.STDOUT,
                )
                subprocess.run(
                    ["make", f"-j{os.cpu_count() or 2}", *PROGRAMS],
                    cwd=build, check=True, stdout=log, stderr=subprocess.STDOUT,
                )
            except subprocess.CalledProcessError:
                tail = log_path.read_text(errors="replace")[-3000:]
                raise KenLMToolsError(f"building KenLM failed; the end of the build log:\n{tail}") from None
        staging = directory.with_name(directory.name + ".part")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for name in PROGRAMS:
            shutil.copy2(build / "bin" / name, staging / name)
        shutil.rmtree(directory, ignore_errors=True)
        staging.rename(directory)
    _say(f"KenLM tools ready in {directory}")


def train_lm(
    corpus: str | os.PathLike,
    order: int,
    output: str | os.PathLike,
    *,
    prune: list[int] | None = None,
    memory: str = "20%",
    discount_fallback: bool = False,
    arpa_output: str | os.PathLike | None = None,
    binary_type: str = "probing",
    quantize_bits: int | None = None,
) -> Path:
    """Estimate a modified Kneser-Ney LM with lmplz and binarize it with build_binary.

    ``corpus`` is tokenized text, one sentence per line. ``prune`` gives
    lmplz's per-order count thresholds; ``binary_type`` ``trie`` with
    ``quantize_bits`` makes a small model. Output is written through :func:`core.textio.staged_output`
    (atomically; never over the corpus; a device or FIFO written directly); a corpus that is a pipe is
    read once, into the work folder.
    """
    corpus = Path(corpus)
    if not corpus.exists():
        raise missing_input(corpus, "corpus file")
    if corpus.is_dir():
        raise InputFileError(corpus, "a text file, one sentence per line", "a directory")
    if order < 1:
        raise ValueError("order must be at least 1")
    if arpa_output is not None:
        resolve_output(arpa_output, [corpus])  # refused now, not after the training
    # lmplz takes any bytes as words: a corpus that is not text (not UTF-8, a NUL, a binary file) would make a
    # model of garbage with exit 0, so it is read through the checked reader first (file:line: expected ...);
    # a pipe is checked as it is copied into the work folder (_train).
    if corpus.is_file():
        with open_text_maybe_gzip(corpus) as checked:
            for _ in checked:
                pass
    tools = ensure_kenlm_binaries()
    with staged_output(output, inputs=[corpus], what="a binary KenLM model") as binary:
        # The work folder is named after the output and its owner: the next training of the same output removes
        # what a killed one left (an ARPA file can be gigabytes).
        work = binary.with_name(binary.name.removesuffix(".part") + "-work.part")
        work.mkdir()
        try:
            _train(tools, corpus, order, work, binary, prune=prune, memory=memory,
                   discount_fallback=discount_fallback, arpa_output=arpa_output, binary_type=binary_type,
                   quantize_bits=quantize_bits)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return Path(output)


def _train(tools: dict, corpus: Path, order: int, work: Path, binary: Path, *, prune, memory, discount_fallback,
           arpa_output, binary_type, quantize_bits) -> None:
    given = corpus
    if not corpus.is_file():  # a pipe: its one pass, checked as text, goes into the work folder for lmplz
        copy = work / "corpus.txt"
        with open_text_maybe_gzip(corpus) as stream, open(copy, "w", encoding="utf-8") as out:
            for line in stream:
                out.write(line)
        corpus = copy
    arpa = Path(work) / "model.arpa"
    command = [str(tools["lmplz"]), "-o", str(order), "-S", memory, "-T", str(work), "--text", str(corpus),
               "--arpa", str(arpa)]
    if prune:
        command += ["--prune", *map(str, prune)]
    if discount_fallback:
        command.append("--discount_fallback")
    _run(command, "lmplz", binary)
    build_command = [str(tools["build_binary"])]
    if quantize_bits:
        build_command += ["-q", str(quantize_bits), "-b", str(quantize_bits)]
    build_command += [binary_type, str(arpa), str(binary)]
    _run(build_command, "build_binary", binary)
    if arpa_output is not None:  # copied beside it, then renamed: never a half-copied ARPA file
        with staged_output(arpa_output, inputs=[given], what="an ARPA model", text=True) as copy:
            shutil.copyfile(arpa, copy)


def _run(command: list[str], name: str, writing: Path) -> None:
    """Run one KenLM program; its failure in one line. A full disk or the file-size limit is the OSError every
    writer raises for them (said as such, naming the model being written)."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0:
        return
    said = _what_it_said(result.stderr)
    if result.returncode == -signal.SIGXFSZ or "File too large" in said:
        raise OSError(errno.EFBIG, WHY[errno.EFBIG], str(writing))
    if "No space left on device" in said:
        raise OSError(errno.ENOSPC, WHY[errno.ENOSPC], str(writing))
    if result.returncode < 0:
        ended = f"ended by {signal.Signals(-result.returncode).name}"
    else:
        ended = f"exit {result.returncode}"
    raise KenLMToolsError(f"{name} failed ({ended}){': ' + said if said else ''}")


# lmplz's progress report on stderr: stage headings, the bar, counts and sizes; never the reason it failed.
_PROGRESS = re.compile(r"^(===|Reading |-+5-+10|\*+$|Unigram tokens|Chain sizes|Statistics:|Memory estimate|"
                       r"Substituting fallback|Discount|Creating|Estimated|Writing|SUCCESS)")


def _what_it_said(stderr: str) -> str:
    """The lines of a KenLM program's stderr that say why it failed, joined into one line (the C++ source
    location of the exception left out); our option's spelling where lmplz names its own."""
    reasons = [line.strip() for line in stderr.splitlines()
               if line.strip() and not _PROGRESS.match(line.strip()) and " threw " not in line]
    text = " ".join(reasons)[-600:]
    return text.replace("--discount_fallback", "--discount-fallback")
