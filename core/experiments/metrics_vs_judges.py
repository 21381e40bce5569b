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
                 **{name: table.raw(name, float(table.metrics[name][k])) for name in table.metric_names}}
                for k, s in enumerate(table.segments)]
    return report, segments


def run(mqm: Path, demo: Path, evaluation) -> dict:
    from parastudio.core.code_identity import code_identity
    from parastudio.core.file_fingerprint import fingerprint
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
    inputs = {"mqm": fingerprint(mqm), "demo_candidates": fingerprint(demo / "candidates.jsonl"),
              "demo_sources": fingerprint(demo / "test.en"), "demo_references": fingerprint(demo / "test.ref.en")}
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


def write_markdown(path: Path, result: dict, command: str) -> None:
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
        "Per-segment figures (each study's segments, human score and every metric's score as the metric gives "
        f"it): `{NAME}.jsonl.gz`; both reports as `parastudio metaeval --format json` writes them: `{NAME}.json`.",
        "",
        "## Real judges: WMT21 TED talks, English to German, expert MQM",
        "",
        f"Google's professional raters (Freitag et al. 2021, `google/wmt-mqm-human-evaluation`), {ted['judgments']} "
        f"ratings of {ted['segments']} segments: {len(ted['systems'])} systems on {ted['sentences']} source "
        "sentences, the `ref` system left out (it is the reference the metrics read). Human score: the MQM score "
        "negated (Major 5, Minor 1, Minor Fluency/Punctuation 0.1, Non-translation 25), so higher is better on "
        "both sides; TER is turned around for the statistics and shown as sacrebleu gives it.",
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
    with atomic_output(out / f"{NAME}.jsonl.gz") as handle:
        for record in segments:
            handle.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
    write_markdown(out / f"{NAME}.md", result, command)
    print(f"metrics-vs-judges: TED en-de {result['studies']['ted']['segments']} segments, demo "
          f"{result['studies']['demo']['segments']} -> {out / NAME}.md", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main("metrics_vs_judges", __doc__.splitlines()[0], add_arguments, run_from_args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
