"""Issue 43, items 5-6: which automatic metric orders segments and systems as the judges do, on real judges and on
scripted ones.

* **WMT21 TED talks, English to German, expert MQM ratings** (Freitag et al. 2021; the bundled
  ``evaldata/mqm/mqm_ted_ende.tsv.gz``): imported as ``study import-mqm`` does, the ``ref`` system left out of the
  systems ranked (it is the reference), sacrebleu's BLEU, chrF and TER of each system's output against the ``ref``
  translation; no source-side metric (a translation study: the source is English).
* **The demo study** (``evaldata/demo``): the bundled beam decoder's 1st and 2nd best paraphrases of the demo
  verses and the verse copied unchanged as three systems, judged on ``meaning`` by the scripted silver judges of
  :mod:`core.experiments.silver_judges` (rules, not people); every metric of ``parastudio metrics``.

Each is ``parastudio metaeval`` (:func:`core.study_metaeval.study_meta_evaluation`): segment-level τ_b, grouped
τ_b and tie-calibrated pairwise accuracy, system-level Pearson r and pairwise accuracy, bootstrap intervals over
source sentences and the permutation clusters. Writes ``metrics-vs-judges.md``, ``metrics-vs-judges.json`` (both
reports) and ``metrics-vs-judges.jsonl.gz`` (every judged segment: its human score and each metric's).

    parastudio experiment metrics-vs-judges [--bootstrap 1000] [--permutations 1000] [--seed 0] [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

from parastudio.core.experiments import module_main
from parastudio.core.textio import atomic_output

ROOT = Path(__file__).resolve().parents[2]
MQM = ROOT / "evaldata" / "mqm" / "mqm_ted_ende.tsv.gz"
DEMO = ROOT / "evaldata" / "demo"
RESULTS = ROOT / "evaldata" / "results"
NAME = "metrics-vs-judges"
DEMO_RANKS = (1, 2)  # the bundled n-best has two
DEMO_CRITERION = "meaning"
STUDY_SEED = 43
SEGMENT_METRICS = ("bleu", "chrf", "ter", "source_bleu", "ibleu", "edit_rate")
FIELDS = {
    "study": "ted-ende (real judges: WMT21 TED en-de expert MQM) or demo (scripted judges, not people)",
    "item": "the study's item id (opens in Inspect)", "sentence": "the source sentence's id",
    "system": "the system", "text": "the candidate",
    "human": "the judges' score: ted-ende the MQM points negated (higher is better), demo the mean of yes 1 / no 0",
    "judgments": "judgments the human score is the mean of",
    "bleu": "sacrebleu sentence BLEU against the reference, 0-100",
    "chrf": "sacrebleu sentence chrF against the reference, 0-100",
    "ter": "sacrebleu sentence TER against the reference, lower is better",
    "source_bleu": "sentence BLEU against the source (null for ted-ende: a translation)",
    "ibleu": "0.9 * bleu - 0.1 * source_bleu (Sun and Zhou 2012; null for ted-ende)",
    "edit_rate": "word Levenshtein distance from the source over its words (null for ted-ende)",
}


def ted_study(folder: Path, path: Path):
    """The MQM file imported as a study: ``(db, study id)``."""
    from parastudio.core.progress import no_progress
    from parastudio.core.store.database import open_database
    from parastudio.core.study_builder import study_from_mqm

    db = open_database(folder / "ted.sqlite", create=True)
    study, _ = study_from_mqm(no_progress, db, "ted-ende", str(path))
    return db, study


def demo_study(folder: Path, demo: Path):
    """The demo's beam 1st and 2nd best as systems ``beam-1`` and ``beam-2``, and ``copy`` (the source unchanged,
    the do-nothing paraphrase: a third system, so the system level is defined), judged by the silver judges."""
    from parastudio.core.experiments.silver_judges import JUDGES, judge_study
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database

    sources = (demo / "test.en").read_text(encoding="utf-8").splitlines()
    references = (demo / "test.ref.en").read_text(encoding="utf-8").splitlines()
    rows = [row for row in ops.read_candidates_jsonl(demo / "candidates.jsonl") if row.rank in DEMO_RANKS]
    rows = [dataclasses.replace(row, system=f"beam-{row.rank}", rank=1) for row in rows]
    rows += [ops.CandidateRow(str(number), source, "copy", rank=1, line=len(rows) + number + 1)
             for number, source in enumerate(sources)]
    db = open_database(folder / "demo.sqlite", create=True)
    study = ops.create_study(db, "demo", criteria=[DEMO_CRITERION], seed=STUDY_SEED)
    ops.import_candidates(db, study, rows, sources={str(i): line for i, line in enumerate(sources)},
                          references={str(i): [line] for i, line in enumerate(references)})
    ops.assign(db, study, list(JUDGES))
    judge_study(db, study)
    return db, study


def evaluate(db, study: int, label: str, options) -> tuple[dict, list[dict]]:
    """The study's report and its per-segment records."""
    from parastudio.core.study_metaeval import study_segment_table

    joined = study_segment_table(db, study, options)
    table = joined.table
    report = options.evaluation.run(table, criterion=options.criterion, aggregate=options.aggregate,
                                    judges=joined.judges)
    report = {**report, "notes": joined.notes + report["notes"]}
    segments = [{"study": label, "item": s.item, "sentence": s.sentence, "system": s.system, "text": s.text,
                 "human": s.human, "judgments": s.judgments,
                 **{name: table.raw(name, float(table.metrics[name][k])) if name in table.metrics else None
                    for name in SEGMENT_METRICS}}
                for k, s in enumerate(table.segments)]
    return report, segments


