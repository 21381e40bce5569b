"""Seed 000's open question on the demo study: do model scores predict the judgment?

The bundled demo study (:func:`core.demo.build_demo_study`: 200 beam candidates of the 100 demo verses, two
judges, fluency, meaning and usability) is judged by the scripted judges of
:mod:`core.experiments.silver_judges` (never human), exported as a dev set (adjudicated), and the judgment
predictor (:mod:`core.tuning.judgment_predictor`) is fitted for meaning, fluency and "acceptable" (both).

The per-candidate outputs (label, fold, out-of-fold probability, baseline guess, features) go to
``judgment-predictor.jsonl`` beside the Markdown (:mod:`core.experiments.per_sentence`).

    parastudio experiment judgment-predictor [--out DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from parastudio.core.code_identity import code_identity
from parastudio.core.experiments.per_sentence import markdown_note, run_provenance, write_per_sentence
from parastudio.core.experiments.silver_judges import NOISE, RULE, judge_study
from parastudio.core.textio import atomic_output

RESULTS = Path(__file__).resolve().parents[2] / "evaldata" / "results"
TARGETS = ("meaning", "fluency", None)  # None: acceptable on both
PER_SENTENCE = "judgment-predictor.jsonl"
PER_SENTENCE_FIELDS = {
    "judgment": "the table's row: meaning, fluency or acceptable (yes on both)",
    "item": "the demo study's item (one candidate)",
    "source": "the verse, tokenized",
    "candidate": "the beam candidate judged, tokenized",
    "label": "the adjudicated judgment, 1 yes, 0 no",
    "fold": "the cross-validation fold that held the candidate out (0-based; \"folds\" is their number)",
    "p_out_of_fold": "the model's probability of yes, fitted on the other folds (\"model accuracy\" counts "
                     "p ≥ 0.5 as yes; \"model AUC\" ranks these)",
    "baseline": "the majority baseline's guess, its training folds' majority class (\"baseline accuracy\")",
    "features": "the model's inputs, unstandardised: lm and true_score in log10, channel the sum of log10 rule "
                "probabilities, length in tokens, edit_rate word edits over source words, rules a count "
                "(\"AUC alone\" ranks each)",
}


def per_sentence_records(reports: list[dict]) -> list[dict]:
    """One record per candidate and judgment (:data:`PER_SENTENCE_FIELDS`)."""
    return [{"judgment": report["criterion"], "item": p["item"], "source": p["source"], "candidate": p["candidate"],
             "label": p["label"], "fold": p["fold"], "p_out_of_fold": p["p_out_of_fold"], "baseline": p["baseline"],
             "features": p["features"]} for report in reports for p in report["predictions"]]


def demo_inputs() -> dict:
    """The demo files the study, the scripted judges and the predictor read."""
    from parastudio.core.demo import demo_files

    demo = demo_files()
    return {"table": demo.table, "lm": demo.lm, "input": demo.test_sentences, "reference": demo.test_references,
            "originals": demo.test_originals}


def demo_devset(work: Path, seed: int = 0) -> tuple[list[dict], dict]:
    """The demo study judged by the scripted judges, exported as a dev set (adjudicated): ``(records,
    answers per judge)``. The study's database is made in ``work``."""
    from parastudio.core.demo import DEMO_STUDY, build_demo_study, demo_files
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database
    from parastudio.core.tuning.devset import devset_records

    path = work / "demo-study.sqlite"
    build_demo_study(path, demo_files())
    with open_database(path) as db:
        study = ops.find_study(db, DEMO_STUDY)
        judged = judge_study(db, study, seed=seed)
        records = devset_records(db, study, aggregate="adjudicated", criteria=["fluency", "meaning"])
    return records, judged


def run(work: Path, seed: int = 0) -> tuple[list[dict], dict]:
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.tuning.judgment_predictor import predict_judgments

    records, judged = demo_devset(work, seed)
    lm = LanguageModel(demo_files().lm)
    return [predict_judgments(records, lm, criterion=target, seed=seed) for target in TARGETS], judged


