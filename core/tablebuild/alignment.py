"""Word alignment: eflomal in both directions, symmetrized by grow-diag-final-and.

Directional alignments come from eflomal (Östling and Tiedemann 2016), run
without priors. The two directions are combined with grow-diag-final-and
(Koehn et al. 2003; Koehn et al. 2005), exactly as Moses' ``symal -a=g -d=yes
-f=yes -b=yes`` computes it, including the order in which symal visits points,
which decides the result when two growth steps compete for one word.

Links are ``(source_index, target_index)`` pairs, 0-based, as in Moses'
``aligned.grow-diag-final-and`` files ("i-j", source first).

Reproducibility: eflomal 2.0 has no seed option and the program in its wheel is
compiled for the installing machine's CPU, so even a seeded run gives other links
on another machine (issue 39). We run the program :mod:`core.tablebuild.eflomal_program` builds
(IEEE arithmetic, one thread, its /dev/urandom read answered from ``seed``): the
same lines and seed give the same links on any machine, load or process layout.
"""

from __future__ import annotations

import bisect
import math
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from parastudio.core.tablebuild.eflomal_program import SEED_VARIABLE, EflomalProgram, eflomal_program

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


@dataclass
class DirectionalAlignments:
    """eflomal's two directions for each sentence pair, as (source, target) links."""

    forward: list[list[Link]]  # each target word linked to at most one source word
    reverse: list[list[Link]]  # each source word linked to at most one target word
    seeded: bool
    program: dict  # the eflomal program that ran: version, source sha256, compiler, flags


def eflomal_iterations(sentence_pairs: int, model: int = 3) -> tuple[int, int, int]:
    """Iterations of IBM1, HMM and fertility: the defaults of eflomal 2.0's ``align`` (relative iterations 1.0)."""
    iterations = max(2, int(round(5000 / math.sqrt(sentence_pairs))))
    quarter = max(1, iterations // 4)
    if model == 1:
        return iterations, 0, 0
    if model == 2:
        return max(2, quarter), iterations, 0
    return max(2, quarter), quarter, iterations


def align_eflomal(
    source_lines: Sequence[str],
    target_lines: Sequence[str],
    *,
    seed: int = 0,
    model: int = 3,
    program: EflomalProgram | None = None,
) -> DirectionalAlignments:
    """Run eflomal (no priors) on tokenized parallel lines, both directions.

    The program is :mod:`core.tablebuild.eflomal_program`'s, so the links are the same on every machine; the
    options are eflomal 2.0's ``Aligner`` defaults (3 samplers, null prior 0.2). ``program``: that program where
    it was shipped to (a Spark executor's copy), else the one built here.
    """
    if len(source_lines) != len(target_lines):
        raise ValueError(f"{len(source_lines)} source lines but {len(target_lines)} target lines")
    if not source_lines:
        return DirectionalAlignments(forward=[], reverse=[], seeded=True, program={})
    program = program or eflomal_program()  # first: without the eflomal package it says so in one line
    import eflomal
    # eflomal fails on empty sentences; give them a placeholder and drop its links.
    placeholder = "\u2205"
    sources = [line if line.split() else placeholder for line in source_lines]
    targets = [line if line.split() else placeholder for line in target_lines]
    with tempfile.TemporaryDirectory() as work:
        work_path = Path(work)
        source_path, target_path = work_path / "source", work_path / "target"
        forward_path, reverse_path = work_path / "fwd", work_path / "rev"
        with open(source_path, "wb") as source_file, open(target_path, "wb") as target_file:
            eflomal.Aligner(model=model).prepare_files(
                [line + "\n" for line in sources], source_file, [line + "\n" for line in targets], target_file,
                None, None)
        first, second, third = eflomal_iterations(len(sources), model)
        arguments = [str(program.path), "-m", str(model), "-s", str(source_path), "-t", str(target_path),
                     "-n", "3", "-N", "0.2", "-1", str(first), "-2", str(second), "-3", str(third), "-q",
                     "-f", str(forward_path), "-r", str(reverse_path)]
        # The seed goes to the child alone: this process's environment is shared with its other threads.
        environment = {**os.environ, SEED_VARIABLE: str(int(seed) + 1)}  # splitmix of 0 is fine; +1 keeps it nonzero
        ran = subprocess.run(arguments, env=environment, capture_output=True, text=True)
        if ran.returncode != 0:
            raise RuntimeError(f"eflomal exited with {ran.returncode}: {ran.stderr.strip()[-500:]}")
        forward = [parse_links(line) for line in forward_path.read_text(encoding="utf-8").splitlines()]
        reverse = [parse_links(line) for line in reverse_path.read_text(encoding="utf-8").splitlines()]
    if len(forward) != len(sources) or len(reverse) != len(sources):
        raise RuntimeError(f"eflomal returned {len(forward)}/{len(reverse)} alignments for {len(sources)} pairs")
    for index, (source, target) in enumerate(zip(source_lines, target_lines)):
        if not source.split() or not target.split():
            forward[index] = []
            reverse[index] = []
    return DirectionalAlignments(forward=forward, reverse=reverse, seeded=True, program=program.provenance())


def symmetrized_alignments(
    source_lines: Sequence[str], target_lines: Sequence[str], *, seed: int = 0, program: EflomalProgram | None = None
) -> tuple[list[list[Link]], dict]:
    """eflomal both ways, then grow-diag-final-and per sentence pair; also the eflomal program that ran."""
    directional = align_eflomal(source_lines, target_lines, seed=seed, program=program)
    result = []
    for source, target, forward, reverse in zip(source_lines, target_lines, directional.forward, directional.reverse):
        result.append(
            grow_diag_final_and(len(source.split()), len(target.split()), reverse, forward)
        )
    return result, directional.program
