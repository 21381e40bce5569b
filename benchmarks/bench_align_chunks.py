"""What aligning by chunks (issue 41, item 4; ``data build --align-chunk``) does to the tables, measured.

For each run, a chunk size (0: the whole corpus at once, as the data build does by default) and a seed, the WEB-RV phrase table is
built from the data build's training corpus exactly as the ``phrase-table`` stage builds it (same seed, phrase
length, gzip level) but with the alignment by chunks, then pivoted as the ``pivot`` stage pivots it (DuckDB, the
stage's parameters). Printed, per chunk size beside the whole-corpus run: alignment links, phrase pairs, pivot
rules and source phrases, CPU seconds of the alignment; and for the pivot's rules, over the source phrases both
tables have: how often the top rule is the same, and the mean overlap (Jaccard) of the top 5; the same over the
source phrases of the demo's 100 test verses (n-grams up to 7 words), the ones the demo decodes. ``--out F.json``
keeps, for each of those test-verse phrases, its top 5 targets under each chunk size.

    python3 benchmarks/bench_align_chunks.py --runs 0:0 10000:0 2500:0 0:1 --work /tmp/align-chunks --out /tmp/align-chunks.json

Needs ``parastudio data build --stages extract tokenize split`` first (evaldata/build/corpus); ``--corpus DIR``
names another build's corpus folder.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parastudio.core.evaldata.model_stages import (  # noqa: E402
    MAX_PHRASE_LENGTH,
    PIVOT_PARAMETERS,
    TABLE_GZIP_LEVEL,
)
from parastudio.core.file_fingerprint import sha256_of  # noqa: E402
from parastudio.core.tablebuild.phrase_table_builder import build_phrase_table  # noqa: E402
from parastudio.core.tablebuild.pivot import pivot_table  # noqa: E402

TOP = 5


def read_lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle]


def top_targets(table: Path) -> dict[str, list[str]]:
    """Each source phrase's targets by the pivot's paraphrase probability (first score), best first, ties by
    target; the first :data:`TOP`."""
    rules: dict[str, list[tuple[float, str]]] = defaultdict(list)
    with gzip.open(table, "rt", encoding="utf-8") as handle:
        for line in handle:
            source, target, scores = line.rstrip("\n").split(" ||| ")[:3]
            rules[source].append((-float(scores.split()[0]), target))
    return {source: [target for _, target in sorted(found)[:TOP]] for source, found in rules.items()}


def test_phrases(verses: list[str]) -> set[str]:
    phrases = set()
    for verse in verses:
        words = verse.split()
        for start in range(len(words)):
            for end in range(start + 1, min(len(words), start + MAX_PHRASE_LENGTH) + 1):
                phrases.add(" ".join(words[start:end]))
    return phrases


def agreement(whole: dict[str, list[str]], chunked: dict[str, list[str]], sources) -> dict:
    shared = [s for s in sources if s in whole and s in chunked]
    if not shared:
        return {"sources": 0}
    same_top = sum(whole[s][0] == chunked[s][0] for s in shared)
    overlap = sum(len(set(whole[s]) & set(chunked[s])) / len(set(whole[s]) | set(chunked[s])) for s in shared)
    return {"sources": len(shared), "same_top_rule": same_top / len(shared), "top5_jaccard": overlap / len(shared)}


def measure(chunk: int, seed: int, web: list[str], rv: list[str], work: Path) -> dict:
    """One run's figures; kept as WORK/run-CHUNK-SEED.json beside its tables, and read back from there when the
    tables are still there (so a later call adds only its new runs)."""
    name = f"chunk{chunk}.seed{seed}"
    table, pivot = work / f"web-rv.{name}.phrase-table.gz", work / f"paraphrase-table.{name}.gz"
    record = work / f"run-{name}.json"
    if record.exists() and table.exists() and pivot.exists():
        return {**json.loads(record.read_text(encoding="utf-8")), "pivot": pivot}
    stats = build_phrase_table(web, rv, table, max_length=MAX_PHRASE_LENGTH, seed=seed,
                               compresslevel=TABLE_GZIP_LEVEL, align_chunk=chunk)
    pivoted = pivot_table(table, pivot, **PIVOT_PARAMETERS, compresslevel=TABLE_GZIP_LEVEL)
    run = {"chunk_pairs": chunk, "seed": seed, "table_sha256": sha256_of(table),
           "alignment_links": stats["alignment_links"], "phrase_pairs": stats["phrase_pairs"],
           "align_seconds_wall": round(stats["timings"]["align_seconds"], 1),
           "pivot_rules": pivoted["paraphrase_pairs_out"]}
    record.write_text(json.dumps(run) + "\n", encoding="utf-8")
    return {**run, "pivot": pivot}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT / "evaldata" / "build" / "corpus")
    parser.add_argument("--runs", nargs="+", default=["0:0", "10000:0", "2500:0", "0:1"],
                        help="CHUNK:SEED runs (chunk 0: the whole corpus at once); the first is the reference the "
                             "others are compared with; a whole-corpus run with another seed shows what eflomal's "
                             "sampling alone changes (default: 0:0 10000:0 2500:0 0:1)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/parastudio-align-chunks"))
    parser.add_argument("--out", type=Path, help="a JSON file for the test-verse phrases' top targets")
    args = parser.parse_args()
    web, rv = read_lines(args.corpus / "train.web"), read_lines(args.corpus / "train.rv")
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"corpus: {args.corpus} ({len(web)} sentence pairs); pivot {PIVOT_PARAMETERS}")
    wanted = [tuple(int(part) for part in run.split(":")) for run in args.runs]
    runs = [measure(chunk, seed, web, rv, args.work) for chunk, seed in wanted]
    tops = {(run["chunk_pairs"], run["seed"]): top_targets(run["pivot"]) for run in runs}
    phrases = test_phrases(read_lines(ROOT / "evaldata" / "demo" / "test.en"))
    whole = tops[wanted[0]]
    print(f"\n{'chunk (pairs)':>13} {'seed':>4} {'links':>10} {'phrase pairs':>13} {'pivot rules':>12} {'pivot sources':>14} {'align s':>8}"
          f" {'same top, all':>14} {'top-5 J, all':>13} {'same top, test':>15} {'top-5 J, test':>14}")
    for run in runs:
        key = (run["chunk_pairs"], run["seed"])
        everything = agreement(whole, tops[key], whole)
        test = agreement(whole, tops[key], phrases)
        run.update(pivot_sources=len(tops[key]), agreement_all=everything, agreement_test=test)
        print(f"{run['chunk_pairs'] or 'whole':>13} {run['seed']:>4} {run['alignment_links']:>10,} {run['phrase_pairs']:>13,} "
              f"{run['pivot_rules']:>12,} {run['pivot_sources']:>14,} {run['align_seconds_wall']:>8} "
              f"{everything['same_top_rule']:>14.3f} {everything['top5_jaccard']:>13.3f} "
              f"{test['same_top_rule']:>15.3f} {test['top5_jaccard']:>14.3f}  ({test['sources']} test phrases)")
    for run in runs:
        print(f"  chunk {run['chunk_pairs'] or 'whole'}, seed {run['seed']}: table sha256 {run['table_sha256'][:16]}")
    if args.out:
        kept = {phrase: {f"{chunk}:{seed}": tops[(chunk, seed)].get(phrase) for chunk, seed in tops}
                for phrase in sorted(phrases) if any(phrase in top for top in tops.values())}
        args.out.write_text(json.dumps({"runs": [{k: v for k, v in run.items() if k != "pivot"} for run in runs],
                                        "units": {"agreement": "fraction of shared source phrases",
                                                  "align_seconds_wall": "s"},
                                        "test_phrases": kept}, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
