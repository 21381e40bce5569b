"""The Suggestions screen's work on the bundled round-trip cases: evaluating an approach into case rows, filtering them.

    python3 benchmarks/bench_suggestion_cases.py [--cases roundtrip|webkjv] [--approach approach-1 ...]

Measures, side by side in one run and per approach: ``parastudio autoeval``'s
evaluation (:func:`core.engine.decoders.cat.autoeval.evaluate`, success only) and the
screen's worker (:func:`core.inspection.suggestion_cases.evaluate_rows`: the
gold's fate through the pipeline, the suggestions' scores, what each stage
kept, the candidates not shown), with the ratio; then the screen's filters on
the rows of every approach (approach, span length, success, disagreement).
Prints seconds, milliseconds and ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default="roundtrip")
    parser.add_argument("--approach", action="append", default=[])
    args = parser.parse_args()
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.decoders.cat.approaches import APPROACHES
    from parastudio.core.engine.decoders.cat.autoeval import evaluate
    from parastudio.core.engine.decoders.cat.graph_store import open_graph
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.inspection.suggestion_cases import evaluate_rows, filter_case_rows, load_case_set

    names = args.approach or ["approach-1", "approach-10"]
    case_set = load_case_set(args.cases)
    lm = LanguageModel(demo_files().lm)
    rows = []
    with open_graph(case_set.graph) as store:
        for name in names:
            started = time.perf_counter()
            evaluation = evaluate(store, case_set.cases, APPROACHES[name], lm=lm)
            plain = time.perf_counter() - started
            started = time.perf_counter()
            own = evaluate_rows(store, case_set.cases, [APPROACHES[name]], lm=lm)
            full = time.perf_counter() - started
            rows += own
            print(f"{name} on {len(case_set.cases)} {case_set.name} cases: autoeval {plain:.2f} s "
                  f"({evaluation.successes} found), case rows {full:.2f} s "
                  f"({sum(r.success for r in own)} found), ratio {full / plain:.2f}")
    for label, filters in (("approach", {"approach": names[-1]}), ("span length 1-3", {"max_length": 3}),
                           ("failures", {"success": False}), ("disagreements", {"split": True})):
        times = []
        for _ in range(50):
            started = time.perf_counter()
            shown = filter_case_rows(rows, **filters)
            times.append(time.perf_counter() - started)
        print(f"filter {label}: {len(shown)} of {len(rows)} rows in {1000 * statistics.median(times):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