def input_paths(mqm: Path, demo: Path) -> dict:
    return {"mqm": mqm, "demo_candidates": demo / "candidates.jsonl", "demo_sources": demo / "test.en",
            "demo_references": demo / "test.ref.en"}


def run(mqm: Path, demo: Path, evaluation) -> dict:
    from parastudio.core.code_identity import code_identity
    from parastudio.core.experiments.per_sentence import file_input
    from parastudio.core.study_metaeval import StudyMetaevalOptions

    results, segments = {}, []
    with tempfile.TemporaryDirectory() as folder:
        db, study = ted_study(Path(folder), mqm)
        with db:
            results["ted"], rows = evaluate(db, study, "ted-ende", StudyMetaevalOptions(
                "mqm", exclude_systems=("ref",), evaluation=evaluation))
        segments += rows
        db, study = demo_study(Path(folder), demo)
        with db:
            results["demo"], rows = evaluate(db, study, "demo", StudyMetaevalOptions(
                DEMO_CRITERION, evaluation=evaluation))
        segments += rows
    inputs = {name: file_input(path) for name, path in input_paths(mqm, demo).items()}
    return {"studies": results, "inputs": inputs, **code_identity()}, segments


def _cell(entry: dict) -> str:
    value, interval = entry["value"], entry["ci95"]
    if value is None:
        return "—"
    return f"{value:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")


def _clusters(report: dict, statistic: str) -> dict[str, int]:
    ranking = report["significance"].get(statistic, {}).get("ranking", [])
    return {row["metric"]: row["cluster"] for row in ranking}


