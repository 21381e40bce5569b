"""The loop on the demo, end to end: judge, export, tune, regenerate with the tuned weights, judge again.

1. Round 0: the demo's candidates (``parastudio generate --system beam --nbest 2`` with the default weights;
   for SPG, generated here the same way) go into a study with criteria fluency, meaning and replacement (seed
   004 §3.6's task: one unit replacement at a time). Two scripted judges answer by the silver rule of
   :mod:`core.experiments.silver_judges` (one with seeded noise) and an adjudicator settles disagreements.
2. ``export-devset`` (adjudicated) and ``tune`` (MERT on rf; tuning part and held-out part of the sentences).
3. Round 1: ``generate --weights`` on the same sentences, a new study, judged the same way.
4. Both rounds are measured on their own judgments: rp, rr, rf of each sentence's 1-best and the judged
   precision (share of candidates whose aggregated meaning label is yes), on the tuning and held-out parts.

Every judged candidate of both rounds goes to ``tuning-loop.jsonl`` beside the Markdown
(:mod:`core.experiments.per_sentence`), with the counts the first table sums.

    parastudio experiment tuning-loop [--system beam|spg] [--limit N] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path
from typing import Sequence

from parastudio.core.code_identity import code_identity
from parastudio.core.experiments.per_sentence import markdown_note, run_provenance, write_per_sentence
from parastudio.core.experiments.silver_judges import JUDGES, NOISE, RULE, judge_study
from parastudio.core.progress import Progress, no_progress, scaled
from parastudio.core.textio import atomic_output

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "evaldata" / "demo"
RESULTS = ROOT / "evaldata" / "results"

CRITERIA = ["fluency", "meaning", "replacement"]
STUDY_NBEST = 2
GENERATOR = {"beam": "beam", "spg": "spg-simplification"}
PER_SENTENCE = "tuning-loop.jsonl"
PER_SENTENCE_FIELDS = {
    "generator": "the section: beam or spg-simplification",
    "round": "0: the default weights' candidates, 1: the tuned weights'",
    "part": "dev (tuned on) or heldout (judged in round 0, never tuned on)",
    "source": "the verse, tokenized",
    "candidate": "the candidate judged, tokenized",
    "one_best": "whether the candidate is its sentence's 1-best (rp, rr, rf and \"judged precision, 1-best\" "
                "count these only)",
    "meaning_yes": "whether its adjudicated meaning judgment is yes (\"judged precision\")",
    "correct": "its unit replacements labelled correct (rp = correct / replacements)",
    "incorrect": "... labelled incorrect",
    "unlabelled": "... left unlabelled (counted as incorrect)",
    "replaced_words": "source words its replacements cover (rr = replaced words / source words)",
    "source_words": "words of the source verse (rf is the harmonic mean of rp and rr, all summed over a part's "
                    "1-bests)",
}


def _generate(system: str, sentences, table, lm, weights: dict | None, weights_path: str | None,
              progress: Progress) -> list:
    """The candidates of one round as the store's CandidateRow objects."""
    from parastudio.core.engine.candidates.generation import generate
    from parastudio.core.engine.candidates.generation_options import options_for
    from parastudio.core.engine.candidates.generation_resources import GenerationResources
    from parastudio.core.study_builder import candidate_row
    from parastudio.core.tuning.weights_file import beam_weights, spg_weights

    values: dict = {}
    if weights is not None:
        values["weights"] = beam_weights(weights) if system == "beam" else spg_weights(weights)
    options = options_for(GENERATOR[system], nbest=STUDY_NBEST, **values)
    resources = GenerationResources((table,), lm, weights_file=weights_path if weights is not None else None,
                                    weights_signature=(weights or {}).get("signature"))
    found = generate(options, sentences, resources, processes=1, progress=progress)
    return [candidate_row(candidate, line) for line, candidate in enumerate(found, 1)]


