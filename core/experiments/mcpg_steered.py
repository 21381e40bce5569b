"""What the beam cannot do (issue 24, item 5): MCPG steered by the judgment predictor, on the demo.

Seed 003 §3 scores only final states, so MCPG's reward may read the whole finished sentence (a "global
feature"), which a left-to-right beam cannot score before the sentence is complete. Here the reward is the
judgment predictor's probability that judges accept the candidate (:mod:`core.engine.model.judgment_model`), trained
on the demo study's dev set (its 200 beam candidates judged by :mod:`core.experiments.silver_judges`).

Three systems on the demo's first ``--limit`` verses (``evaldata/demo/test.en``), one output each:

* ``beam``: the beam decoder's 1-best (stack 200) that differs from the source (MCPG never outputs the source,
  seed 003 §2);
* ``mcpg-true-score``: MCPG with the true score (seed 000 §4.1), profile ``--profile``, eta ``--episodes-per-step``;
* ``mcpg-predictor``: the same search (profile, eta, seed) with the reward ``predictor``: the predictor fitted
  on every dev-set item (what ``parastudio judgment-predictor --json`` prints; criterion "acceptable").

Two judges of each output, with a sign test per pair of systems (ties dropped, Holm over the three pairs):

* the silver judges' rule (noise-free: judge-1 and the adjudicator), meaning, fluency and acceptable (both);
* the predictor cross-validated over verses: the verses are split into ``--folds`` folds, and a verse's
  outputs are judged by a predictor fitted on the dev-set items of the other folds' verses only.

True by construction: the steered system maximises the steering predictor, so it scores well on it (shown, not
tested); the cross-validated judge is fitted on 4/5 of the same items with the same features, so it is close to
the steering predictor and still favours the steered system: only the silver rule is independent of the
model. Its per-verse records go to ``mcpg-steered.jsonl`` (:mod:`core.experiments.per_sentence`).

    parastudio experiment mcpg-steered [--limit 100] [--episodes-per-step 1000] [--profile faithful]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from parastudio.core.code_identity import code_identity
from parastudio.core.experiments.mcpg_steered_results import PER_SENTENCE, PER_SENTENCE_FIELDS, SYSTEMS, Output

RESULTS = Path(__file__).resolve().parents[2] / "evaldata" / "results"
STACK_SIZE = 200


def folds_of(verses: int, folds: int, seed: int) -> list[int]:
    """Each verse's fold: a seeded shuffle of the verses dealt round-robin into ``folds`` folds."""
    order = list(range(verses))
    random.Random(seed).shuffle(order)
    fold = [0] * verses
    for position, verse in enumerate(order):
        fold[verse] = position % folds
    return fold


def fit_predictors(records: list[dict], lm, verses: int, folds: int, seed: int) -> dict:
    """``{"steering", "judges", "folds"}``: the predictor fitted on every record, one judge per fold fitted on
    the records of the other folds' verses (a record of a verse past ``verses`` is in every judge's data), and
    each verse's fold (:func:`folds_of`)."""
    from parastudio.core.tuning.judgment_predictor import fit_judgment_model

    fold = folds_of(verses, folds, seed)
    judges = [fit_judgment_model([r for r in records if r["sentence_id"] >= verses or fold[r["sentence_id"]] != k],
                                 lm) for k in range(folds)]
    return {"steering": fit_judgment_model(records, lm), "judges": judges, "folds": fold}


def _replacements(derivation) -> list[tuple[str, str]]:
    from parastudio.core.engine.model.derivation import changed_segments

    return [(" ".join(s.rule.source), " ".join(s.rule.target)) for s in changed_segments(derivation)]


def run(sentences: Sequence[Sequence[str]], references: Sequence[str], table, lm, records: list[dict], *,
        profile: str, episodes_per_step: int, folds: int, seed: int = 0, time_budget: float | None = None,
        processes: int | None = None, progress=None) -> tuple[list[dict[str, Output]], dict]:
    """Per verse, each system's :class:`Output`; and what was fitted (``{"folds", "steering"}``)."""
    import Levenshtein

    from parastudio.core.engine.candidates.generation import generate_batches
    from parastudio.core.engine.candidates.generation_options import BeamRunOptions
    from parastudio.core.engine.candidates.generation_resources import GenerationResources
    from parastudio.core.engine.decoders.mcpg import generate_mcpg
    from parastudio.core.engine.decoders.mcpg.search import MCPGStats
    from parastudio.core.engine.model.judgment_model import PredictorReward
    from parastudio.core.engine.model.truescore import TrueScorer
    from parastudio.core.experiments.silver_judges import silver_verdicts

    scorer = TrueScorer(table, lm)
    fitted = fit_predictors(records, lm, len(sentences), folds, seed)
    fold = fitted["folds"]
    steer = PredictorReward(fitted["steering"], scorer, lm)
    judge_of = [PredictorReward(judge, scorer, lm) for judge in fitted["judges"]]
    results: list[dict[str, Output]] = [{} for _ in sentences]
    beam = BeamRunOptions(nbest=1, exclude_source=True, stack_size=STACK_SIZE)
    for index, candidates, _ in generate_batches(beam, sentences, GenerationResources((table,), lm),
                                                 processes=processes):
        best = candidates[0] if candidates else None
        results[index]["beam"] = Output(tuple(best.text.split()) if best else None,
                                        _replacements(best.derivation) if best else [])
    for index, source in enumerate(sentences):
        source = tuple(source)
        for system, reward in (("mcpg-true-score", None), ("mcpg-predictor", steer)):
            stats = MCPGStats()
            found = generate_mcpg(source, table, lm, profile=profile, episodes_per_step=episodes_per_step,
                                  seed=index, time_budget=time_budget, stats=stats, core="python",
                                  sentence_reward=reward)
            tokens, _, segments = found[0] if found else (None, None, ())
            results[index][system] = Output(tuple(tokens) if tokens else None, _replacements(segments),
                                            episodes=stats.episodes, cut=stats.cut)
        for output in results[index].values():
            if output.candidate is None:
                continue
            text = " ".join(output.candidate)
            verdicts = silver_verdicts(" ".join(source), text, output.replacements, references[index])
            output.values = {"meaning": int(verdicts["meaning"]), "fluency": int(verdicts["fluency"]),
                             "acceptable": int(verdicts["meaning"] and verdicts["fluency"]),
                             "p_cross_validated": judge_of[fold[index]](output.candidate, source),
                             "p_steering": steer(output.candidate, source),
                             "true_score": scorer.score(source, output.candidate).log10_score,
                             "edit_rate": Levenshtein.distance(list(source), list(output.candidate))
                             / max(1, len(source))}
        if progress is not None:
            progress(index + 1, len(sentences))
    return results, fitted


