"""MCPG speed and quality against time (issue 6): prints figures, asserts nothing.

* episodes/s of both modes on ~30-token sentences;
* a new state's free actions: numpy bit masks against the plain loop
  (ActionSpace.free on the first sentence's actions, tuned and faithful);
* the compiled search against the Python reference (issue 24): episodes per
  CPU second of each on the same sentences and settings (the faithful
  profile, true-score mode), side by side with the ratio, and whether they
  give the same outputs (``--cores-only`` prints only this);
* quality against time: mean true-score gap (log10, MCPG minus reference,
  higher is better) at 0.1, 0.3, 1, 2, 3, 10 s per sentence, true-score mode.

Figures from a run are kept in evaldata/results/mcpg-profiles.md.

The reference is the beam decoder's 1-best (core.engine.decoders.beam_decoder) and, because
that 1-best is often the source itself, which MCPG never outputs (seed 003 §2:
the root is not final), also the beam's best candidate that differs from the
source (from its distinct 100-best). Without the beam decoder the reference is
the exhaustive optimum on short sentences.

Data: evaldata/demo/paraphrase-table.gz + evaldata/demo/lm.bin + test.en when
they exist; else evaldata/build/tables/paraphrase-table.gz (the real pivot
table) with the 5-gram build LM and the held-out test.web; else the build LM with a synthetic table (for every unigram and
bigram of the test sentences, kappa = 10 random paraphrases among the 3,000
most frequent words of the LM corpus, probabilities Dirichlet(1)); else the
toy corpus of the tests.

    python benchmarks/bench_mcpg.py [--sentences 10] [--budgets 0.1,0.3,1,2,3,10] [--length 30] [--data auto]
    python benchmarks/bench_mcpg.py --cores-only [--core-eta 1000] [--core-episodes 20000]

episodes/s in the curve is episodes over the budget (a search that commits
stop before its budget ends, or the tuned profile's polish, which takes the
last quarter of the budget, is counted over the whole budget, so it is a
lower bound); "s used" is the mean time a search took (the polish stops
early at a local optimum).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parastudio.core.engine.decoders.mcpg import FAITHFUL, TUNED, ActionSpace, MCPGStats, SearchInputs, generate_mcpg  # noqa: E402
from parastudio.core.engine.lm.language_model import LanguageModel  # noqa: E402
from parastudio.core.engine.model.truescore import TrueScorer  # noqa: E402
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable  # noqa: E402
from parastudio.core.engine.tables.rules import Rule  # noqa: E402
from parastudio.core.engine.tables.table_formats import TableLoading  # noqa: E402
from parastudio.core.errors import InputFormatError  # noqa: E402
from parastudio.core.textio import open_text_maybe_gzip  # noqa: E402

DEMO_TABLE = ROOT / "evaldata/demo/paraphrase-table.gz"
DEMO_LM = ROOT / "evaldata/demo/lm.bin"
DEMO_TEST = ROOT / "evaldata/demo/test.en"
BUILD_TABLE = ROOT / "evaldata/build/tables/paraphrase-table.gz"
BUILD_LM = ROOT / "evaldata/build/lm/web.5gram.bin"
TEST_TEXT = ROOT / "evaldata/build/corpus/test.web"
LM_TEXT = ROOT / "evaldata/build/corpus/lm-train.web"


def pick_sentences(count: int, length: int, path: Path = TEST_TEXT) -> list[tuple[str, ...]]:
    """The ``count`` held-out test sentences closest to ``length`` tokens."""
    lines = [tuple(line.split()) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines.sort(key=lambda s: (abs(len(s) - length), s))
    return lines[:count]


def synthetic_table(sentences, rng: random.Random, kappa: int = 10) -> ParaphraseTable:
    counts = Counter(word for line in LM_TEXT.read_text(encoding="utf-8").splitlines() for word in line.split())
    frequent = [word for word, _ in counts.most_common(3000)]
    phrases = sorted({s[i : i + n] for s in sentences for n in (1, 2) for i in range(len(s) - n + 1)})
    rules = []
    for phrase in phrases:
        weights = [rng.expovariate(1.0) for _ in range(kappa)]
        total = sum(weights)
        targets = set()
        for weight in weights:
            target = tuple(rng.choice(frequent) for _ in range(rng.choice((1, 1, 2))))
            if target in targets:
                continue
            targets.add(target)
            rules.append(Rule(phrase, target, weight / total))
    table = ParaphraseTable(rules, name="synthetic")
    table.sort()
    return table


def filtered_table(path: Path, sentences) -> ParaphraseTable:
    """The rules of ``path`` whose source occurs in ``sentences`` (like Moses' filter-model-given-input).

    The full build table (5 M rules) would take minutes and gigabytes to load;
    filtering keeps exactly the rules any of these sentences can use. The
    filtered file is cached under /tmp.
    """
    phrases = {s[i:j] for s in sentences for i in range(len(s)) for j in range(i + 1, min(len(s), i + 8) + 1)}
    key = hashlib.sha256(("\n".join(" ".join(s) for s in sentences) + str(path)).encode()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / f"parastudio-bench-{key}.txt"
    if not cache.exists():
        keep = {" ".join(p) for p in phrases}
        partial = cache.with_suffix(".part")
        with open_text_maybe_gzip(path) as lines, open(partial, "w", encoding="utf-8") as out:
            for line in lines:
                if line.split(" ||| ", 1)[0] in keep:
                    out.write(line)
        partial.replace(cache)
    return ParaphraseTable.load(cache, TableLoading(format="moses"))


def demo_readable() -> str | None:
    """None when the evaldata/demo files exist and the table reads as text, else why not."""
    if not (DEMO_TABLE.exists() and DEMO_LM.exists() and DEMO_TEST.exists()):
        return "evaldata/demo/{paraphrase-table.gz,lm.bin,test.en} missing"
    try:
        with open_text_maybe_gzip(DEMO_TABLE) as lines:
            first = lines.readline()
    except (OSError, UnicodeDecodeError, EOFError, InputFormatError) as error:
        return f"{DEMO_TABLE} unreadable ({type(error).__name__}: {error})"
    if " ||| " not in first:
        return f"{DEMO_TABLE}: first line is not a Moses table line"
    return None


def load_data(args):
    problem = demo_readable() if args.data in ("auto", "demo") else "--data build"
    if problem is None:
        lm = LanguageModel(DEMO_LM)
        sentences = pick_sentences(args.sentences, args.length, DEMO_TEST)
        return sentences, filtered_table(DEMO_TABLE, sentences), lm, "evaldata/demo table + LM, demo test set"
    if args.data == "demo":
        raise SystemExit(f"--data demo: {problem}")
    if args.data == "auto":
        print(f"(not using evaldata/demo: {problem})")
    if BUILD_TABLE.exists():
        sentences = pick_sentences(args.sentences, args.length)
        return (sentences, filtered_table(BUILD_TABLE, sentences), LanguageModel(BUILD_LM),
                "evaldata/build pivot table (filtered to the sentences) + web.5gram LM, test.web")
    lm = LanguageModel(BUILD_LM)
    sentences = pick_sentences(args.sentences, args.length)
    return sentences, synthetic_table(sentences, random.Random(1)), lm, "synthetic table (kappa=10) + web.5gram LM"


def references(sentences, table, lm):
    """(beam 1-best true score, beam best-non-source true score) per sentence, or None without the decoder."""
    try:
        from parastudio.core.engine.decoders.beam_decoder import decode_nbest
    except ImportError:
        return None
    scorer = TrueScorer(table, lm)
    out = []
    for source in sentences:
        entries = decode_nbest(source, table, lm, n=100)
        one_best = scorer.score(source, entries[0].tokens).log10_score
        different = next((e for e in entries if tuple(e.tokens) != tuple(source)), None)
        other = scorer.score(source, different.tokens).log10_score if different is not None else None
        out.append((one_best, other, tuple(entries[0].tokens) == tuple(source), tuple(entries[0].tokens)))
    return out


def run_curve(sentences, table, lm, scorer, refs, budgets, profile, start_from_beam=False, mode="true-score"):
    """Rows (budget, gaps vs 1-best, gaps vs best != source, reached, mean episodes, episodes/s, mean s used).

    Gaps compare true scores, whatever the mode (seed 000 §4.2 compares the
    1-best outputs reranked by the true score).
    """
    rows = []
    for budget in budgets:
        gaps_one, gaps_other, reached, episodes, used = [], [], 0, [], []
        for index, source in enumerate(sentences):
            stats = MCPGStats()
            seeds = [refs[index][3]] if (start_from_beam and refs is not None) else []
            results = generate_mcpg(source, table, lm, mode=mode, time_budget=budget, seed=index,
                                    profile=profile, start_from=seeds, stats=stats)
            episodes.append(stats.episodes)
            used.append(stats.seconds)
            if not results:
                continue
            score = scorer.score(source, results[0][0]).log10_score
            if refs is not None:
                one_best, other, _, _ = refs[index]
                gaps_one.append(score - one_best)
                reached += score >= one_best - 1e-9
                if other is not None:
                    gaps_other.append(score - other)
        rows.append((budget, gaps_one, gaps_other, reached, statistics.mean(episodes),
                     sum(episodes) / (budget * len(sentences)), statistics.mean(used)))
    return rows


def core_speed(sentences, table, lm, eta: int, episodes: int) -> None:
    """Episodes per CPU second of the compiled and the Python search, the same verses and settings, and the ratio.

    CPU time of the whole ``generate_mcpg`` call (process time: the machine is shared, so wall time would
    measure the other processes too); building the action space in Python is counted for both.
    """
    from parastudio.core.engine.decoders.mcpg import native

    print(f"\n== compiled vs Python search: faithful profile, true-score mode, eta {eta:,}, "
          f"at most {episodes:,} episodes per verse, episodes per CPU second ==")
    if not native.available():
        print("(the compiled MCPG core is not built: python setup.py build_ext --inplace)")
        return
    totals = {"native": [0, 0.0], "python": [0, 0.0]}
    same = 0
    for index, source in enumerate(sentences):
        outcome = {}
        for core in ("native", "python"):
            stats = MCPGStats()
            started = time.process_time()
            results = generate_mcpg(source, table, lm, profile=FAITHFUL, episodes_per_step=eta, max_episodes=episodes,
                                    seed=index, nbest=5, stats=stats, core=core, time_budget=None)
            totals[core][0] += stats.episodes
            totals[core][1] += time.process_time() - started
            outcome[core] = (results, stats.provenance())
        same += outcome["native"] == outcome["python"]
    rates = {core: count / seconds for core, (count, seconds) in totals.items()}
    for core in ("native", "python"):
        count, seconds = totals[core]
        print(f"{core:7s} {count:9,} episodes  {seconds:8.2f} CPU s  {rates[core]:10,.0f} episodes/s")
    print(f"ratio native / python: {rates['native'] / rates['python']:.1f}x; the same outputs and search record "
          f"on {same} of {len(sentences)} verses")


def state_filter(source, table, lm, options, states: int = 2000) -> None:
    """Time ActionSpace.free on random coverages, vectorised and with the plain loop, side by side."""
    space = ActionSpace(SearchInputs(source, table, lm, options=options))
    rng = random.Random(0)
    coverages = []
    for _ in range(states):
        covered = 0
        for a in rng.sample(range(len(space)), min(len(space), rng.randint(1, 6))):
            if not space.masks[a] & covered:
                covered |= space.masks[a]
        coverages.append(covered)
    vectorised = space.order_masks
    seconds = {"numpy": 0.0, "plain": 0.0}
    for _ in range(2):  # interleaved, so a busy machine slows both alike
        for name, masks in (("numpy", vectorised), ("plain", None)):
            space.order_masks = masks  # None: the loop longer sentences use
            started = time.perf_counter()
            for covered in coverages:
                space.free(covered)
            seconds[name] += time.perf_counter() - started
    space.order_masks = vectorised
    numpy_ms, plain_ms = (seconds[name] / (2 * states) * 1000 for name in ("numpy", "plain"))
    print(f"\n== a new state's free actions ({len(space)} actions, {states} random coverages) ==")
    print(f"numpy bit masks {numpy_ms:.3f} ms/state, plain loop {plain_ms:.3f} ms/state: "
          f"{plain_ms / numpy_ms:.0f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=10)
    parser.add_argument("--length", type=int, default=30)
    parser.add_argument("--budgets", default="0.1,0.3,1,2,3,10")
    parser.add_argument("--data", choices=("auto", "demo", "build"), default="auto",
                        help="auto: evaldata/demo when it exists and reads, else the build artifacts")
    parser.add_argument("--speed-seconds", type=float, default=2.0)
    parser.add_argument("--translator-budgets", default="1,2",
                        help="budgets for the translator-mode rows (empty: none)")
    parser.add_argument("--profiles", default="faithful,tuned")
    parser.add_argument("--cores-only", action="store_true",
                        help="only the compiled search against the Python reference")
    parser.add_argument("--core-eta", type=int, default=1000, help="eta of the compiled-vs-Python rows")
    parser.add_argument("--core-episodes", type=int, default=20000,
                        help="at most this many episodes per verse in the compiled-vs-Python rows")
    parser.add_argument("--start-from-beam", action="store_true",
                        help="also run the tuned profile with the beam 1-best given as a known final")
    args = parser.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    profiles = args.profiles.split(",")
    sentences, table, lm, label = load_data(args)
    scorer = TrueScorer(table, lm)
    print(f"data: {label}; {len(sentences)} sentences, mean length "
          f"{statistics.mean(len(s) for s in sentences):.1f}; "
          f"mean matches/sentence {statistics.mean(len(table.matches(s)) for s in sentences):.0f}")
    core_speed(sentences, table, lm, args.core_eta, args.core_episodes)
    if args.cores_only:
        return 0

    print(f"\n== episodes/s (first sentence, {args.speed_seconds:g} s each, episodes_per_step default) ==")
    for profile in profiles:
        for mode in ("true-score", "translator"):
            stats = MCPGStats()
            generate_mcpg(sentences[0], table, lm, mode=mode, time_budget=args.speed_seconds, stats=stats,
                          profile=profile)
            print(f"{profile:9s} {mode:11s} {stats.episodes / stats.seconds:9.0f} episodes/s  "
                  f"tree states {stats.tree_states}  distinct finals {stats.distinct_finals}")

    for options in (TUNED, FAITHFUL):  # at most 20 rules per span, and all of them
        state_filter(sentences[0], table, lm, options)

    started = time.perf_counter()
    refs = references(sentences, table, lm)
    beam_seconds = (time.perf_counter() - started) / len(sentences)
    if refs is None:
        print("\n(core.engine.decoders.beam_decoder missing: no beam reference)")
    else:
        same = sum(1 for _, _, is_source, _ in refs if is_source)
        print(f"\nbeam decoder (stack 200, 20 options, 100-best distinct): {beam_seconds:.2f} s/sentence; "
              f"its 1-best is the source itself for {same} of {len(sentences)} sentences")

    def summary(values):
        return f"{statistics.mean(values):+.3f} ± {statistics.pstdev(values):.3f}" if values else "n/a"

    runs = [(profile, profile, False, "true-score", budgets) for profile in profiles]
    if args.start_from_beam:
        runs.append(("tuned+beam", "tuned", True, "true-score", budgets))
    translator_budgets = [float(b) for b in args.translator_budgets.split(",") if b]
    runs += [(f"{profile}/tr", profile, False, "translator", translator_budgets) for profile in profiles]
    print("\n== MCPG: mean true-score gap (log10; MCPG - reference; >= 0 reaches it); "
          "profile/tr = translator mode ==")
    print(f"{'profile':>10}  {'budget s':>8}  {'vs beam 1-best':>16}  {'share >= 1-best':>15}  "
          f"{'vs beam best != source':>24}  {'episodes':>9}  {'episodes/s':>10}  {'s used':>6}")
    for name, profile, start_from_beam, mode, run_budgets in runs:
        for budget, gaps_one, gaps_other, reached, episodes, rate, used in run_curve(
                sentences, table, lm, scorer, refs, run_budgets, profile, start_from_beam, mode):
            print(f"{name:>10}  {budget:8g}  {summary(gaps_one):>16}  {reached:>7}/{len(gaps_one):<7}  "
                  f"{summary(gaps_other):>24}  {episodes:9.0f}  {rate:10.0f}  {used:6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
