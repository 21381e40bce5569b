"""Issue 29, item 5: the demo judged through the adaptive assignment against the same study judged in full.

Two systems on the demo's test verses: the beam decoder's 1-best (the bundled
``evaldata/demo/candidates.jsonl``, rank 1) and SPG's for simplification
(seed 004, generated here with default weights). The criterion is meaning,
answered by the scripted silver judges of :mod:`core.experiments.silver_judges`
(two judges, one with seeded noise): a stand-in for people, never called human.

* **Fixed study**: every candidate assigned at once and judged; the fixed exact
  sign test (seed 003 §5, paired on the source sentence) and the anytime test
  on all its judgments.
* **Adaptive study**: the same candidates, given out in batches of
  ``--batch`` sentences by :func:`core.adaptive_assignment.assign_next`
  (stopping rule ``--stop``), each batch judged before the next is planned,
  until the pair is closed or no sentence is left.

Reported: judgments (rows of live answers) each study took, the share saved,
and both decisions. Everything is seeded (study seeds, the silver judges'
noise), so a run gives the same figures every time.

    parastudio experiment adaptive-demo [--limit N] [--batch 5] [--stop decided] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from parastudio.core.experiments import module_main
from parastudio.core.textio import atomic_output

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "evaldata" / "demo"
RESULTS = ROOT / "evaldata" / "results"
NAME = "adaptive-demo"
SYSTEMS = ("beam", "spg-simplification")
STUDY_SEED = 29


def demo_rows(demo: Path, limit: int | None):
    """The beam 1-best of the bundled candidates and SPG's simplification 1-best, as the store's rows."""
    from parastudio.core.engine.candidates.generation import generate
    from parastudio.core.engine.candidates.generation_options import options_for
    from parastudio.core.engine.candidates.generation_resources import GenerationResources
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.store import operations as ops
    from parastudio.core.study_builder import candidate_row

    lines = (demo / "test.en").read_text(encoding="utf-8").splitlines()[:limit]
    sentences = [line.split() for line in lines]
    beam = [row for row in ops.read_candidates_jsonl(demo / "candidates.jsonl")
            if row.rank == 1 and int(row.sentence_id) < len(lines)]
    table = ParaphraseTable.load_for(demo / "paraphrase-table.gz", sentences)
    resources = GenerationResources((table,), LanguageModel(demo / "lm.bin"))
    spg = [candidate_row(candidate, len(beam) + line) for line, candidate in enumerate(
        generate(options_for(SYSTEMS[1], nbest=1), sentences, resources, processes=1), 1)]
    references = {str(i): [line] for i, line in
                  enumerate((demo / "test.ref.en").read_text(encoding="utf-8").splitlines()[:len(lines)])}
    return beam + spg, {str(i): line for i, line in enumerate(lines)}, references


def _new_study(path: Path, rows, sources, references, criterion: str):
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database

    db = open_database(path, create=True)
    study = ops.create_study(db, path.stem, criteria=[criterion], seed=STUDY_SEED)
    ops.import_candidates(db, study, rows, sources=sources, references=references)
    return db, study


def _figures(db, study, test, criterion: str) -> dict:
    from parastudio.core.stats.anytime_comparisons import criterion_comparisons
    from parastudio.core.stats.significance import sign_test
    from parastudio.core.stats.system_scores import sentence_scores
    from parastudio.core.study_judgments import study_judgment_records

    records = study_judgment_records(db, study)
    (anytime,), _ = criterion_comparisons(records, criterion, test)
    # Both tests in the anytime comparison's orientation (the order the systems were first judged in).
    _, a, b, _ = sentence_scores(records, criterion, "mean").paired(anytime.system_a, anytime.system_b)
    fixed = sign_test(a, b)
    fixed_decision = ("undecided" if fixed.p_value > test.alpha else
                      "A better" if fixed.wins_a > fixed.wins_b else "B better")
    return {"judgments": len(records), "sentences": len(set(records.sentences)), "system_a": anytime.system_a,
            "system_b": anytime.system_b, "fixed": fixed.to_json_dict(), "fixed_decision": fixed_decision,
            "fixed_winner": _winner(fixed_decision, anytime), "anytime": anytime.to_json_dict(),
            "anytime_winner": _winner(anytime.decision, anytime)}


def _winner(decision: str, comparison) -> str:
    return {"A better": comparison.system_a, "B better": comparison.system_b}.get(decision, "undecided")


def run(rows, sources, references, folder: Path, *, criterion: str, batch: int, stop: str, alpha: float) -> dict:
    from parastudio.core.adaptive_assignment import StoppingRule, assign_next
    from parastudio.core.experiments.silver_judges import JUDGES, judge_study
    from parastudio.core.stats.anytime_sign_test import AnytimeSignTest
    from parastudio.core.store import operations as ops

    test, rule = AnytimeSignTest(alpha=alpha), StoppingRule.parse(stop)
    db, study = _new_study(folder / "fixed.sqlite", rows, sources, references, criterion)
    try:
        ops.assign(db, study, list(JUDGES))
        judge_study(db, study)
        fixed = _figures(db, study, test, criterion)
    finally:
        db.close()
    db, study = _new_study(folder / "adaptive.sqlite", rows, sources, references, criterion)
    batches = []
    try:
        while True:
            planned = assign_next(db, study, list(JUDGES), sentences=batch, criterion=criterion, rule=rule,
                                  test=test)
            if not planned.sentences:
                break
            judge_study(db, study)
            batches.append(len(planned.sentences))
        adaptive = _figures(db, study, test, criterion)
    finally:
        db.close()
    saved = 1 - adaptive["judgments"] / fixed["judgments"]
    return {"systems": list(SYSTEMS), "criterion": criterion, "alpha": alpha, "stop": str(rule), "batch": batch,
            "sentences_in_test_set": len(sources), "fixed_study": fixed, "adaptive_study": adaptive,
            "batches": batches, "judgments_saved": saved, "test": test.signature(),
            "same_decision": adaptive["anytime_winner"] == fixed["anytime_winner"]}


def write_markdown(path: Path, result: dict, command: str) -> None:
    fixed, adaptive = result["fixed_study"], result["adaptive_study"]

    def row(label, study):
        f, a = study["fixed"], study["anytime"]
        wins = {study["system_a"]: f["wins_a"], study["system_b"]: f["wins_b"]}
        low, high = a["win_rate_cs"] if study["system_a"] == systems[0] else [1 - x for x in a["win_rate_cs"][::-1]]
        return (f"| {label} | {study['judgments']} | {study['sentences']} | {wins[systems[0]]} | "
                f"{wins[systems[1]]} | {f['ties']} | {f['p_value']:.3g} ({study['fixed_winner']}) | "
                f"{a['p_anytime']:.3g} ({study['anytime_winner']}) | [{low:.3f}, {high:.3f}] |")

    systems = result["systems"]

    lines = [
        "# Adaptive assignment on the demo (issue 29)",
        "",
        f"Systems: `{systems[0]}` (the bundled 1-best) and `{systems[1]}` (1-best, default weights), on {result['sentences_in_test_set']} demo verses; criterion `{result['criterion']}` "
        "answered by the two scripted silver judges (`core/experiments/silver_judges.py`, not people). A "
        "*judgment* is one live answer row; win counts are source sentences (ties: both systems scored the same).",
        "",
        f"Command: `{command}`",
        "",
        f"Adaptive: batches of {result['batch']} sentences to the undecided pair, stopping rule "
        f"`{result['stop']}`, α = {result['alpha']:g}; batches given out: {len(result['batches'])}. Test: "
        f"`{result['test']}`.",
        "",
        f"| study | judgments | sentences judged | wins of {systems[0]} | wins of {systems[1]} | ties | fixed sign "
        f"test p (better system) | anytime p (better system) | win rate of {systems[0]} |",
        "|---|---:|---:|---:|---:|---:|---|---|---|",
        row("fixed: every item at once", fixed),
        row("adaptive", adaptive),
        "",
        f"Judgments saved: {100 * result['judgments_saved']:.1f} % ({adaptive['judgments']} of {fixed['judgments']}). "
        f"Same anytime decision as the full study: {'yes' if result['same_decision'] else 'no'}.",
        "",
        "The fixed sign test's p-value on the adaptive study is shown for comparison only: that study stopped "
        "because of what the judgments said, so a fixed-sample p-value on it is not valid; the anytime one is.",
        "",
    ]
    with atomic_output(path) as handle:
        handle.write("\n".join(lines))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=None, help="first N demo verses (default: all)")
    parser.add_argument("--criterion", choices=("fluency", "meaning"), default="fluency",
                        help="the silver judges' criterion the systems are compared on (default fluency)")
    parser.add_argument("--batch", type=int, default=5, help="sentences per adaptive batch (default 5)")
    parser.add_argument("--stop", default="decided", help="stopping rule: never, decided, decided+K (default decided)")
    parser.add_argument("--alpha", type=float, default=0.05, help="level of the tests (default 0.05)")
    parser.add_argument("--demo", default=str(DEMO), help="the demo folder (default evaldata/demo)")
    parser.add_argument("--out", default=str(RESULTS), help="output directory (default evaldata/results)")


def run_from_args(args: argparse.Namespace, command: str = "python -m core.experiments.adaptive_demo") -> int:
    from parastudio.core.adaptive_assignment import StoppingRule

    try:
        StoppingRule.parse(args.stop)
    except ValueError as error:
        print(f"parastudio: error: --stop: {error}", file=sys.stderr)
        return 2
    if args.batch < 1 or not 0 < args.alpha < 1:
        print("parastudio: error: --batch must be at least 1 and --alpha between 0 and 1", file=sys.stderr)
        return 2
    demo = Path(args.demo)
    rows, sources, references = demo_rows(demo, args.limit)
    with tempfile.TemporaryDirectory() as folder:
        result = run(rows, sources, references, Path(folder), criterion=args.criterion, batch=args.batch, stop=args.stop, alpha=args.alpha)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_output(out / f"{NAME}.json") as handle:
        handle.write(json.dumps(result, indent=1) + "\n")
    write_markdown(out / f"{NAME}.md", result, command)
    print(f"judgments: fixed {result['fixed_study']['judgments']}, adaptive {result['adaptive_study']['judgments']} "
          f"({100 * result['judgments_saved']:.1f} % saved); decisions: fixed "
          f"{result['fixed_study']['anytime_winner']}, adaptive {result['adaptive_study']['anytime_winner']}",
          file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main("adaptive_demo", __doc__.splitlines()[0], add_arguments, run_from_args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
