"""SPG generation report (seed 004 §5) and speed: prints figures, asserts nothing.

For each application (compression, simplification, similarity): the share of
test sentences paraphrased (1-best has at least one unit replacement), the
mean number of unit replacements per sentence, and seconds per sentence.
Seed 004 §5 reports 97.2 / 95.4 / 56.8 % and 5.36 / 4.47 / 1.87 (their five
tables and MERT-tuned weights; ours: the given table(s), all weights 1).

Data: evaldata/demo (paraphrase-table.gz, lm.bin, test.en, test.ref.en: the
KJV text of the same verses is the similarity reference s') when present;
else the real build pivot table (evaldata/build/tables/paraphrase-table.gz,
filtered to the test sentences) with the build 5-gram LM, test.web and
test.kjv as references; else the build LM and test verses (test.web, references test.kjv) with the
synthetic table of bench_mcpg (numbers then only show the machinery works).

    python benchmarks/bench_spg.py [--sentences 100] [--usability 1.0]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_mcpg import filtered_table, synthetic_table  # noqa: E402

from parastudio.core.engine.decoders.spg import SPGWeights, spg_report  # noqa: E402
from parastudio.core.engine.lm.language_model import LanguageModel  # noqa: E402
from parastudio.core.vocabulary import APPLICATIONS

DEMO = ROOT / "evaldata/demo"
BUILD = ROOT / "evaldata/build"


def read_lines(path: Path) -> list[tuple[str, ...]]:
    return [tuple(line.split()) for line in path.read_text(encoding="utf-8").splitlines()]


def load_data(count: int):
    if (DEMO / "paraphrase-table.gz").exists() and (DEMO / "lm.bin").exists() and (DEMO / "test.en").exists():
        sentences = read_lines(DEMO / "test.en")[:count]
        references = read_lines(DEMO / "test.ref.en")[:count]
        table = filtered_table(DEMO / "paraphrase-table.gz", sentences)
        return sentences, references, [table], LanguageModel(DEMO / "lm.bin"), "evaldata/demo (real pivot table, test set)"
    sentences = read_lines(BUILD / "corpus/test.web")[:count]
    references = read_lines(BUILD / "corpus/test.kjv")[:count]
    if (BUILD / "tables/paraphrase-table.gz").exists():
        table = filtered_table(BUILD / "tables/paraphrase-table.gz", sentences)
        return (sentences, references, [table], LanguageModel(BUILD / "lm/web.5gram.bin"),
                "evaldata/build pivot table (filtered to the sentences) + web.5gram LM, test.web / test.kjv refs")

    table = synthetic_table(sentences, random.Random(1))
    return (sentences, references, [table], LanguageModel(BUILD / "lm/web.5gram.bin"),
            "SYNTHETIC table (kappa=10 random paraphrases) + build LM, test.web / test.kjv")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100)
    parser.add_argument("--usability", type=float, default=1.0, help="lambda_um")
    args = parser.parse_args()
    sentences, references, tables, lm, label = load_data(args.sentences)
    weights = SPGWeights(usability=args.usability)
    print(f"data: {label}; {len(sentences)} sentences; weights {weights.to_json()}")
    print(f"{'application':>15}  {'paraphrased %':>13}  {'replacements/sentence':>21}  {'s/sentence':>10}")
    for application in APPLICATIONS:
        started = time.perf_counter()
        report = spg_report(sentences, tables, lm, application=application,
                            references=references if application == "similarity" else None, weights=weights)
        seconds = (time.perf_counter() - started) / max(1, len(sentences))
        print(f"{application:>15}  {report.paraphrased_percent:13.1f}  {report.mean_replacements:21.2f}  "
              f"{seconds:10.3f}", flush=True)
    print("seed 004 §5:      compression 97.2 % / 5.36, simplification 95.4 % / 4.47, similarity 56.8 % / 1.87")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