def _round_study(path: Path, name: str, rows, sources: dict, references: dict, *, run: str
                 ) -> tuple[dict, list[dict]]:
    """The round's study, judged, and its dev set. Its uid is derived from the name and ``run`` (system and
    seed), not random, so the dev set's record ids, and the sha256 in tuning-loop.md's signatures, repeat from
    run to run."""
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database
    from parastudio.core.tuning.devset import devset_records

    if path.exists():
        path.unlink()
    with open_database(path, create=True) as db:
        study = ops.create_study(db, name, criteria=CRITERIA, seed=15,
                                 uid=str(uuid.uuid5(uuid.NAMESPACE_URL, f"parastudio-experiment:{name}:{run}")))
        ops.import_candidates(db, study, rows, sources=sources, references=references)
        ops.assign(db, study, list(JUDGES))
        counts = judge_study(db, study)
        return counts, devset_records(db, study, aggregate="adjudicated")


def round_figures(records: Sequence[dict], keys: set[str]) -> dict:
    """rp, rr, rf of each sentence's 1-best and the judged precision, over the sentences in ``keys``."""
    from parastudio.core.stats.replacement_measures import ReplacementCounts, ratio

    counts = ReplacementCounts()
    first_yes = first = every_yes = every = 0
    for record in records:
        if " ".join(record["source"].split()) not in keys:
            continue
        judged = judged_candidate(record)
        every += 1
        every_yes += judged["meaning_yes"]
        if not judged["one_best"]:
            continue
        first += 1
        first_yes += judged["meaning_yes"]
        counts += ReplacementCounts(judged["correct"], judged["incorrect"], judged["unlabelled"],
                                    judged["replaced_words"], judged["source_words"])
    return {**counts.to_json(), "sentences": first, "precision_1best": ratio(first_yes, first),
            "precision_all": ratio(every_yes, every), "candidates": every}


def judged_candidate(record: dict) -> dict:
    """What :func:`round_figures` reads of one dev-set record (the per-sentence file's counts)."""
    meaning = next(j for j in record["judgments"] if j["criterion"] == "meaning")
    labels = [r["label"] for r in record["replacements"]]
    return {"one_best": min(s["rank"] or 99 for s in record["systems"]) == 1,
            "meaning_yes": meaning["verdict"] == "positive", "correct": labels.count("correct"),
            "incorrect": labels.count("incorrect"), "unlabelled": labels.count(None),
            "replaced_words": sum(r["src"][1] - r["src"][0] for r in record["replacements"]),
            "source_words": len(record["source"].split())}


def per_sentence_records(generator: str, rounds: Sequence[Sequence[dict]], parts: dict[str, set[str]]) -> list[dict]:
    """One record per judged candidate of each round (:data:`PER_SENTENCE_FIELDS`), in the parts' sentences."""
    found = []
    for number, records in enumerate(rounds):
        for record in records:
            source = " ".join(record["source"].split())
            part = next((name for name, keys in parts.items() if source in keys), None)
            if part is not None:
                found.append({"generator": generator, "round": number, "part": part, "source": source,
                              "candidate": record["candidate"], **judged_candidate(record)})
    return found


