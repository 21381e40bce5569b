"""Seed 001's round-trip (or direct) graphs of a sample of the data build's sentences, at a larger stack.

The data build's ``roundtrip`` stage writes its pass-2 graphs at stack 10 with 20 options per span
(:data:`core.evaldata.translation_stages.ROUNDTRIP`); Rustamli's were decoded at stack 5,000 with 100
(§4.1.1). This decodes every ``--every``-th sentence of a part again with the same table
(``roundtrip/rv-web.PART.gz``) and LM (``lm/web.demo.bin``) at ``--stack`` and ``--options`` and writes into
``--out``: the graph (``roundtrip-PART.graph.gz`` or ``direct-PART.graph.gz``), the cases of the sampled
sentences (``roundtrip-PART.jsonl``: made afresh from this graph's 1-best as the build makes them from its own,
so each case's sentence is its graph's 1-best; ``PART.jsonl``: the WEB-KJV cases copied from ``testcases/``) and ``settings.json``
(stack, options, sample, seconds, peak memory), which ``parastudio experiment seed001-approaches --graphs
DIR`` reads. ``--shard I/N`` decodes only every N-th sampled sentence from the I-th, so two processes can
share the work; ``--merge`` joins the shards' files into the ones above.

    python3 benchmarks/decode_thesis_graphs.py --part dev --every 5 --stack 200 --options 100 --out DIR \
        [--direct] [--shard 0/2 | --merge 2] [--limit N]
"""

from __future__ import annotations

import argparse
import gzip
import heapq
import json
import resource
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BUILD = ROOT / "evaldata" / "build"


def names(part: str, direct: bool) -> tuple[str, str, str]:
    """(graph file, cases file, sentences file) of a part under the build's names."""
    if direct:
        return f"direct-{part}.graph.gz", f"{part}.jsonl", f"corpus/{part}.rv"
    return f"roundtrip-{part}.graph.gz", f"roundtrip-{part}.jsonl", f"roundtrip/{part}.es"


def sample_ids(count: int, every: int, limit: int | None) -> list[int]:
    ids = list(range(0, count, every))
    return ids[:limit] if limit else ids


