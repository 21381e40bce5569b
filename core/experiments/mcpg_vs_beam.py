"""Seed 000 §4 and seed 003 §5: 1-best true scores of MCPG (both modes) against the beam decoder.

Protocol (seed 000 §4.2-4.3): the paraphrase table and test sentences of §3;
for every sentence the 1-best of MOSES *reranked by the true score* and the
1-best of MCPG in "translator" and in "true-score" mode; each output gets its
exact true score (Algorithm 1) and the paper reports, per MCPG mode, the mean
and standard deviation over sentences of ``true(MCPG) - true(MOSES)``:
-14.13 ± 19.99 (true-score mode), -42.92 ± 40.14 (translator mode), and the
gain of true-score over translator mode, 28.79 ± 34.19. Seed 003 §5 compares
MCPG with MOSES by human judgment only; its optimisation comparison is what
seed 000 §4 carries out.

Our stand-ins and additions:

* MOSES -> :mod:`core.engine.decoders.beam_decoder` at stack 200 (Moses' default), distinct
  100-best reranked by true score (with stack 200 the rerank almost never
  changes the 1-best, see ``seed000-reranking.md``).
* MCPG -> :func:`core.engine.decoders.mcpg.generate_mcpg` with three profiles ("faithful": the
  seeds' algorithm; "tuned": our changes; "tuned-no-polish": tuned without its
  hill climbing), by count: eta episodes per decision (``--episodes-per-step``,
  default the profiles' 1,000 instead of the paper's 100,000, see
  :data:`core.engine.decoders.mcpg.options.DEFAULT_EPISODES_PER_STEP`), so the figures do
  not depend on the machine; ``--time-budget`` is only a cap, and a search it
  cuts is counted in the report and flagged in the per-sentence file.
* MCPG never outputs the source (seed 003 §2: the root is not final), while
  our beam decoder's identity options have probability 1, so its 1-best is
  sometimes the source itself. We therefore also compare with the beam's
  best output that differs from the source.
* The share of sentences where MCPG >= beam, and mean seconds per sentence.

Scores are log10 (KenLM). The paper does not state its base (see the note
written into the report, :data:`LOG_BASE_NOTE`).

Statistics: ``difference = true(system) - true(reference)`` per sentence,
mean and *population* standard deviation (the paper does not say which; with
100 sentences they differ by 0.5 %). A sentence where either side has no
output (MCPG found no reachable paraphrase; the beam list holds only the
source) is left out of that comparison and counted as missing.

The per-sentence outputs go to ``mcpg-vs-beam.jsonl`` beside the Markdown
(:mod:`core.experiments.per_sentence`).

    python -m core.experiments.mcpg_vs_beam [--limit N] [--episodes-per-step 1000] [--out DIR]

At the papers' eta a run takes hours: ``--core native`` runs the compiled search (the same outputs),
``--records FILE`` keeps each finished search as it ends (:mod:`~core.experiments.mcpg_vs_beam_records`),
``--shard K/N`` splits the sentences over processes and ``--recorded-only`` reports what FILE holds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from parastudio.core.code_identity import code_identity
from parastudio.core.engine.candidates.generation import generate_batches
from parastudio.core.engine.candidates.generation_options import BeamRunOptions
from parastudio.core.engine.candidates.generation_resources import GenerationResources
from parastudio.core.engine.decoders.mcpg import generate_mcpg
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.experiments import module_main
from parastudio.core.experiments.mcpg_vs_beam_results import (
    MODES,
    NBEST,
    PER_SENTENCE,
    PROFILE_OPTIONS,
    PROFILES,
    SCORE_TOLERANCE,
    STACK_SIZE,
    TRANSLATOR_REWARDS,
    MCPGSystem,
    SearchSettings,
    SentenceResult,
    core_of,
)
from parastudio.core.progress import no_progress
from parastudio.core.terminal_bar import terminal_bar
from parastudio.core.textio import read_token_lines

if TYPE_CHECKING:
    from parastudio.core.experiments.mcpg_vs_beam_records import SearchRecords

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "evaldata" / "demo"
RESULTS = ROOT / "evaldata" / "results"
def beam_references(candidates_true_scores: Sequence[tuple[tuple[str, ...], float | None]],
                    source: Sequence[str]) -> tuple[float | None, bool, float | None]:
    """(best true score, whether that best is the source, best true score of an output != source).

    The best's text is :func:`beam_best_text`.

    ``candidates_true_scores`` is the decoder's distinct n-best in decoder
    order; reranking by true score keeps the decoder order among near-ties.
    """
    source = tuple(source)
    best = best_text = None
    paraphrase = None
    for tokens, score in candidates_true_scores:
        if score is None:
            continue
        if best is None or score > best + SCORE_TOLERANCE:
            best, best_text = score, tuple(tokens)
        if tuple(tokens) != source and (paraphrase is None or score > paraphrase):
            paraphrase = score
    return best, best_text == source, paraphrase


def beam_best_text(candidates_true_scores: Sequence[tuple[tuple[str, ...], float | None]]) -> str | None:
    """The text of the true-score 1-best, with :func:`beam_references`' tie rule."""
    best = best_text = None
    for tokens, score in candidates_true_scores:
        if score is not None and (best is None or score > best + SCORE_TOLERANCE):
            best, best_text = score, " ".join(tokens)
    return best_text