def run_loop(out: Path, *, system: str = "beam", limit: int | None = None, iterations: int = 10,
             restarts: int = 5, nbest: int = 20, seed: int = 0, demo: Path = DEMO,
             progress: Progress = no_progress) -> dict:
    """The loop of the module docstring, its files in ``out``; returns every figure."""
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.store import operations as ops
    from parastudio.core.tuning.dev_labels import DevLabels, split_sentences
    from parastudio.core.tuning.devset_files import write_devset
    from parastudio.core.tuning.tune import TuneOptions
    from parastudio.core.tuning.tune_run import TuneRequest, run_tune

    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    lines = (demo / "test.en").read_text(encoding="utf-8").splitlines()[:limit]
    sentences = [line.split() for line in lines]
    sources = {str(i): line for i, line in enumerate(lines)}
    references = {str(i): [line] for i, line in
                  enumerate((demo / "test.ref.en").read_text(encoding="utf-8").splitlines()[:len(lines)])}
    table = ParaphraseTable.load_for(demo / "paraphrase-table.gz", sentences)
    lm = LanguageModel(demo / "lm.bin")
    progress(2, 100, "round 0: candidates")
    bundled = demo / "candidates.jsonl"
    if system == "beam" and bundled.is_file():
        rows = [r for r in ops.read_candidates_jsonl(bundled) if int(r.sentence_id) < len(lines)]
    else:
        rows = _generate(system, sentences, table, lm, None, None, scaled(progress, 2, 15))
    progress(15, 100, "round 0: judging")
    judged0, records0 = _round_study(out / "round0.sqlite", "tuning loop: round 0", rows, sources, references,
                                    run=f"{system}:seed={seed}")
    devset = out / "dev.jsonl"
    write_devset(records0, devset, "jsonl")
    weights_path = out / "weights.json"
    progress(25, 100, "tuning")
    options = TuneOptions(objective="rf", heldout=0.25, seed=seed, restarts=restarts, iterations=iterations)
    request = TuneRequest(devset=str(devset), system=system, objective="rf", output=str(weights_path),
                          tables=[str(demo / "paraphrase-table.gz")], lm=str(demo / "lm.bin"),
                          application="simplification" if system == "spg" else None, nbest=nbest, options=options)
    report = run_tune(request, scaled(progress, 25, 75))
    progress(75, 100, "round 1: generating with the tuned weights")
    weights = json.loads(weights_path.read_text(encoding="utf-8"))
    rows1 = _generate(system, sentences, table, lm, weights, str(weights_path), scaled(progress, 75, 85))
    progress(85, 100, "round 1: judging")
    judged1, records1 = _round_study(out / "round1.sqlite", "tuning loop: round 1", rows1, sources, references,
                                    run=f"{system}:seed={seed}")
    write_devset(records1, out / "dev-round1.jsonl", "jsonl")
    tuning, heldout = split_sentences(DevLabels.from_records(records0).sentences, options.heldout, options.seed)
    parts = {"dev": {s.key for s in tuning}, "heldout": {s.key for s in heldout}}
    figures = {name: {"round0": round_figures(records0, keys), "round1": round_figures(records1, keys)}
               for name, keys in parts.items()}
    progress(100, 100, "done")
    return {"system": system, "generator": GENERATOR[system], "sentences": len(lines), "figures": figures,
            "judged": {"round0": judged0, "round1": judged1}, "tune": report, "samples": _samples(records0, records1),
            "seconds": round(time.perf_counter() - started, 1), "files": str(out),
            "per_sentence": per_sentence_records(GENERATOR[system], (records0, records1), parts)}


def _samples(before: Sequence[dict], after: Sequence[dict], count: int = 4) -> list[dict]:
    """Sentences whose 1-best changed, with each 1-best's replacements and labels."""
    def first(records):
        return {r["source"]: r for r in records if min(s["rank"] or 99 for s in r["systems"]) == 1}

    old, new = first(before), first(after)
    changed = [source for source in old if source in new and old[source]["candidate"] != new[source]["candidate"]]
    out = []
    for source in changed[:count]:
        out.append({"source": source, **{when: {"candidate": records[source]["candidate"],
                                                "replacements": [f"{r['source']} → {r['target']}: {r['label']}"
                                                                 for r in records[source]["replacements"]]}
                                         for when, records in (("before", old), ("after", new))}})
    return out


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _pivot_section(pivot: dict, system: str) -> list[str]:
    lines = ["## The pivot score (seed 002 §3.4) on the same labels", "",
             f"The round-0 {system} study's unit replacements as labelled pairs e1 → e2 "
             f"({pivot['devset']['labelled_pairs']} pairs, {pivot['devset']['pairs_in_table']} in the demo table; "
             f"{pivot['devset']['heldout_pairs']} held out), features h1..h4 of the demo pivot table "
             "(marginalised over pivots: ln score = λ·h, see `core/tuning/pivot_tuning.py`); λ1..λ4 and T tuned "
             "for F. Before: λ = 1 and T below every pair (everything extracted, seed 002's starting point).", "",
             "| part | when | precision | recall | F | accuracy | extracted |", "|---|---|---:|---:|---:|---:|---:|"]
    for part in ("dev", "heldout"):
        for when in ("before", "after"):
            f = pivot[when][part]
            lines.append(f"| {part} | {when} | {_pct(f['precision'])} | {_pct(f['recall'])} | {_pct(f['f1'])} | "
                         f"{_pct(f['accuracy'])} | {f['extracted']} of {f['pairs']} |")
    weights = pivot["weights"]["pivot"]
    lines += ["", f"λ = `{[round(x, 4) for x in weights['lambda']]}`, T = `{weights['T']:.4f}`; "
              f"{pivot['seconds']:.1f} s. Signature: `{pivot['signature']}`", ""]
    return lines


