"""Word alignment: eflomal in both directions, symmetrized by grow-diag-final-and.

Directional alignments come from eflomal (Östling and Tiedemann 2016), run
without priors. The two directions are combined with grow-diag-final-and
(Koehn et al. 2003; Koehn et al. 2005), exactly as Moses' ``symal -a=g -d=yes
-f=yes -b=yes`` computes it, including the order in which symal visits points,
which decides the result when two growth steps compete for one word.

Links are ``(source_index, target_index)`` pairs, 0-based, as in Moses'
``aligned.grow-diag-final-and`` files ("i-j", source first).

Reproducibility: eflomal 2.0 seeds its sampler from /dev/urandom and has no
seed option, and its OpenMP threads split the random state in whatever order
they arrive. We run it with one OpenMP thread and preload a tiny shared library
(built once with the system C compiler into the user cache) that answers
eflomal's read of /dev/urandom with bytes derived from ``seed``. Without a C
compiler the alignment still runs, unseeded, and says so in its result.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

Link = tuple[int, int]  # (source index, target index)

# symal's neighbour order: the four "grow" neighbours, then the diagonals.
# Offsets are (target, source), symal's point order.
_NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def grow_diag_final_and(
    source_length: int,
    target_length: int,
    source_to_target: Iterable[Link],
    target_to_source: Iterable[Link],
    *,
    diagonal: bool = True,
    final: bool = True,
    final_and: bool = True,
) -> list[Link]:
    """Symmetrize two directional alignments as Moses' symal does.

    ``source_to_target`` is the direction in which each source word has at
    most one link (symal's direct alignment ``a``); ``target_to_source`` the
    one in which each target word has at most one (symal's inverse ``b``).
    Both are sets of (source, target) links. Defaults give grow-diag-final-and;
    ``final_and=False`` gives grow-diag-final, ``final=False`` grow-diag.

    Mirrors symal.cpp ``printgrow``: points are ordered (target, source); the
    grow loop walks that ordered set while inserting into it, so a point added
    after the current one is visited in the same sweep, one added before it
    only in the next. A neighbour joins if it is in the union and at least one
    of its two words is still unaligned. Then "final" adds the remaining union
    points (first those only in ``target_to_source``, then those only in
    ``source_to_target``, each in (target, source) order) whose words are both
    unaligned ("and") or, without "and", either unaligned.
    """
    direct = {(t, s) for s, t in source_to_target}
    inverse = {(t, s) for s, t in target_to_source}
    for t, s in direct | inverse:
        if not (0 <= s < source_length and 0 <= t < target_length):
            raise ValueError(f"link {s}-{t} outside a {source_length}x{target_length} sentence pair")
    union = direct | inverse
    current = sorted(direct & inverse)
    present = set(current)
    source_covered = [False] * source_length
    target_covered = [False] * target_length
    for t, s in current:
        source_covered[s] = target_covered[t] = True
    neighbours = _NEIGHBOURS if diagonal else _NEIGHBOURS[:4]

    added = True
    while added:
        added = False
        index = 0
        while index < len(current):
            t0, s0 = current[index]
            for dt, ds in neighbours:
                point = (t0 + dt, s0 + ds)
                if point not in union or point in present:
                    continue
                t, s = point
                if target_covered[t] and source_covered[s]:
                    continue
                position = bisect.bisect_left(current, point)
                current.insert(position, point)
                present.add(point)
                if position <= index:
                    index += 1  # keep the iterator on the same point, as std::set does
                target_covered[t] = source_covered[s] = True
                added = True
            index += 1

    if final:
        for only_in in (inverse - direct, direct - inverse):
            for t, s in sorted(only_in):
                if (t, s) in present:
                    continue
                if final_and:
                    eligible = not target_covered[t] and not source_covered[s]
                else:
                    eligible = not (target_covered[t] and source_covered[s])
                if eligible:
                    present.add((t, s))
                    target_covered[t] = source_covered[s] = True
    return sorted((s, t) for t, s in present)


def parse_links(text: str) -> list[Link]:
    """Parse a Pharaoh/Moses alignment line ``"0-0 1-2 ..."``."""
    links = []
    for item in text.split():
        source, _, target = item.partition("-")
        links.append((int(source), int(target)))
    return links


def format_links(links: Iterable[Link]) -> str:
    return " ".join(f"{s}-{t}" for s, t in links)


# ---------------------------------------------------------------- eflomal

_SEED_SHIM_C = r"""
/* Answer fopen("/dev/urandom") with bytes derived from PARASTUDIO_EFLOMAL_SEED. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
static unsigned char seed_bytes[4096];
static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
FILE *fopen(const char *path, const char *mode) {
    static FILE *(*real_fopen)(const char *, const char *) = NULL;
    if (!real_fopen) real_fopen = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
    const char *seed_text = getenv("PARASTUDIO_EFLOMAL_SEED");
    if (seed_text && path && strcmp(path, "/dev/urandom") == 0) {
        uint64_t state = strtoull(seed_text, NULL, 10);
        for (size_t i = 0; i < sizeof(seed_bytes); i += 8) {
            uint64_t value = splitmix(&state);
            memcpy(seed_bytes + i, &value, 8);
        }
        return fmemopen(seed_bytes, sizeof(seed_bytes), "rb");
    }
    return real_fopen(path, mode);
}
"""


def _cache_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "parastudio"


def seed_shim_library() -> Path | None:
    """Build (once) and return the seeding shim; None if no C compiler."""
    digest = hashlib.sha256(_SEED_SHIM_C.encode()).hexdigest()[:12]
    library = _cache_directory() / f"eflomal-seed-{digest}.so"
    if library.exists():
        return library
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    library.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "shim.c"
        source.write_text(_SEED_SHIM_C)
        built = Path(work) / "shim.so"
        result = subprocess.run(
            [compiler, "-O2", "-shared", "-fPIC", "-o", str(built), str(source), "-ldl"],
            capture_output=True, text=True,
        )
        if result.returncode != 0:
            return None
        os.replace(built, library)
    return library


@dataclass
class DirectionalAlignments:
    """eflomal's two directions for each sentence pair, as (source, target) links."""

    forward: list[list[Link]]  # each target word linked to at most one source word
    reverse: list[list[Link]]  # each source word linked to at most one target word
    seeded: bool


def align_eflomal(
    source_lines: Sequence[str],
    target_lines: Sequence[str],
    *,
    seed: int = 0,
    model: int = 3,
) -> DirectionalAlignments:
    """Run eflomal (no priors) on tokenized parallel lines, both directions."""
    import eflomal

    if len(source_lines) != len(target_lines):
        raise ValueError(f"{len(source_lines)} source lines but {len(target_lines)} target lines")
    shim = seed_shim_library()
    saved = {name: os.environ.get(name) for name in ("LD_PRELOAD", "OMP_NUM_THREADS", "PARASTUDIO_EFLOMAL_SEED")}
    # eflomal fails on empty sentences; give them a placeholder and drop its links.
    placeholder = "\u2205"
    sources = [line if line.split() else placeholder for line in source_lines]
    targets = [line if line.split() else placeholder for line in target_lines]
    try:
        os.environ["OMP_NUM_THREADS"] = "1"
        if shim is not None:
            os.environ["LD_PRELOAD"] = " ".join(filter(None, [str(shim), saved["LD_PRELOAD"]]))
            os.environ["PARASTUDIO_EFLOMAL_SEED"] = str(int(seed) + 1)  # splitmix of 0 is fine; +1 keeps it nonzero
        with tempfile.TemporaryDirectory() as work:
            forward_path, reverse_path = Path(work) / "fwd", Path(work) / "rev"
            aligner = eflomal.Aligner(model=model)
            aligner.align(
                [line + "\n" for line in sources],
                [line + "\n" for line in targets],
                links_filename_fwd=str(forward_path),
                links_filename_rev=str(reverse_path),
                quiet=True,
            )
            forward = [parse_links(line) for line in forward_path.read_text(encoding="utf-8").splitlines()]
            reverse = [parse_links(line) for line in reverse_path.read_text(encoding="utf-8").splitlines()]
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    if len(forward) != len(sources) or len(reverse) != len(sources):
        raise RuntimeError(f"eflomal returned {len(forward)}/{len(reverse)} alignments for {len(sources)} pairs")
    for index, (source, target) in enumerate(zip(source_lines, target_lines)):
        if not source.split() or not target.split():
            forward[index] = []
            reverse[index] = []
    return DirectionalAlignments(forward=forward, reverse=reverse, seeded=shim is not None)


def symmetrized_alignments(
    source_lines: Sequence[str], target_lines: Sequence[str], *, seed: int = 0
) -> tuple[list[list[Link]], bool]:
    """eflomal both ways, then grow-diag-final-and per sentence pair."""
    directional = align_eflomal(source_lines, target_lines, seed=seed)
    result = []
    for source, target, forward, reverse in zip(source_lines, target_lines, directional.forward, directional.reverse):
        result.append(
            grow_diag_final_and(len(source.split()), len(target.split()), reverse, forward)
        )
    return result, directional.seeded
