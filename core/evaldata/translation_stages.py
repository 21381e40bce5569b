"""Build stages for seed 001's paraphraser: translation in both directions, the round trip, its cases.

=============  ===================================================================================
rv-web-table   the Spanish -> English Moses table: ``tables/web-rv.phrase-table.gz`` turned around
               (``tables/rv-web.phrase-table.gz``; the English -> Spanish one is the WEB-RV table itself)
rv-lm          Spanish 5-gram LMs on the RV1909 training verses: ``lm/rv.5gram.bin`` and the small
               ``lm/rv.demo.bin`` (pruned and quantized as the English demo LM)
roundtrip      seed 001 §4.1.1 on the dev and test verses: WEB -> Spanish -> English with our decoder,
               the second pass's search graphs, the cases (:mod:`core.evaldata.roundtrip`); and the
               RV1909 verses translated into English (the "direct" graphs the WEB-KJV cases use)
=============  ===================================================================================

The round trip decodes with the tables filtered to its input and reduced to the
one score each pass reads (the channel ``p(source|target)``), and with the demo
LMs, so the demo bundle (which carries exactly these tables and LMs for the test
verses) reproduces the test graphs and cases without a build.
"""

from __future__ import annotations

import json

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.decoders.cat.segmentation import parse_segmentation
from parastudio.core.engine.decoders.cat.translate import translate_all
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.evaldata.roundtrip import RoundTripReport, roundtrip_cases
from parastudio.core.evaldata.stage_context import (
    BuildContext,
    StageSkipped,
    read_lines,
    sha256_of,
    write_jsonl,
    write_lines,
)
from parastudio.core.tablebuild.moses_tables import filter_table_for_input, reverse_moses_table
from parastudio.core.textio import atomic_output

MAX_PHRASE_LENGTH = 7
# Pass 1 as Moses' defaults (stack 200); pass 2 writes the graphs, whose size grows with the stack
# (per sentence, measured on 20 test verses: stack 10 about 190 KB of graph text, stack 30 about 800 KB,
# stack 200 about 1.5 MB); stack 10 keeps 1,000 sentences' graphs near 200 MB.
ROUNDTRIP = {"first_pass_stack": 200, "second_pass_stack": 10, "option_limit": 20, "channel_column": 0,
             "lms": "demo"}
PARTS = ("test", "dev")


def stage_rv_web_table(context: BuildContext) -> dict:
    table = context.path("tables", "web-rv.phrase-table.gz")
    if not table.exists():
        raise StageSkipped(f"{table} is missing: run the phrase-table stage first")
    output = context.path("tables", "rv-web.phrase-table.gz")
    stats = reverse_moses_table(table, output)
    return {**stats, "input_sha256": sha256_of(table), "output_sha256": sha256_of(output)}


def stage_rv_lm(context: BuildContext) -> dict:
    from parastudio.core.engine.lm.kenlm_tools import train_lm
    from parastudio.core.evaldata.model_stages import DEMO_LM, LM_ORDER

    corpus = context.path("corpus", "train.rv")
    if not corpus.exists():
        raise StageSkipped(f"{corpus} is missing: run the split stage first")
    full = train_lm(corpus, LM_ORDER, context.path("lm", f"rv.{LM_ORDER}gram.bin"))
    demo = train_lm(corpus, DEMO_LM["order"], context.path("lm", "rv.demo.bin"), prune=DEMO_LM["prune"],
                    binary_type=DEMO_LM["binary_type"], quantize_bits=DEMO_LM["quantize_bits"])
    return {"corpus": "corpus/train.rv", "corpus_sha256": sha256_of(corpus), "order": LM_ORDER,
            "full_bytes": full.stat().st_size, "demo_bytes": demo.stat().st_size, "demo": DEMO_LM,
            "demo_sha256": sha256_of(demo)}


def _decoder(table_path, sentences, lm_path, stack: int) -> BeamDecoder:
    table = ParaphraseTable.load_for(table_path, sentences, max_length=MAX_PHRASE_LENGTH)
    settings = DecoderSettings(stack_size=stack, option_limit=ROUNDTRIP["option_limit"])
    return BeamDecoder(table, LanguageModel(lm_path), settings)