def decode(args, shard: int, shards: int) -> dict:
    from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
    from parastudio.core.engine.decoders.cat.translate import translate_all
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.evaldata.translation_stages import MAX_PHRASE_LENGTH

    graph_name, _, sentences_name = names(args.part, args.direct)
    sentences = [line.split() for line in (BUILD / sentences_name).read_text(encoding="utf-8").splitlines()]
    ids = sample_ids(len(sentences), args.every, args.limit)[shard::shards]
    table = ParaphraseTable.load_for(BUILD / "roundtrip" / f"rv-web.{args.part}.gz", [sentences[i] for i in ids],
                                     max_length=MAX_PHRASE_LENGTH)
    decoder = BeamDecoder(table, LanguageModel(BUILD / "lm" / "web.demo.bin"),
                          DecoderSettings(stack_size=args.stack, option_limit=args.options))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with gzip.open(out / f"{graph_name}.shard{shard}", "wt", encoding="utf-8", compresslevel=6) as graph:
        for done, sentence_id in enumerate(ids, 1):
            translate_all(decoder, [sentences[sentence_id]], graph=graph, first_id=sentence_id)
            print(f"{done}/{len(ids)} sentences, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    row = {"sentences": len(ids), "decode_seconds": time.perf_counter() - started,
           "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    (out / f"{graph_name}.shard{shard}.json").write_text(json.dumps(row) + "\n", encoding="utf-8")
    return row


def graph_sentences(path: Path):
    """``(sentence id, lines)`` per sentence of a graph file (a sentence's lines are contiguous)."""
    current, lines = None, []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            sentence_id = int(line.split(" ", 1)[0])
            if sentence_id != current and lines:
                yield current, lines
                lines = []
            current = sentence_id
            lines.append(line.rstrip("\n"))
    if lines:
        yield current, lines


def roundtrip_cases_of(graphs: list[Path], part: str) -> tuple[list[dict], dict]:
    """The round trip's cases with these graphs' 1-best as the second pass (as the build makes them from its own):
    each case's sentence is then its graph's 1-best, and its selection aligns exactly. ``graphs`` are the shards,
    each in sentence order: merged a sentence at a time, so the whole graph is never held in memory."""
    from parastudio.core.engine.decoders.cat.segmentation import parse_segmentation
    from parastudio.core.engine.decoders.cat.translate import translation_of_graph
    from parastudio.core.evaldata.roundtrip import RoundTripReport, roundtrip_cases

    originals = (BUILD / "corpus" / f"{part}.web").read_text(encoding="utf-8").splitlines()
    refs = (BUILD / "split" / f"{part}.ids").read_text(encoding="utf-8").splitlines()
    first = (BUILD / "roundtrip" / f"{part}.es.seg").read_text(encoding="utf-8").splitlines()
    report, cases = RoundTripReport(), []
    for sentence_id, lines in heapq.merge(*map(graph_sentences, graphs), key=lambda item: item[0]):
        cases += roundtrip_cases(refs[sentence_id], sentence_id, originals[sentence_id].split(),
                                 parse_segmentation(first[sentence_id]), translation_of_graph(lines), report)
    return cases, report.as_json()


def merge(args, shards: int) -> dict:
    """Join the shards' graphs (gzip members concatenate), write the sample's cases and settings.json."""
    graph_name, cases_name, sentences_name = names(args.part, args.direct)
    out = Path(args.out)
    rows = [json.loads((out / f"{graph_name}.shard{i}.json").read_text(encoding="utf-8")) for i in range(shards)]
    with open(out / f"{graph_name}.part", "wb") as joined:
        for i in range(shards):
            with open(out / f"{graph_name}.shard{i}", "rb") as piece:
                shutil.copyfileobj(piece, joined)
    (out / f"{graph_name}.part").replace(out / graph_name)
    count = len((BUILD / sentences_name).read_text(encoding="utf-8").splitlines())
    wanted = set(sample_ids(count, args.every, args.limit))
    if args.direct:  # WEB-KJV cases: the WEB verse against the graph, aligned fuzzily whatever the 1-best
        cases = [json.loads(line) for line in (BUILD / "testcases" / cases_name).read_text(encoding="utf-8")
                 .splitlines() if json.loads(line)["sentence_id"] in wanted]
        report = {}
    else:
        cases, report = roundtrip_cases_of([out / f"{graph_name}.shard{i}" for i in range(shards)], args.part)
    (out / cases_name).write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    settings_path = out / "settings.json"
    settings = json.loads(settings_path.read_text(encoding="utf-8")) if settings_path.exists() else {}
    settings[graph_name] = {"stack": args.stack, "options": args.options, "every": args.every,
                            "sentences": len(wanted), "of_sentences": count, "cases": len(cases),
                            "decode_seconds": sum(r["decode_seconds"] for r in rows),
                            "peak_mb": max(r["peak_mb"] for r in rows), "processes": shards,
                            "graph_mb": (out / graph_name).stat().st_size / 2 ** 20,
                            **({"roundtrip": report} if report else {})}
    settings_path.write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
    return {k: v for k, v in settings[graph_name].items() if k != "roundtrip"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="dev", choices=("dev", "test"))
    parser.add_argument("--every", type=int, default=5, help="every N-th sentence of the part (0, N, 2N, ...)")
    parser.add_argument("--limit", type=int, help="at most this many sampled sentences")
    parser.add_argument("--stack", type=int, default=200)
    parser.add_argument("--options", type=int, default=100)
    parser.add_argument("--direct", action="store_true", help="the RV1909 verses' direct graph (WEB-KJV cases)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--shard", help="I/N: decode only this share of the sample")
    parser.add_argument("--merge", type=int, help="join this many shards")
    args = parser.parse_args(argv)
    if args.merge:
        print(json.dumps(merge(args, args.merge)))
    else:
        shard, shards = (int(v) for v in (args.shard or "0/1").split("/"))
        print(json.dumps(decode(args, shard, shards)))
        if shards == 1:
            print(json.dumps(merge(args, 1)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
