"""Agreement over one million judgments (issue 5 target: at most 2 s).

Prints the time of each stage, measured side by side in one run:
building the rating matrix from string columns, then every statistic of
``parastudio agreement`` (without bootstrap), and CSV reading for reference.

    python benchmarks/bench_agreement.py [--judgments 1000000] [--annotators 2]
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

import numpy as np

from core.stats.agreement import RatingMatrix, summarize_agreement
from core.stats.judgment_records import read_judgments


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--annotators", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n_units = args.judgments // args.annotators
    truth = rng.integers(1, 4, size=n_units)
    labels = np.where(rng.random((n_units, args.annotators)) < 0.7, truth[:, None], rng.integers(1, 4, size=(n_units, args.annotators)))
    units = [f"item{u}" for u in range(n_units) for _ in range(args.annotators)]
    annotators = [f"judge{a}" for _ in range(n_units) for a in range(args.annotators)]
    values = [str(v) for v in labels.ravel()]

    start = time.perf_counter()
    matrix = RatingMatrix.from_judgments(units, annotators, values)
    built = time.perf_counter()
    summary = summarize_agreement(matrix, bootstrap=0)
    computed = time.perf_counter()
    print(f"judgments: {len(values):,} ({n_units:,} items x {args.annotators} annotators, 3 labels)")
    print(f"build rating matrix:      {built - start:6.3f} s")
    print(f"all statistics:           {computed - built:6.3f} s")
    print(f"agreement total:          {computed - start:6.3f} s  (target <= 2 s)")
    print(f"  fleiss kappa {summary.statistics['fleiss_kappa']:.4f}, alpha interval {summary.statistics['krippendorff_alpha_interval']:.4f}")

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "judgments.csv"
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["item", "annotator", "criterion", "value"])
            writer.writerows(zip(units, annotators, ["adequacy"] * len(values), values))
        start = time.perf_counter()
        records = read_judgments(path)
        read = time.perf_counter()
        summarize_agreement(records.rating_matrix("adequacy"), bootstrap=0)
        done = time.perf_counter()
    print(f"read CSV (reference):     {read - start:6.3f} s")
    print(f"CSV end to end:           {done - start:6.3f} s")
    small = RatingMatrix.from_judgments(units[:2000], annotators[:2000], values[:2000])
    start = time.perf_counter()
    summarize_agreement(small, bootstrap=1000)
    print(f"bootstrap 1000 x {small.n_units} items: {time.perf_counter() - start:6.3f} s")


if __name__ == "__main__":
    main()