def write_markdown(path: Path, reports: list[dict], judged: dict, command: str,
                   per_sentence: dict | None = None) -> None:
    from parastudio.core.tuning.judgment_predictor import FEATURES

    lines = ["# Do model scores predict the judgment? (seed 000's open question, on the demo study)", "",
             f"Made by `{command}`.", "",
             "**Units.** Accuracy in percent; AUC as a probability (0.5: chance); coefficients in log-odds per "
             "standard deviation of the feature.", "",
             "**Who judged.** Nobody human: the demo study's 200 candidates (beam, 2 per verse) were judged by two "
             f"scripted judges and a scripted adjudicator whose silver rule is: {RULE}; `judge-2` flips a seeded "
             f"{NOISE:.0%} of its answers. Answers: {judged}.", "",
             "**What is measured.** A logistic regression (standardised features, scikit-learn) from the model's "
             "scores of each candidate to its aggregated (adjudicated) label, with stratified k-fold "
             "cross-validation (out-of-fold predictions); the baseline predicts each test fold as its training "
             "folds' majority class. Features: " + ", ".join(f"`{f}`" for f in FEATURES) + " "
             "(`core/tuning/judgment_predictor.py`).", "",
             "**True by construction.** The silver rule reads the KJV verse and never the model's scores, so any "
             "predictive power is real, not leaked; but edit rate and rule count measure how much was rewritten, "
             "and the rule judges rewrites, so those two are expected to carry signal.", "",
             "| judgment | candidates | positive | folds | model accuracy | baseline accuracy | model AUC |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for report in reports:
        lines.append(f"| {report['criterion']} | {report['rows']} | {report['positive']} | {report['folds']} | "
                     f"{100 * report['model']['accuracy']:.1f} | {100 * report['majority_baseline']['accuracy']:.1f} "
                     f"| {report['model']['auc']:.3f} |")
    lines += ["", "Coefficients (fit on every row) and each feature's AUC alone:", "",
              "| feature | " + " | ".join(f"{r['criterion']}: coef | AUC alone" for r in reports) + " |",
              "|---|" + "---:|---:|" * len(reports)]
    for name in FEATURES:
        lines.append(f"| {name} | " + " | ".join(f"{r['coefficients'][name]:+.3f} | {r['auc_of_each_feature_alone'][name]:.3f}"
                                                 for r in reports) + " |")
    lines += ["", "Skipped rows (unresolved label, no true score): "
              + "; ".join(f"{r['criterion']}: {r['skipped']}" for r in reports) + ".", "",
              "Samples (meaning; the out-of-fold probability of yes):", ""]
    ranked = sorted(reports[0]["predictions"], key=lambda p: p["p_out_of_fold"])
    for sample in ranked[-2:][::-1] + ranked[:2]:
        lines.append(f"- p = {sample['p_out_of_fold']:.2f}, judged {'yes' if sample['label'] else 'no'}: "
                     f"{sample['candidate']}  (source: {sample['source']})")
    lines += ["", "Signatures:", ""] + [f"- `{r['signature']}`" for r in reports]
    if per_sentence is not None:
        lines += ["", markdown_note(PER_SENTENCE, per_sentence, "one candidate under one judgment (the first "
                                    "table's rows)")]
    with atomic_output(path) as handle:
        handle.write("\n".join(lines) + "\n")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default=None, help="output directory (default evaldata/results)")
    parser.add_argument("--seed", type=int, default=0)


def run_from_args(args: argparse.Namespace, command: str) -> int:
    out = Path(args.out) if args.out else RESULTS
    code_identity()  # read (and cached) now: the code that ran is the code as the run started
    with tempfile.TemporaryDirectory() as work:
        reports, judged = run(Path(work), seed=args.seed)
    header = run_provenance("judgment-predictor", command, demo_inputs(), PER_SENTENCE_FIELDS, seed=args.seed)
    write_per_sentence(out / PER_SENTENCE, header, per_sentence_records(reports))
    write_markdown(out / "judgment-predictor.md", reports, judged, command, header)
    print(f"wrote {out / 'judgment-predictor.md'} and {PER_SENTENCE}")
    return 0