def _bar(total: int, description: str, enabled: bool):
    if not enabled:
        return None

    return terminal_bar(total=total, unit="sent", desc=description)


def run(table: ParaphraseTable, lm: LanguageModel, sentences: Sequence[Sequence[str]],
        systems: Sequence[MCPGSystem], *, episodes_per_step: int | None = None, time_budget: float | None = None,
        stack_size: int = STACK_SIZE, nbest: int = NBEST, processes: int | None = None, progress: bool = True,
        max_episodes: int | None = None, core: str = "python", records: "SearchRecords | None" = None,
        recorded_only: bool = False, shard: tuple[int, int] = (0, 1),
        inputs: dict[str, str] | None = None) -> list[SentenceResult]:
    """Beam references (in parallel, ``processes``) then every MCPG system, one sentence at a time.

    MCPG runs by count (``episodes_per_step``, default each profile's;
    ``max_episodes`` the tuned restarts' total, default the profile's);
    ``time_budget`` is only a cap. MCPG runs sequentially so that its seconds
    are one core's. ``core="native"`` runs the compiled search where it runs
    the system's settings (:func:`core_of`). ``records``
    (:mod:`~core.experiments.mcpg_vs_beam_records`) gets each search as it
    ends and gives back those already run; with ``recorded_only`` nothing is
    searched and a system lacks the sentences the records lack. ``shard`` ``(k,
    n)`` searches only the sentences whose index is k modulo n (n processes
    filling one records file share a long run). ``inputs`` (the table's and
    LM's sha256) are part of every record's settings: a record made on other
    inputs is never reused (its score and output are another table's).
    """
    results = [SentenceResult(tuple(s)) for s in sentences]
    bar = _bar(len(sentences), f"beam stack {stack_size}", progress)
    for sentence_id, candidates, _ in generate_batches(
        BeamRunOptions(nbest=nbest, stack_size=stack_size), sentences, GenerationResources((table,), lm),
        processes=processes, progress=(lambda done, total, message="": bar.update(done - bar.n)) if bar else no_progress,
    ):
        result = results[sentence_id]
        scored = [(tuple(c.text.split()), c.true_score) for c in candidates]
        result.beam_best, result.beam_best_is_source, result.beam_best_paraphrase = beam_references(
            scored, result.source)
        result.beam_text = beam_best_text(scored)
        result.beam_seconds = candidates[0].seconds if candidates else 0.0
    if bar:
        bar.close()
    from parastudio.core.engine.decoders.mcpg.search import (
        MCPGStats,  # with numpy: loaded when an experiment runs, not by --help
    )

    scorer = TrueScorer(table, lm)
    for system in systems:
        bar = _bar(len(sentences), system.label, progress)
        ran = core_of(system, core)
        settings = {"eta": episodes_per_step, "max_episodes": max_episodes, "time_budget": time_budget,
                    "seed": "sentence index", **({"inputs": inputs} if inputs else {})}
        for index, result in enumerate(results):
            if records is not None and (records.restore(index, result, system, settings) or recorded_only) \
                    or index % shard[1] != shard[0]:
                if bar:
                    bar.update(1)
                continue
            started = time.perf_counter()
            stats = MCPGStats()
            outputs = generate_mcpg(result.source, table, lm, mode=system.mode,
                                    profile=PROFILE_OPTIONS[system.profile], episodes_per_step=episodes_per_step,
                                    time_budget=time_budget, max_episodes=max_episodes, seed=index, stats=stats,
                                    translator_reward=system.reward, core=ran)
            result.seconds[system] = time.perf_counter() - started
            result.commits[system] = list(stats.episodes_per_commit)
            result.cut[system] = stats.cut
            result.episodes[system] = stats.episodes
            result.search_seconds[system] = stats.seconds - stats.polish_seconds
            if outputs:
                tokens = tuple(outputs[0][0])
                result.scores[system] = scorer.score(result.source, tokens).log10_score
                result.texts[system] = " ".join(tokens)
            else:
                result.scores[system] = result.texts[system] = None
            if records is not None:
                records.append(index, result, system, settings, ran)
            if bar:
                bar.update(1)
        if bar:
            bar.close()
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", default=str(DEMO / "paraphrase-table.gz"), help="paraphrase table")
    parser.add_argument("--lm", default=str(DEMO / "lm.bin"), help="KenLM model")
    parser.add_argument("--input", default=str(DEMO / "test.en"), help="tokenized test sentences, one per line")
    parser.add_argument("--limit", type=int, default=None, help="first N sentences only (default: all)")
    parser.add_argument("--out", default=str(RESULTS), help="output directory for mcpg-vs-beam.md/.png")
    parser.add_argument("--episodes-per-step", type=int, default=None,
                        help="MCPG's eta, episodes per decision (default: each profile's, 1,000)")
    parser.add_argument("--time-budget", type=float, default=None,
                        help="a cap in seconds per MCPG search (default none); a search it cuts is counted")
    parser.add_argument("--modes", default=",".join(MODES), help="MCPG modes, comma-separated")
    parser.add_argument("--profiles", default=",".join(PROFILES), help="MCPG profiles, comma-separated")
    parser.add_argument("--translator-rewards", default="channel",
                        help="translator mode's rewards, comma-separated: channel (P_LM(t) prod p(s_i|t_i)) and/or "
                        "seed003 (seed 003 §4.3 as printed, each rule over p(s_i|s_i)); one row each")
    parser.add_argument("--core", choices=("native", "python"), default="python",
                        help="MCPG's search: native (compiled, the same outputs, where it runs the settings) or "
                        "python (the reference, default)")
    parser.add_argument("--records", default=None, metavar="FILE",
                        help="append each finished MCPG search to FILE as it ends and reuse the searches FILE "
                        "already holds (a long run stopped midway keeps what it finished)")
    parser.add_argument("--recorded-only", action="store_true",
                        help="with --records: search nothing, report the searches FILE holds (a system lacks the "
                        "sentences it has no record of)")
    parser.add_argument("--shard", default=None, metavar="K/N",
                        help="search only the sentences whose index is K modulo N (N processes, one --records FILE)")
    parser.add_argument("--processes", type=int, default=None, help="beam decoder workers (MCPG runs on one)")
    parser.add_argument("--no-progress", dest="progress", action="store_false")