def study_lines(report: dict) -> list[str]:
    """A study's tables: every metric's statistics with its cluster, then the system scores."""
    lines = ["| metric | better | τ_b | cl. | τ_b grouped | cl. | acc_eq grouped | cl. | system r | cl. | "
             "system accuracy | cl. |", "|---|---|---|---:|---|---:|---|---:|---|---:|---|---:|"]
    statistics = ("tau_b", "tau_b_item", "acc_eq_item", "system_pearson", "system_accuracy")
    clusters = {statistic: _clusters(report, statistic) for statistic in statistics}
    for name, entry in report["metrics"].items():
        cells = [f"{_cell(entry[s])} | {clusters[s].get(name, '—')}" for s in statistics]
        lines.append(f"| {name} | {entry['better']} | " + " | ".join(cells) + " |")
    names = list(report["metrics"])
    lines += ["", "| system | judges | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
    order = sorted(report["systems"], key=lambda s: -report["human_system_scores"][s])
    for system in order:
        lines.append(f"| {system} | {report['human_system_scores'][system]:.3f} | " + " | ".join(
            f"{report['metrics'][name]['system_scores'][system]:.2f}" for name in names) + " |")
    lines += ["", *(f"- {note}" for note in report["notes"])]
    return lines


def write_markdown(path: Path, result: dict, command: str, per_segment: str) -> None:
    from parastudio.core.experiments.provenance import inputs_line

    ted, demo = result["studies"]["ted"], result["studies"]["demo"]
    inputs = {name: f"{record['path']} sha256:{record['sha256']}" for name, record in result["inputs"].items()}
    lines = [
        "# Metrics against the judges: real judges (WMT21 TED en-de MQM) and scripted ones (the demo) (issue 43)",
        "",
        f"Command: `{command}`",
        "",
        inputs_line(inputs) + f". Code: version `{result['version']}`, commit `{result['commit']}`.",
        "",
        "Units, once: a *segment* is one candidate as one system made it; its *human score* is its judges' labels "
        "made one number (the mean); τ_b and acc_eq are over segments (*grouped*: within each source sentence, "
        "averaged), system r and system accuracy over systems. Intervals: 95 % percentile bootstrap over source "
        "sentences. *cl.*: the permutation test's cluster (1 the best; metrics in one cluster are not told apart "
        f"at the level in the signature). Signature (TED): `{ted['signature']}`.",
        "",
        f"Both reports as `parastudio metaeval --format json` writes them: `{NAME}.json`.",
        "",
        "## Real judges: WMT21 TED talks, English to German, expert MQM",
        "",
        f"Google's professional raters (Freitag et al. 2021, `google/wmt-mqm-human-evaluation`), {ted['judgments']} "
        f"ratings of {ted['segments']} segments: {len(ted['systems'])} systems on {ted['sentences']} source "
        "sentences, the `ref` system left out (it is the reference the metrics read). Human score: the MQM score "
        "negated (Major 5, Minor 1, Minor Fluency/Punctuation 0.1, Non-translation 25), so higher is better on "
        "both sides; TER is turned around for the statistics and shown as sacrebleu gives it. The `judges` column is "
        "each system's mean MQM score negated: the repository's published table (`parastudio report`, "
        "`tests/test_mqm_ted_ende.py`).",
        "",
        *study_lines(ted),
        "",
        "## Scripted judges: the demo study",
        "",
        "**The judges here are not people**: two scripted silver judges (`core/experiments/silver_judges.py`) "
        f"answer `{DEMO_CRITERION}` by a stated rule read from the KJV reference verse, one of them with seeded "
        f"noise. {demo['segments']} segments: the bundled beam decoder's 1st and 2nd best paraphrases of "
        f"{demo['sentences']} demo verses (`beam-1`, `beam-2`) and the verse copied unchanged (`copy`, the "
        f"do-nothing paraphrase) as three systems, {demo['judgments']} judgments (yes 1, no 0). The scripted rule reads the same reference the metrics do, so agreement here measures "
        "the rule, not what readers think; the rule answers yes for a verse left unchanged, so `copy` is judged "
        "best by construction.",
        "",
        *study_lines(demo),
        "",
        per_segment,
        "",
        "The system scores of BLEU, chrF and TER are sacrebleu's corpus scores over each system's segments (as "
        "`parastudio metrics` writes them), recomputed from the records' `text` and the references, not their means.",
        "",
    ]
    with atomic_output(path) as handle:
        handle.write("\n".join(lines))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--permutations", type=int, default=1000, help="permutations per pair (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of both (default 0)")
    parser.add_argument("--mqm", default=str(MQM), help="the MQM ratings (default the bundled TED en-de)")
    parser.add_argument("--demo", default=str(DEMO), help="the demo folder (default evaldata/demo)")
    parser.add_argument("--out", default=str(RESULTS), help="output directory (default evaldata/results)")


def run_from_args(args: argparse.Namespace, command: str = "python -m core.experiments.metrics_vs_judges") -> int:
    from parastudio.core.experiments.per_sentence import markdown_note, run_provenance, write_per_sentence
    from parastudio.core.stats.metric_meta_evaluation import MetaEvaluation

    try:
        evaluation = MetaEvaluation(bootstrap=args.bootstrap, permutations=args.permutations, seed=args.seed)
    except ValueError as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    result, segments = run(Path(args.mqm), Path(args.demo), evaluation)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_output(out / f"{NAME}.json") as handle:
        handle.write(json.dumps(result, ensure_ascii=False, allow_nan=False, indent=1) + "\n")
    header = run_provenance(NAME, command, input_paths(Path(args.mqm), Path(args.demo)), FIELDS,
                            bootstrap=args.bootstrap, permutations=args.permutations, seed=args.seed)
    write_per_sentence(out / f"{NAME}.jsonl.gz", header, segments)
    note = markdown_note(out / f"{NAME}.jsonl.gz", header, "one judged segment (a candidate as one system made it)")
    write_markdown(out / f"{NAME}.md", result, command, note)
    print(f"metrics-vs-judges: TED en-de {result['studies']['ted']['segments']} segments, demo "
          f"{result['studies']['demo']['segments']} -> {out / NAME}.md", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main("metrics_vs_judges", __doc__.splitlines()[0], add_arguments, run_from_args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