def write_markdown(path: Path, results: Sequence[dict], command: str, pivot: dict | None = None,
                   per_sentence: dict | None = None) -> None:
    lines = ["# The tuning loop on the demo: judge, export, tune, regenerate, judge again", "",
             f"Made by `{command}`.", "",
             "**Units.** rp, rr, rf, precision and accuracy are percentages; times are seconds.", "",
             "**Who judged.** Nobody human: two *scripted* judges and a scripted adjudicator "
             "(`core/experiments/silver_judges.py`) whose labels follow a silver rule that reads only the WEB "
             f"source verse and the independent KJV verse (`evaldata/demo/test.ref.en`): {RULE}. "
             f"`judge-2` answers the opposite on a seeded {NOISE:.0%} of its items; disagreements go to the "
             "adjudicator, who applies the rule. The figures measure agreement with the KJV translators' choices, "
             "not human judgment.", "",
             "**True by construction.** Every replacement in both studies is labelled (each is judged in the "
             "replacement task), so rp has no unlabelled replacement; the tuner's own figures count a replacement "
             "no study judged as incorrect. Round 1 uses the same sentences: held-out sentences were judged in "
             "round 0 but never tuned on.", "",
             "**Dev set hashes** (`devset:sha256=` in the signatures). The studies' uids, which prefix every "
             "record id, are derived from the system and the seed, not drawn at random, so a dev set whose "
             "candidates repeat has the same sha256 in every run: the beam's round-0 candidates are the bundled "
             "`evaldata/demo/candidates.jsonl`, so the beam's and the pivot's hashes reproduce. Candidates "
             "generated here (SPG's) record their generation time (`params.seconds`) and the demo files' "
             "absolute paths, so SPG's dev set hash belongs to this run and this checkout.", ""]
    for result in results:
        report = result["tune"]
        lines += [f"## {result['generator']}: {result['sentences']} sentences, {STUDY_NBEST} candidates each", "",
                  "Judged 1-best of each sentence (labels from each round's own study):", "",
                  "| part | round | rp | rr | rf | replacements | judged precision, 1-best | judged precision, all |",
                  "|---|---|---:|---:|---:|---:|---:|---:|"]
        for part in ("dev", "heldout"):
            for name, label in (("round0", "before (default weights)"), ("round1", "after (tuned weights)")):
                f = result["figures"][part][name]
                lines.append(f"| {part} | {label} | {_pct(f['rp'])} | {_pct(f['rr'])} | {_pct(f['rf'])} | "
                             f"{f['replacements']} | {_pct(f['precision_1best'])} | {_pct(f['precision_all'])} |")
        lines += ["", "The tuner's view (1-best of the MERT decodings, nbest "
                  f"{report['mert']['nbest']}, on the round-0 labels):", "",
                  "| part | when | rp | rr | rf | unlabelled |", "|---|---|---:|---:|---:|---:|"]
        for part in ("dev", "heldout"):
            for when in ("before", "after"):
                f = report[when][part]
                lines.append(f"| {part} | {when} | {_pct(f['rp'])} | {_pct(f['rr'])} | {_pct(f['rf'])} | "
                             f"{f['unlabelled']} |")
        lines += ["", "| MERT iteration | 1-best rf when decoded | rf on the pool | pool | added | seconds |",
                  "|---:|---:|---:|---:|---:|---:|"]
        for it in report["mert"]["iterations"]:
            lines.append(f"| {it['iteration']} | {_pct(it['decoded_value'])} | {_pct(it['pool_value'])} | "
                         f"{it['pool_size']} | {it['added']} | {it['seconds']:.1f} |")
        weights = report["weights"][report["system"]]
        lines += ["", f"{'Converged (a decoding added nothing)' if report['mert']['converged'] else 'Stopped'} "
                  f"after {len(report['mert']['iterations'])} iteration(s); tuning took {report['seconds']:.1f} s, "
                  f"the whole loop {result['seconds']:.1f} s.", "",
                  f"Tuned weights: `{json.dumps(weights)}` (from `{json.dumps(report['vector']['start'])}`).", "",
                  f"Signature: `{report['signature']}`", "",
                  f"Judgments: round 0 {json.dumps(result['judged']['round0'])}; round 1 "
                  f"{json.dumps(result['judged']['round1'])} (answers per judge, adjudications).", "",
                  "Samples (1-best before and after, each replacement with its silver label):", ""]
        for sample in result["samples"]:
            lines += [f"- source: {sample['source']}",
                      f"  - before: {sample['before']['candidate']} ({'; '.join(sample['before']['replacements']) or 'no replacement'})",
                      f"  - after: {sample['after']['candidate']} ({'; '.join(sample['after']['replacements']) or 'no replacement'})"]
        lines.append("")
    if pivot is not None:
        lines += _pivot_section(pivot, results[0]["generator"])
    if per_sentence is not None:
        lines += [markdown_note(PER_SENTENCE, per_sentence, "one judged candidate of one round (the first table "
                                "of each section)"), ""]
    with atomic_output(path) as handle:
        handle.write("\n".join(lines) + "\n")


