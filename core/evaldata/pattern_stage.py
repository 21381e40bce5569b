"""Build stage ``patterns``: the WEB pattern paraphrase table over the RV1909 pivot (seed 002 §3.2-3.3).

Reads the parses of the ``parse`` stage, ``corpus/train.rv`` and the WEB-RV word
alignment the ``phrase-table`` stage saves (``alignment/web-rv.align.gz``), induces
the English patterns of each verse (Algorithm 1,
:func:`core.engine.tables.patterns.induction.induce_patterns`), and hands them to
:func:`core.tablebuild.patterns.table_builder.build_pattern_table` (Algorithm 2,
counts, h1..h4, pairing). Writes ``patterns/web-rv.pattern-table.gz`` and its
``.json`` sidecar with λ = 1 and T = -inf: every pair (seed 002 §3.4's starting
point, from which ``parastudio tune --system pivot`` learns λ and T).

Also the monolingual baseline of seed 002 §4.2, DIRT over the same English
patterns (:mod:`core.tablebuild.patterns.dirt`): ``patterns/web.dirt-table.gz``,
``e1 ||| e2 ||| similarity``, the top 5 of each pattern seen more than 10 times.
"""

from __future__ import annotations

import time

from parastudio.core.engine.tables.patterns.induction import MAX_SUBTREE_WORDS, induce_patterns
from parastudio.core.evaldata.model_stages import WEB_RV_ALIGNMENT
from parastudio.core.evaldata.parse_stage import PARSES, read_parser_provenance, read_parses
from parastudio.core.evaldata.stage_context import BuildContext, StageSkipped, read_lines, sha256_of, sha256_of_inputs
from parastudio.core.tablebuild.alignment import parse_links
from parastudio.core.tablebuild.patterns.dirt import dirt_pairs
from parastudio.core.tablebuild.patterns.scoring import DEFAULT_LAMBDAS, KEEP_ALL
from parastudio.core.tablebuild.patterns.table_builder import build_pattern_table
from parastudio.core.textio import atomic_output

PATTERN_TABLE = "patterns/web-rv.pattern-table.gz"
DIRT_TABLE = "patterns/web.dirt-table.gz"


def stage_patterns(context: BuildContext) -> dict:
    for name in (PARSES, WEB_RV_ALIGNMENT):
        if not context.path(*name.split("/")).exists():
            raise StageSkipped(f"{name} is missing: run the {'parse' if name == PARSES else 'phrase-table'} stage first")
    inputs = sha256_of_inputs(context, PARSES, "corpus/train.rv", WEB_RV_ALIGNMENT)
    started = time.perf_counter()
    parses = read_parses(context.path(*PARSES.split("/")))
    pivots = read_lines(context.path("corpus", "train.rv"))
    alignments = read_lines(context.path(*WEB_RV_ALIGNMENT.split("/")))
    if not len(parses) == len(pivots) == len(alignments):
        raise StageSkipped(f"{len(parses)} parses, {len(pivots)} RV verses and {len(alignments)} alignments: "
                           "rerun the parse and phrase-table stages")
    read_seconds = time.perf_counter() - started
    induced = {"patterns": 0, "seconds": 0.0}
    monolingual: list[tuple[str, tuple[str, ...]]] = []  # DIRT's input: (pattern, slot filler words)

    def sentences():
        for parse, pivot, links in zip(parses, pivots, alignments):
            clock = time.perf_counter()
            instances = induce_patterns(parse)
            induced["seconds"] += time.perf_counter() - clock
            induced["patterns"] += len(instances)
            monolingual.extend((instance.text, tuple(parse.words[p] for p, tag in instance.elements if tag))
                               for instance in instances)
            yield parse.words, [instance.elements for instance in instances], pivot.split(), parse_links(links)

    output = context.path(*PATTERN_TABLE.split("/"))
    meta = {"inputs_sha256": inputs, "max_subtree_words": MAX_SUBTREE_WORDS,
            "parser": read_parser_provenance(context)}
    stats = build_pattern_table(sentences(), output, lambdas=DEFAULT_LAMBDAS, threshold=KEEP_ALL,
                                total=len(parses), meta=meta, progress=context.progress)
    started = time.perf_counter()
    dirt = dirt_pairs(monolingual)
    dirt_output = context.path(*DIRT_TABLE.split("/"))
    with atomic_output(dirt_output, compresslevel=6) as handle:
        handle.writelines(f"{e1} ||| {e2} ||| {similarity!r}\n" for e1, e2, similarity in dirt)
    stats["timings"] = {"read_seconds": read_seconds, "induce_seconds (Algorithm 1, within align_patterns)":
                        induced["seconds"], **stats["timings"], "dirt_seconds": time.perf_counter() - started}
    stats["dirt"] = {"output": DIRT_TABLE, "output_sha256": sha256_of(dirt_output), "pairs_top5": len(dirt),
                     "targets": len({e1 for e1, _, _ in dirt}), "min_count": 10, "top": 5}
    return {"output": PATTERN_TABLE, "output_sha256": sha256_of(output), "inputs_sha256": inputs,
            "verses": len(parses), **stats}
