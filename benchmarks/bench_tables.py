"""A paraphrase table as text and as its binary form (``parastudio table binarize``): open time, memory, lookups/s.

    python benchmarks/bench_tables.py [--rules 300000] [--table T]

Writes a synthetic Moses table (``--rules`` rules over a Zipfian vocabulary of
20,000 words, up to 4 words a side) or takes ``--table T`` (copied by link into
a temporary folder, so nothing is written beside it), binarizes it, then for
each form, in a fresh process: the time to open it (``ParaphraseTable.load``,
the import of the module excluded) and the process' peak RSS after opening
(VmHWM: ru_maxrss would count the parent's, inherited through fork);
span lookups/s (``rules_for`` on every span of up to the table's longest
source of 30-word sentences drawn from the same vocabulary: the first pass,
which builds each rule, and a second, cached); sentence matches/s with 20
rules per span (``matches(limit_per_span=20)``, Moses' ttable-limit, as the
decoders take them). Prints figures and the binary/text ratios; asserts
nothing. About a minute at the default size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VOCABULARY = 20_000

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.table_formats import LoadReport
started = time.perf_counter()
report = LoadReport({path!r})
table = ParaphraseTable.load({path!r}, binary={binary!r}, report=report)
opened = time.perf_counter() - started
rss = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")) / 1024
sentences = json.loads(sys.stdin.read())
longest = table.max_source_length
spans = [tuple(s[i:j]) for s in sentences for i in range(len(s)) for j in range(i + 1, min(len(s), i + longest) + 1)]
passes = []
for _ in range(2):
    started = time.perf_counter()
    hits = sum(1 for span in spans if table.rules_for(span))
    passes.append(time.perf_counter() - started)
started = time.perf_counter()
matched = sum(len(table.matches(s, limit_per_span=20)) for s in sentences)
matching = time.perf_counter() - started
print(json.dumps({{"open": opened, "rss": rss, "binary": report.binary, "rules": len(table), "spans": len(spans),
                  "hits": hits, "first": passes[0], "cached": passes[1], "matching": matching, "matched": matched,
                  "sentences": len(sentences)}}))
"""


def zipf_cumulative(size: int) -> list[float]:
    cumulative, total = [], 0.0
    for rank in range(size):
        total += 1.0 / (rank + 1)
        cumulative.append(total)
    return cumulative


def write_table(path: Path, rules: int, rng: random.Random, words: list[str], weights: list[float]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for _ in range(rules):
            source = " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(1, 4)))
            target = " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(1, 4)))
            handle.write(f"{source} ||| {target} ||| {rng.uniform(1e-4, 1):.6f} 0.5 0.5 0.5\n")


def measure(path: Path, binary: bool, sentences: list[list[str]]) -> dict:
    script = CHILD.format(root=str(ROOT), path=str(path), binary=binary)
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(sentences), capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", type=int, default=300_000, help="synthetic table size (default 300,000)")
    parser.add_argument("--table", help="a real table instead (e.g. evaldata/demo/paraphrase-table.gz)")
    parser.add_argument("--sentences", type=int, default=300, help="30-word sentences to look up (default 300)")
    args = parser.parse_args()

    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as work:
        if args.table:
            given = Path(args.table).resolve()
            path = Path(work) / given.name
            os.symlink(given, path)  # the binary goes into the temporary folder, beside the link
            test = ROOT / "evaldata" / "demo" / "test.en"
            sentences = [line.split() for line in test.read_text(encoding="utf-8").splitlines()][:args.sentences]
            print(f"table: {given}; sentences: {test} ({len(sentences)})")
        else:
            words = [f"w{i}" for i in range(VOCABULARY)]
            path = Path(work) / "table.txt"
            started = time.perf_counter()
            write_table(path, args.rules, rng, words, zipf_cumulative(VOCABULARY))
            print(f"wrote a synthetic table of {args.rules:,} rules in {time.perf_counter() - started:.1f} s")
            weights = zipf_cumulative(VOCABULARY)
            sentences = [rng.choices(words, cum_weights=weights, k=30) for _ in range(args.sentences)]
        started = time.perf_counter()
        ParaphraseTable.binarize(path)
        print(f"binarize: {time.perf_counter() - started:.1f} s (read the text once, write "
              f"{Path(str(path) + '.pstable').stat().st_size / 2**20:.1f} MiB)")
        text = measure(path, False, sentences)
        binary = measure(path, True, sentences)
    assert binary["binary"] and not text["binary"]
    print(f"{text['rules']:,} rules; {text['spans']:,} span lookups ({text['hits']:,} with rules) over "
          f"{text['sentences']} sentences")
    print(f"{'form':<8} {'open s':>8} {'peak RSS MiB':>13} {'lookups/s 1st':>14} {'lookups/s cached':>17} "
          f"{'sentences/s (matches, 20/span)':>31}")
    for name, row in (("text", text), ("binary", binary)):
        print(f"{name:<8} {row['open']:>8.3f} {row['rss']:>13.0f} {row['spans'] / row['first']:>14,.0f} "
              f"{row['spans'] / row['cached']:>17,.0f} {row['sentences'] / row['matching']:>31,.0f}")
    print(f"binary/text: open time {binary['open'] / text['open']:.4f}, peak RSS {binary['rss'] / text['rss']:.2f}, "
          f"first-pass lookups/s {text['first'] / binary['first']:.2f}, cached {text['cached'] / binary['cached']:.2f}")


if __name__ == "__main__":
    main()