def _systems(args: argparse.Namespace) -> list[MCPGSystem]:
    modes = [m for m in args.modes.split(",") if m]
    profiles = [p for p in args.profiles.split(",") if p]
    rewards = [r for r in args.translator_rewards.split(",") if r]
    for mode in modes:
        if mode not in MODES:
            raise ValueError(f"unknown MCPG mode {mode!r}; expected {', '.join(MODES)}")
    for profile in profiles:
        if profile not in PROFILES:
            raise ValueError(f"unknown MCPG profile {profile!r}; expected {', '.join(PROFILES)}")
    for reward in rewards:
        if reward not in TRANSLATOR_REWARDS:
            raise ValueError(f"unknown translator reward {reward!r}; expected {', '.join(TRANSLATOR_REWARDS)}")
    return [MCPGSystem(mode, profile, reward) for profile in profiles for mode in modes
            for reward in (rewards if mode == "translator" else ["channel"])]


def run_from_args(args: argparse.Namespace, command: str = "python -m core.experiments.mcpg_vs_beam") -> int:
    code_identity()  # read (and cached) now: the code that ran is the code as the run started
    for label, value in (("table", args.table), ("LM", args.lm), ("input", args.input)):
        if not Path(value).is_file():
            print(f"error: {label} {value} not found", file=sys.stderr)
            return 1
    try:
        systems = _systems(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    every_sentence = read_token_lines(args.input)
    sentences = every_sentence[:args.limit] if args.limit is not None else every_sentence
    lm = LanguageModel(args.lm)
    table = ParaphraseTable.load_for(args.table, sentences)
    if args.episodes_per_step is not None and args.episodes_per_step < 1:
        print("error: --episodes-per-step must be at least 1", file=sys.stderr)
        return 1
    records = None
    if args.records:
        from parastudio.core.experiments.mcpg_vs_beam_records import SearchRecords

        records = SearchRecords(args.records)
    elif args.recorded_only:
        print("error: --recorded-only needs --records FILE", file=sys.stderr)
        return 1
    shard = (0, 1)
    if args.shard is not None:
        k, _, n = args.shard.partition("/")
        if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
            print(f"error: --shard expects K/N with 0 <= K < N, not {args.shard!r}", file=sys.stderr)
            return 1
        shard = (int(k), int(n))
    from parastudio.core.file_fingerprint import sha256_of

    inputs = {"table": sha256_of(args.table), "lm": sha256_of(args.lm)}
    results = run(table, lm, sentences, systems, episodes_per_step=args.episodes_per_step,
                  time_budget=args.time_budget, processes=args.processes, progress=args.progress,
                  core=args.core, records=records,
                  recorded_only=args.recorded_only, shard=shard, inputs=inputs)
    if records is not None and records.other_inputs:
        print(f"note: {records.other_inputs} record(s) in {args.records} were made on another table or LM (their "
              "sha256 differ from these) and were not reused", file=sys.stderr)
    output = Path(args.out)
    provenance = {"command": command, "rules loaded": len(table), "table": args.table, "LM": args.lm,
                  "input": f"{args.input} (first {len(sentences)})"}
    search = SearchSettings(args.episodes_per_step, args.time_budget, args.core)
    # The plot first: if it fails, none of the files has been replaced (each write is atomic on its own).
    from parastudio.core.experiments.mcpg_vs_beam_report import write_markdown, write_per_sentence_file, write_plot

    write_plot(output / "mcpg-vs-beam.png", results, systems)
    header = write_per_sentence_file(output / PER_SENTENCE, results, systems, command,
                                     {"table": args.table, "lm": args.lm, "input": args.input}, search)
    write_markdown(output / "mcpg-vs-beam.md", results, systems, provenance, search, header, len(every_sentence))
    print(f"wrote {output / 'mcpg-vs-beam.md'}, {PER_SENTENCE} and mcpg-vs-beam.png", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main("mcpg_vs_beam", "Seed 000 §4: MCPG (both modes) vs the beam decoder, true scores.", add_arguments, run_from_args, argv)


if __name__ == "__main__":
    sys.exit(main())
