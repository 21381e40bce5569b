"""Agreement over one million judgments (issue 5 target: at most 2 s).

Prints the CPU time of each stage (other jobs on the machine move it far less than wall time), measured side
by side in one run:
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

from parastudio.core.stats.agreement import RatingMatrix, summarize_agreement
from parastudio.core.stats.judgment_records import read_judgments


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

    start = time.process_time()
    matrix = RatingMatrix.from_judgments(units, annotators, values)
    built = time.process_time()
    unit_codes = np.repeat(np.arange(n_units), args.annotators)  # what a study's integer ids give
    annotator_codes = np.tile(np.arange(args.annotators), n_units)
    label_ids = sorted(set(values))
    label_codes = labels.ravel() - 1
    coded_start = time.process_time()
    coded = RatingMatrix.from_codes(range(n_units), unit_codes, [f"judge{a}" for a in range(args.annotators)],
                                    annotator_codes, [str(v) for v in (1, 2, 3)], label_codes)
    coded_built = time.process_time()
    summary = summarize_agreement(coded, bootstrap=0)
    computed = time.process_time()
    assert summary.statistics == summarize_agreement(matrix, bootstrap=0).statistics and label_ids == ["1", "2", "3"]
    print(f"judgments: {len(values):,} ({n_units:,} items x {args.annotators} annotators, 3 labels); CPU seconds")
    print(f"rating matrix from string columns:  {built - start:6.3f} s")
    print(f"rating matrix from integer codes:   {coded_built - coded_start:6.3f} s")
    print(f"all statistics:                     {computed - coded_built:6.3f} s")
    print(f"agreement total from codes:         {computed - coded_start:6.3f} s  (target <= 0.5 s)")
    print(f"  fleiss kappa {summary.statistics['fleiss_kappa']:.4f}, alpha interval {summary.statistics['krippendorff_alpha_interval']:.4f}")

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "judgments.csv"
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["item", "annotator", "criterion", "value"])
            writer.writerows(zip(units, annotators, ["adequacy"] * len(values), values))
        start = time.process_time()
        records = read_judgments(path)
        read = time.process_time()
        summarize_agreement(records.rating_matrix("adequacy"), bootstrap=0)
        done = time.process_time()
    print(f"read CSV (reference):     {read - start:6.3f} s")
    print(f"CSV end to end:           {done - start:6.3f} s")
    small = RatingMatrix.from_judgments(units[:2000], annotators[:2000], values[:2000])
    start = time.process_time()
    summarize_agreement(small, bootstrap=1000)
    print(f"bootstrap 1000 x {small.n_units} items: {time.process_time() - start:6.3f} s")


if __name__ == "__main__":
    main()
