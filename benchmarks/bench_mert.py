"""MERT's exact line search (Och 2003) against evaluating every crossing: prints figures, asserts nothing.

Synthetic n-best lists (``--sentences`` lists of ``--nbest`` candidates with ``--features`` features and
replacement statistics, seeded) and random lines through weight space. Two ways to find the best rf along a
line, which agree (the test suite checks it with hypothesis):

* the envelope sweep of :mod:`core.tuning.line_search`: per list an upper envelope (sort plus hull), one sorted
  sweep over every list's breakpoints;
* brute force: every pairwise crossing of every list, the objective evaluated directly between each two.

    python benchmarks/bench_mert.py [--sentences 100] [--nbest 30] [--features 5] [--lines 20]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parastudio.core.tuning.line_search import line_search  # noqa: E402
from parastudio.core.tuning.objectives import make_objective  # noqa: E402


def synthetic_lists(sentences: int, nbest: int, features: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    lists = []
    for _ in range(sentences):
        length = int(rng.integers(10, 40))
        correct, incorrect = rng.integers(0, 4, nbest), rng.integers(0, 4, nbest)
        replaced = np.minimum(length, correct + incorrect + rng.integers(0, 3, nbest))
        stats = np.column_stack([correct, incorrect, np.zeros(nbest), replaced, np.full(nbest, length),
                                 rng.integers(0, 2, nbest), np.ones(nbest)]).astype(float)
        lists.append((rng.normal(size=(nbest, features)), stats))
    return lists


def brute_force(lists, point, direction, objective) -> float:
    crossings = set()
    for features, _ in lists:
        a, b = features @ point, features @ direction
        for i, j in itertools.combinations(range(len(a)), 2):
            if b[i] != b[j]:
                crossings.add((a[j] - a[i]) / (b[i] - b[j]))
    xs = sorted(crossings)
    probes = np.array([xs[0] - 1, xs[-1] + 1] + [(x + y) / 2 for x, y in zip(xs, xs[1:])])
    totals = sum(stats[np.argmax(features @ point + probes[:, None] * (features @ direction), axis=1)]
                 for features, stats in lists)
    return float(objective(totals).max())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100)
    parser.add_argument("--nbest", type=int, default=30)
    parser.add_argument("--features", type=int, default=5)
    parser.add_argument("--lines", type=int, default=20)
    args = parser.parse_args(argv)
    lists = synthetic_lists(args.sentences, args.nbest, args.features)
    objective = make_objective("rf")
    rng = np.random.default_rng(1)
    lines = [(rng.normal(size=args.features), rng.normal(size=args.features)) for _ in range(args.lines)]
    started = time.perf_counter()
    exact = [line_search(lists, p, d, objective)[1] for p, d in lines]
    envelope_seconds = time.perf_counter() - started
    started = time.perf_counter()
    brute = [brute_force(lists, p, d, objective) for p, d in lines]
    brute_seconds = time.perf_counter() - started
    agree = sum(abs(a - b) <= 1e-12 for a, b in zip(exact, brute))
    print(f"{args.sentences} n-best lists x {args.nbest} candidates, {args.features} features, {args.lines} lines")
    print(f"envelope sweep: {args.lines / envelope_seconds:8.1f} line searches/s")
    print(f"every crossing: {args.lines / brute_seconds:8.1f} line searches/s")
    print(f"ratio: {brute_seconds / envelope_seconds:.1f}x; same best value on {agree} of {args.lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
