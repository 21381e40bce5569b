"""True scores per second on 30-token sentence pairs with about 1,000 applicable rules.

    python3 benchmarks/bench_truescore.py [--demo]

Each source has ~1,000 applicable rules; targets are made by applying random
disjoint subsets (so they are reachable), plus some unreachable ones. Prints
scores/s for many targets of one source (rule matches cached, the n-best
reranking case) and for cold pairs (matching included), with and without LM,
and the three variants of the dynamic program side by side on the same pairs
(the exact one with its derivation, and the two score-only ones MCPG uses),
interleaved in rounds so a busy machine slows them alike. Rates are per CPU second
(``time.process_time``), which other jobs on the machine move far less than wall time.
"""

from __future__ import annotations

import random
import sys
import time

from parastudio.core.demo import demo_files
from parastudio.core.engine.model import truescore
from parastudio.core.engine.model.derivation import apply_matches
from parastudio.core.engine.model.truescore import (
    SourceRuleIndex,
    TrueScorer,
    best_derivation,
    best_rules_log10,
    best_rules_log10_forward,
)
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule


def build(rng: random.Random, sentences: int):
    vocabulary = [f"w{i}" for i in range(400)]
    rules: list[Rule] = []
    sources = []
    for _ in range(sentences):
        source = tuple(rng.choices(vocabulary, k=30))
        sources.append(source)
        for start in range(30):
            for length in (1, 2, 3):
                if start + length > 30:
                    continue
                for _ in range(8):
                    target = tuple(rng.choices(vocabulary, k=rng.randint(1, 3)))
                    rules.append(Rule(source[start : start + length], target, rng.uniform(0.001, 1.0)))
    return ParaphraseTable(rules), sources


def main() -> None:
    rng = random.Random(0)
    table, sources = build(rng, 20)
    table.sort()
    applicable = [len(table.matches(s)) for s in sources]
    print(f"table: {len(table):,} rules; applicable rules per source: mean {sum(applicable) / len(applicable):,.0f}")
    pairs = []
    for source in sources:
        matches = table.matches(source)
        for _ in range(100):
            chosen, end = [], -1
            for match in sorted(rng.sample(matches, 40), key=lambda m: (m.start, m.end)):
                if match.start >= end:
                    chosen.append(match)
                    end = match.end
            pairs.append((source, apply_matches(source, chosen)[0]))
        pairs.append((source, tuple(rng.choices([f"w{i}" for i in range(400)], k=30))))

    dp_variants("synthetic table", table, pairs)
    compiled_core = truescore._truescore_core
    rates = {}
    for _ in range(3):  # interleaved rounds, best of three per program
        for program, core in (("compiled", compiled_core), ("python", None)):
            if program == "compiled" and core is None:
                continue
            truescore._truescore_core = core
            scorer = TrueScorer(table)
            started = time.process_time()
            reachable = sum(scorer.score(s, t).reachable for s, t in pairs)
            rates[program] = max(rates.get(program, 0.0), len(pairs) / (time.process_time() - started))
    truescore._truescore_core = compiled_core
    for program, rate in rates.items():
        print(f"n-best case (matches cached per source), {program} dynamic program: {len(pairs):,} pairs, "
              f"{rate:,.0f} true scores/s ({reachable:,} reachable)")
    if len(rates) == 2:
        print(f"compiled / python: {rates['compiled'] / rates['python']:.2f}x")

    started = time.process_time()
    for s, t in pairs[:500]:
        TrueScorer(table).score(s, t)
    cold = time.process_time() - started
    print(f"cold pairs (rule matching included): 500 pairs in {cold:.2f} s = {500 / cold:,.0f} true scores/s")

    demo = demo_files()
    if demo.lm.is_file():
        from parastudio.core.engine.lm.language_model import LanguageModel

        lm = LanguageModel(demo.lm)
        with_lm = float("inf")
        for _ in range(3):
            scorer = TrueScorer(table, lm)
            lm._cache.clear()
            started = time.process_time()
            for s, t in pairs:
                scorer.score(s, t)
            with_lm = min(with_lm, time.process_time() - started)
        print(f"with the demo LM (n-best case, best of 3): {len(pairs) / with_lm:,.0f} true scores/s")
    if "--demo" in sys.argv and demo.table.is_file():
        real_data(demo, rng)


def dp_variants(label: str, table: ParaphraseTable, pairs, rounds: int = 5) -> None:
    """Targets/s of best_derivation, best_rules_log10 and best_rules_log10_forward on ``pairs`` (indexes cached)."""
    indexes = {source: SourceRuleIndex(source, table.span_rules(source)) for source, _ in pairs}
    variants = {"best_derivation (exact, with derivation)": lambda t, i: best_derivation(t, i),
                "best_rules_log10 (score only, backward)": best_rules_log10,
                "best_rules_log10_forward (score only, forward)": best_rules_log10_forward}
    seconds = dict.fromkeys(variants, 0.0)
    for _ in range(rounds):
        for name, variant in variants.items():
            started = time.process_time()
            for source, target in pairs:
                variant(target, indexes[source])
            seconds[name] += time.process_time() - started
    exact = seconds[next(iter(variants))]
    print(f"{label}: true-score DP variants, {len(pairs):,} targets x {rounds} rounds")
    for name, spent in seconds.items():
        print(f"  {name:48s} {len(pairs) * rounds / spent:10,.0f} targets/s  {exact / spent:5.2f}x the exact one")


def real_data(demo, rng: random.Random) -> None:
    """The bundled demo table and test verses of 25-35 tokens, random reachable targets."""
    from parastudio.core.engine.lm.language_model import LanguageModel

    started = time.process_time()
    table = ParaphraseTable.load(demo.table, keep_features=False)
    print(f"demo table: {len(table):,} rules loaded in {time.process_time() - started:.1f} s")
    sentences = [tuple(line.split()) for line in demo.test_sentences.read_text(encoding="utf-8").splitlines()]
    sentences = [s for s in sentences if 25 <= len(s) <= 35]
    pairs = []
    for source in sentences:
        matches = table.matches(source)
        for _ in range(50):
            chosen, end = [], -1
            for match in sorted(rng.sample(matches, min(30, len(matches))), key=lambda m: (m.start, m.end)):
                if match.start >= end:
                    chosen.append(match)
                    end = match.end
            pairs.append((source, apply_matches(source, chosen)[0]))
    applicable = sum(len(table.matches(s)) for s in sentences) / len(sentences)
    dp_variants(f"demo data, {len(sentences)} test verses of 25-35 tokens", table, pairs)
    for lm in (None, LanguageModel(demo.lm)):
        scorer = TrueScorer(table, lm)
        started = time.process_time()
        for s, t in pairs:
            scorer.score(s, t)
        seconds = time.process_time() - started
        print(f"demo data, {len(sentences)} test verses of 25-35 tokens ({applicable:,.0f} applicable rules each), "
              f"{'with' if lm else 'without'} LM: {len(pairs) / seconds:,.0f} true scores/s")


if __name__ == "__main__":
    main()