def per_sentence_records(sentences, results: list[dict[str, Output]], fold: list[int]) -> list[dict]:
    records = []
    for index, (source, outputs) in enumerate(zip(sentences, results)):
        for system in SYSTEMS:
            output = outputs[system]
            values = output.values
            records.append({
                "verse": index, "system": system, "source": " ".join(source),
                "candidate": None if output.candidate is None else " ".join(output.candidate),
                "replacements": [list(pair) for pair in output.replacements],
                **{name: values.get(name) for name in ("meaning", "fluency", "acceptable")},
                "fold": fold[index],
                **{name: values.get(name) for name in ("p_cross_validated", "p_steering", "true_score", "edit_rate")},
                "episodes": output.episodes, "cut": output.cut})
    return records


def demo_inputs() -> dict:
    from parastudio.core.demo import demo_files

    demo = demo_files()
    return {"table": demo.table, "lm": demo.lm, "input": demo.test_sentences, "reference": demo.test_references}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=int, default=100, help="the demo's first N verses (default all 100)")
    parser.add_argument("--episodes-per-step", type=int, default=1000, help="MCPG's eta (default 1000)")
    parser.add_argument("--profile", choices=("faithful", "tuned"), default="faithful",
                        help="MCPG's profile for both MCPG systems (default faithful: the seeds' search)")
    parser.add_argument("--folds", type=int, default=5, help="folds over verses of the cross-validated judge")
    parser.add_argument("--seed", type=int, default=0, help="the silver judges' and the folds' seed")
    parser.add_argument("--time-budget", type=float, default=None,
                        help="a cap in seconds per MCPG search (default none); a search it cuts is flagged")
    parser.add_argument("--processes", type=int, default=None, help="beam decoder workers")
    parser.add_argument("--out", default=None, help="output directory (default evaldata/results)")


def run_from_args(args: argparse.Namespace, command: str) -> int:
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.experiments.judgment_predictor import demo_devset
    from parastudio.core.experiments.mcpg_steered_report import write_markdown
    from parastudio.core.experiments.per_sentence import run_provenance, write_per_sentence
    from parastudio.core.textio import read_token_lines

    if args.limit < 1 or args.episodes_per_step < 1 or args.folds < 2:
        print("parastudio: error: --limit and --episodes-per-step must be at least 1, --folds at least 2",
              file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else RESULTS
    code_identity()  # read (and cached) now: the code that ran is the code as the run started
    demo = demo_files()
    sentences = read_token_lines(demo.test_sentences)[:args.limit]
    references = demo.test_references.read_text(encoding="utf-8").splitlines()[:args.limit]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        records, judged = demo_devset(Path(work), seed=args.seed)
    lm = LanguageModel(demo.lm)
    table = ParaphraseTable.load_for(str(demo.table), sentences)

    def progress(done: int, total: int) -> None:
        print(f"\rverse {done} of {total}", end="" if done < total else "\n", file=sys.stderr)

    results, fitted = run(sentences, references, table, lm, records, profile=args.profile,
                          episodes_per_step=args.episodes_per_step, folds=args.folds, seed=args.seed,
                          time_budget=args.time_budget, processes=args.processes, progress=progress)
    minutes = (time.perf_counter() - started) / 60
    header = run_provenance("mcpg-steered", command, demo_inputs(), PER_SENTENCE_FIELDS, seed=args.seed,
                            profile=args.profile, episodes_per_step=args.episodes_per_step, folds=args.folds)
    write_per_sentence(out / PER_SENTENCE, header, per_sentence_records(sentences, results, fitted["folds"]))
    write_markdown(out / "mcpg-steered.md", sentences, references, results, fitted, judged, command, header, args,
                   minutes)
    print(f"wrote {out / 'mcpg-steered.md'} and {PER_SENTENCE}", file=sys.stderr)
    return 0
