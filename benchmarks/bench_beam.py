"""Beam decoder speed: sentences/s on 30-token sentences, stack 200, 20 options per span.

Uses evaldata/demo/{paraphrase-table.gz,lm.bin,test.en} when present, or the
table given with --table (filtered to the sentences' n-grams); otherwise
the 5-gram LM of evaldata/build and a synthetic table giving every unigram and
bigram of the test sentences 20 paraphrases drawn from the corpus vocabulary
(a harder case than a real pivot table, where most spans have few rules).
Prints figures; asserts nothing.

    python benchmarks/bench_beam.py [--sentences 10] [--table T --lm LM --input FILE]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings  # noqa: E402
from parastudio.core.engine.lm.language_model import LanguageModel  # noqa: E402
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable  # noqa: E402
from parastudio.core.engine.tables.rules import Rule  # noqa: E402

DEMO = ROOT / "evaldata" / "demo"
BUILD = ROOT / "evaldata" / "build"


def thirty_token_sentences(path: Path, count: int, length: int = 30) -> list[tuple[str, ...]]:
    lines = [tuple(line.split()) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    near = sorted(lines, key=lambda s: (abs(len(s) - length), s))
    chosen = [s[:length] for s in near if len(s) >= length][:count]
    if len(chosen) < count:  # pad from the longest with words of the next sentences
        words = [w for s in lines for w in s]
        chosen += [tuple(words[i * length:(i + 1) * length]) for i in range(count - len(chosen))]
    return chosen


def synthetic_table(sentences, vocabulary, per_span: int = 20, seed: int = 1) -> ParaphraseTable:
    rng = random.Random(seed)
    table = ParaphraseTable(name="synthetic")
    spans = {s[i:i + n] for s in sentences for n in (1, 2) for i in range(len(s) - n + 1)}
    for span in sorted(spans):
        weights = [rng.random() ** 3 for _ in range(per_span)]
        total = sum(weights) * 1.25
        for weight in weights:
            target = tuple(rng.choice(vocabulary) for _ in range(rng.randint(1, 2)))
            table.add(Rule(span, target, weight / total))
    table.sort()
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=10)
    parser.add_argument("--table")
    parser.add_argument("--lm")
    parser.add_argument("--input")
    args = parser.parse_args()

    demo = all((DEMO / n).exists() for n in ("paraphrase-table.gz", "lm.bin", "test.en"))
    input_path = Path(args.input) if args.input else (DEMO / "test.en" if demo else BUILD / "corpus" / "test.web")
    lm_path = Path(args.lm) if args.lm else (DEMO / "lm.bin" if demo else BUILD / "lm" / "web.5gram.bin")
    sentences = thirty_token_sentences(input_path, args.sentences)
    lm = LanguageModel(lm_path)
    if args.table or demo:
        table_path = Path(args.table) if args.table else DEMO / "paraphrase-table.gz"
        table = ParaphraseTable.load_for(table_path, sentences)  # only the rules the sentences can use, like Moses' filter
        table_label = f"{table_path} ({len(table)} rules match the sentences)"
    else:
        vocabulary = sorted({w for line in input_path.read_text(encoding="utf-8").split("\n") for w in line.split()})
        table = synthetic_table(sentences, vocabulary)
        table_label = f"synthetic, {len(table)} rules, 20 per unigram/bigram"
    print(f"input: {input_path} ({len(sentences)} sentences of {len(sentences[0])} tokens)")
    print(f"LM: {lm_path} (order {lm.order}); table: {table_label}")
    print(f"{'stack':>6} {'n-best':>7} {'sent/s':>8} {'s/sent':>8} {'hyps/sent':>10} {'1-best mean log10':>18}")
    baseline = None
    for stack_size, nbest in ((5, 1), (20, 1), (200, 1), (200, 100)):
        decoder = BeamDecoder(table, lm, DecoderSettings(stack_size=stack_size))
        started = time.perf_counter()
        created = 0
        best_scores = []
        for sentence in sentences:
            result = decoder.decode(sentence)
            created += result.hypotheses_created
            entries = result.nbest(nbest)
            best_scores.append(entries[0].score)
        elapsed = time.perf_counter() - started
        rate = len(sentences) / elapsed
        if stack_size == 200 and nbest == 1:
            baseline = rate
        print(f"{stack_size:>6} {nbest:>7} {rate:>8.2f} {elapsed / len(sentences):>8.3f} "
              f"{created / len(sentences):>10.0f} {sum(best_scores) / len(best_scores):>18.3f}")
    if baseline:
        print(f"stack 200, 20 options: {baseline:.2f} sentences/s on one core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
