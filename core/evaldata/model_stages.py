"""Build stages that train on the corpus: phrase tables (WEB-RV, WEB-KJV), the pivot paraphrase table, the LMs, the test cases."""

from __future__ import annotations

from parastudio.core.evaldata.stage_context import (
    BuildContext,
    StageSkipped,
    read_lines,
    sha256_of,
    sha256_of_inputs,
    write_jsonl,
)
from parastudio.core.evaldata.testcases import CaseReport, build_cases
from parastudio.core.tablebuild.table_converters import moses_to_paraphrase_table

ALIGNMENT_SEED = 0
# grow-diag-final-and links of train.web (source, i) and train.rv (target, j), Pharaoh "i-j", one line per verse.
WEB_RV_ALIGNMENT = "alignment/web-rv.align.gz"
MAX_PHRASE_LENGTH = 7
PIVOT_PARAMETERS = {"min_prob": 1e-5, "max_pivot": 200, "top": 20}
WEBKJV_TOP = 20
LM_ORDER = 5
# The demo LM must fit the 25 MB demo budget: singleton n-grams of order >= 3 pruned, trie with 8-bit quantization.
DEMO_LM = {"order": 5, "prune": [0, 0, 1], "binary_type": "trie", "quantize_bits": 8}
# The big intermediate tables: gzip level 6 writes about three times faster than 9 for ~2% more bytes.
# The committed demo keeps the default level 9 (its sha256 is in the MANIFEST).
TABLE_GZIP_LEVEL = 6


def _phrase_table_builder():
    try:
        from parastudio.core.tablebuild.phrase_table_builder import build_phrase_table_from_files
    except ImportError as error:
        raise StageSkipped(f"core.tablebuild.phrase_table_builder is not available ({error})") from None
    return build_phrase_table_from_files


def _corpus_files(context: BuildContext, *names: str):
    """The corpus files the stage trains on (read by the table builder: on Spark by chunks, Spark reads them)."""
    paths = [context.path("corpus", name) for name in names]
    for path in paths:
        if not path.exists():
            raise StageSkipped(f"{path} is missing: run the earlier stages first")
    return paths


def stage_phrase_table(context: BuildContext) -> dict:
    build_phrase_table = _phrase_table_builder()
    web, rv = _corpus_files(context, "train.web", "train.rv")
    output = context.path("tables", "web-rv.phrase-table.gz")
    # The symmetrized word alignment the table was extracted from, kept for the pattern stages (seed 002 §3.2).
    alignment = context.path(*WEB_RV_ALIGNMENT.split("/"))
    inputs = sha256_of_inputs(context, "corpus/train.web", "corpus/train.rv")
    stats = build_phrase_table(web, rv, output, max_length=MAX_PHRASE_LENGTH, seed=ALIGNMENT_SEED,
                               alignment_output=alignment, compresslevel=TABLE_GZIP_LEVEL, spark=context.spark(),
                               align_chunk=context.align_chunk)
    return {"training_corpus": "corpus/train.web", "training_lines": stats["sentence_pairs"], "inputs_sha256": inputs,
            "output_sha256": sha256_of(output), "alignment": WEB_RV_ALIGNMENT,
            "alignment_sha256": sha256_of(alignment), **stats}


def stage_pivot(context: BuildContext) -> dict:
    try:
        from parastudio.core.tablebuild.pivot import pivot_table
    except ImportError as error:
        raise StageSkipped(f"core.tablebuild.pivot is not available ({error})") from None
    table = context.path("tables", "web-rv.phrase-table.gz")
    if not table.exists():
        raise StageSkipped(f"{table} is missing: run the phrase-table stage first")
    inputs = sha256_of_inputs(context, "tables/web-rv.phrase-table.gz")
    output = context.path("tables", "paraphrase-table.gz")
    if context.spark() is not None:
        from parastudio.core.tablebuild.spark_pivot import pivot_table_spark

        stats = pivot_table_spark(context.spark(), table, output, **PIVOT_PARAMETERS, compresslevel=TABLE_GZIP_LEVEL)
    else:
        stats = pivot_table(table, output, **PIVOT_PARAMETERS, compresslevel=TABLE_GZIP_LEVEL)
    return {"inputs_sha256": inputs, "output_sha256": sha256_of(output), **stats}


def stage_webkjv_table(context: BuildContext) -> dict:
    build_phrase_table = _phrase_table_builder()
    web, kjv = _corpus_files(context, "train.web", "train.kjv")
    moses = context.path("tables", "web-kjv.phrase-table.gz")
    aligned = build_phrase_table(web, kjv, moses, max_length=MAX_PHRASE_LENGTH, seed=ALIGNMENT_SEED,
                                 compresslevel=TABLE_GZIP_LEVEL, spark=context.spark(), align_chunk=context.align_chunk)
    converted = moses_to_paraphrase_table(moses, context.path("tables", "web-kjv.paraphrase-table.gz"), top=WEBKJV_TOP,
                                          compresslevel=TABLE_GZIP_LEVEL)
    return {"training_corpus": "corpus/train.web", "training_lines": aligned["sentence_pairs"], "phrase_table": aligned,
            "paraphrase_table": converted}


def _train_lm():
    try:
        from parastudio.core.engine.lm.kenlm_tools import train_lm
    except ImportError as error:
        raise StageSkipped(f"core.engine.lm.kenlm_tools is not available ({error})") from None
    return train_lm


def stage_lm(context: BuildContext) -> dict:
    train_lm = _train_lm()
    corpus = context.path("corpus", "lm-train.web")
    if not corpus.exists():
        raise StageSkipped(f"{corpus} is missing: run the split stage first")
    inputs = sha256_of_inputs(context, "corpus/lm-train.web")
    full = train_lm(corpus, LM_ORDER, context.path("lm", f"web.{LM_ORDER}gram.bin"))
    demo = train_lm(corpus, DEMO_LM["order"], context.path("lm", "web.demo.bin"), prune=DEMO_LM["prune"],
                    binary_type=DEMO_LM["binary_type"], quantize_bits=DEMO_LM["quantize_bits"])
    return {"corpus_lines": sum(1 for _ in open(corpus, encoding="utf-8")), "order": LM_ORDER,
            "full_bytes": full.stat().st_size, "demo_bytes": demo.stat().st_size, "demo": DEMO_LM,
            "kjv_added": False, "inputs_sha256": inputs, "demo_sha256": sha256_of(demo)}


def stage_testcases(context: BuildContext) -> dict:
    stats = {}
    for part in ("dev", "test"):
        refs = read_lines(context.path("split", f"{part}.ids"))
        web = read_lines(context.path("corpus", f"{part}.web"))
        kjv = read_lines(context.path("corpus", f"{part}.kjv"))
        report = CaseReport()
        cases = build_cases(zip(refs, web, kjv), report)
        write_jsonl(context.path("testcases", f"{part}.jsonl"), (case.as_json() for case in cases))
        stats[part] = report.as_json()
    return stats