def roundtrip_part(context: BuildContext, part: str) -> dict:
    """Both passes, the direct translation and the cases of one part (``test`` or ``dev``)."""
    web = [line.split() for line in read_lines(context.path("corpus", f"{part}.web"))]
    rv = [line.split() for line in read_lines(context.path("corpus", f"{part}.rv"))]
    folder = context.path("roundtrip")
    folder.mkdir(parents=True, exist_ok=True)
    column = ROUNDTRIP["channel_column"]
    en_es = folder / f"web-rv.{part}.gz"
    filter_table_for_input(context.path("tables", "web-rv.phrase-table.gz"), web, en_es,
                           max_length=MAX_PHRASE_LENGTH, column=column)
    context.say(f"  [{part}] pass 1: {len(web)} WEB verses into Spanish")
    first = translate_all(_decoder(en_es, web, context.path("lm", "rv.demo.bin"), ROUNDTRIP["first_pass_stack"]),
                          web, progress=context.progress)
    spanish = [t.tokens for t in first]
    write_lines(folder / f"{part}.es", (" ".join(t) for t in spanish))
    write_lines(folder / f"{part}.es.seg", (t.format() for t in first))
    es_en = folder / f"rv-web.{part}.gz"
    filter_table_for_input(context.path("tables", "rv-web.phrase-table.gz"), [*spanish, *rv], es_en,
                           max_length=MAX_PHRASE_LENGTH, column=column)
    back = _decoder(es_en, [*spanish, *rv], context.path("lm", "web.demo.bin"), ROUNDTRIP["second_pass_stack"])
    context.say(f"  [{part}] pass 2: the Spanish back into English, with search graphs")
    with atomic_output(folder / f"roundtrip-{part}.graph.gz", compresslevel=6) as graph:
        second = translate_all(back, spanish, graph=graph, progress=context.progress)
    write_lines(folder / f"{part}.en.seg", (t.format() for t in second))
    context.say(f"  [{part}] direct: the RV1909 verses into English, with search graphs")
    with atomic_output(folder / f"direct-{part}.graph.gz", compresslevel=6) as graph:
        direct = translate_all(back, rv, graph=graph, progress=context.progress)
    write_lines(folder / f"direct-{part}.en.seg", (t.format() for t in direct))
    return {**write_roundtrip_cases(context, part),
            "graph_bytes": (folder / f"roundtrip-{part}.graph.gz").stat().st_size,
            "direct_graph_bytes": (folder / f"direct-{part}.graph.gz").stat().st_size}


def write_roundtrip_cases(context: BuildContext, part: str) -> dict:
    """``testcases/roundtrip-PART.jsonl`` from the originals and the two passes' segmentations on disk."""
    web = [line.split() for line in read_lines(context.path("corpus", f"{part}.web"))]
    ids = read_lines(context.path("split", f"{part}.ids"))
    folder = context.path("roundtrip")
    first = [parse_segmentation(line, str(folder / f"{part}.es.seg"), number)
             for number, line in enumerate(read_lines(folder / f"{part}.es.seg"), 1)]
    second = [parse_segmentation(line, str(folder / f"{part}.en.seg"), number)
              for number, line in enumerate(read_lines(folder / f"{part}.en.seg"), 1)]
    report = RoundTripReport()
    cases = [case for index, (ref, original) in enumerate(zip(ids, web))
             for case in roundtrip_cases(ref, index, original, first[index], second[index], report)]
    write_jsonl(context.path("testcases", f"roundtrip-{part}.jsonl"), cases)
    identical = sum(1 for original, t in zip(web, second) if tuple(original) == t.tokens)
    return {**report.as_json(), "round_trip_identical_to_original": identical}


def stage_roundtrip(context: BuildContext) -> dict:
    for needed in (context.path("tables", "web-rv.phrase-table.gz"), context.path("tables", "rv-web.phrase-table.gz"),
                   context.path("lm", "rv.demo.bin"), context.path("lm", "web.demo.bin")):
        if not needed.exists():
            raise StageSkipped(f"{needed} is missing: run the phrase-table, rv-web-table, lm and rv-lm stages first")
    stats = {"settings": ROUNDTRIP}
    for part in PARTS:
        stats[part] = roundtrip_part(context, part)
    with atomic_output(context.path("roundtrip", "report.json")) as handle:
        json.dump(stats, handle, indent=1)
        handle.write("\n")
    return stats


# What the demo bundle carries for the paraphraser (demo name -> build path parts).
DEMO_CAT_FILES = {
    "web-rv.test.phrase-table.gz": ("roundtrip", "web-rv.test.gz"),
    "rv-web.test.phrase-table.gz": ("roundtrip", "rv-web.test.gz"),
    "lm.es.bin": ("lm", "rv.demo.bin"),
    "test.es": ("corpus", "test.rv"),
    "roundtrip-test.graph.gz": ("roundtrip", "roundtrip-test.graph.gz"),
    "direct-test.graph.gz": ("roundtrip", "direct-test.graph.gz"),
    "testcases-roundtrip.jsonl": ("testcases", "roundtrip-test.jsonl"),
}