def write_plot(path: Path, results: Sequence[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 3.5))
    for result in results:
        iterations = result["tune"]["mert"]["iterations"]
        xs = [0] + [it["iteration"] for it in iterations]
        decoded = [it["decoded_value"] for it in iterations] + [result["tune"]["mert"]["final_value"]]
        axis.plot(xs, [100 * v for v in decoded], marker="o", label=f"{result['generator']}: 1-best rf")
        axis.plot(xs[1:], [100 * it["pool_value"] for it in iterations], linestyle="--",
                  label=f"{result['generator']}: rf on the pool")
    axis.set_xlabel("MERT iteration (0: starting weights)")
    axis.set_ylabel("rf on the tuning part (%)")
    axis.legend(fontsize=8)
    figure.tight_layout()
    with atomic_output(path, "wb") as handle:
        figure.savefig(handle, format="png", dpi=110)
    plt.close(figure)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--system", action="append", choices=tuple(GENERATOR),
                        help="repeat for several (default: beam and spg)")
    parser.add_argument("--limit", type=int, default=None, help="first N demo sentences (default all 100)")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--nbest", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="output directory (default evaldata/results)")
    parser.add_argument("--work", default=None, help="where the studies and dev sets go (default: a temporary one)")


def run_from_args(args: argparse.Namespace, command: str, progress: Progress = no_progress) -> int:
    from parastudio.core.tuning.devset_files import file_sha256, read_devset
    from parastudio.core.tuning.pivot_tuning import PivotTableSource, tune_pivot

    out = Path(args.out) if args.out else RESULTS
    code_identity()  # read (and cached) now: the code that ran is the code as the run started
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for system in args.system or ["beam", "spg"]:
            work = Path(args.work or scratch) / system
            results.append(run_loop(work, system=system, limit=args.limit, iterations=args.iterations,
                                    restarts=args.restarts, nbest=args.nbest, seed=args.seed, progress=progress))
        progress(0, None, "pivot: tuning λ and T on the first loop's labels")
        devset = Path(results[0]["files"]) / "dev.jsonl"
        pivot = tune_pivot(read_devset(devset), PivotTableSource(str(DEMO / "paraphrase-table.gz")), objective="f1",
                           seed=args.seed, restarts=args.restarts,
                           devset={"path": f"the round-0 {results[0]['generator']} dev set", "sha256": file_sha256(devset)})
    header = run_provenance("tuning-loop", command, {"table": DEMO / "paraphrase-table.gz", "lm": DEMO / "lm.bin",
                                                     "input": DEMO / "test.en", "reference": DEMO / "test.ref.en",
                                                     "candidates": DEMO / "candidates.jsonl"},
                            PER_SENTENCE_FIELDS, seed=args.seed)
    write_plot(out / "tuning-loop.png", results)
    write_per_sentence(out / PER_SENTENCE, header, [r for result in results for r in result["per_sentence"]])
    write_markdown(out / "tuning-loop.md", results, command, pivot, header)
    print(f"wrote {out / 'tuning-loop.md'}, {PER_SENTENCE} and {out / 'tuning-loop.png'}")
    return 0
