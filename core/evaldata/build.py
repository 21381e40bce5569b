"""``parastudio data build``: the whole evaldata pipeline, stage by stage, each stage timed.

Stages (in order; each reads what the earlier ones wrote under ``OUT/build``, so
any stage can be rerun alone):

===============  ===============================================================
extract          SWORD modules -> ``corpus/verses.jsonl`` (plain text by OSIS ref)
tokenize         -> ``corpus/tokenized.jsonl`` (``core.engine.text.tokenization``)
split            -> ``split/*.ids`` and the parallel ``corpus/{train,dev,test}.*``
phrase-table     WEB -> RV1909 Moses phrase table (part B's eflomal builder)
pivot            pivot paraphrase table over the RV1909 pivot (``core.tablebuild.pivot``)
webkjv-table     WEB -> KJV phrase table, kept as a paraphrase table p(e2|e1)
lm               5-gram modified Kneser-Ney LM on the WEB training verses
testcases        seed 001 §4.1 cases for the dev and test verses
rv-web-table     the Spanish -> English table (``core.evaldata.translation_stages``)
rv-lm            Spanish 5-gram LMs on the RV1909 training verses
roundtrip        seed 001 §4.1.1: WEB -> Spanish -> English, search graphs, round-trip cases
parse            spaCy dependency parses of the WEB training verses (seed 002 §3.1)
patterns         the pattern paraphrase table over the RV1909 pivot (seed 002 §3.2-3.3)
demo             the committed ``OUT/demo`` files and their MANIFEST
demo-candidates  ``OUT/demo/candidates.jsonl`` (the demo study's) from the demo files alone, and the MANIFEST
manifest         sha256 of every artifact in ``OUT/build/MANIFEST``
===============  ===============================================================

Every number the README quotes is in ``OUT/build/report.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable, Iterable

from parastudio.core.evaldata import (
    corpus_stages,
    demo_release,
    model_stages,
    parse_stage,
    pattern_stage,
    translation_stages,
)
from parastudio.core.evaldata.stage_context import BuildContext, StageSkipped, default_out_dir
from parastudio.core.progress import Progress
from parastudio.core.tablebuild.spark_session import SparkSettings
from parastudio.core.textio import atomic_output
from parastudio.core.worker_processes import BackgroundCall

STAGES = ("extract", "tokenize", "split", "phrase-table", "pivot", "webkjv-table", "lm", "testcases",
          "rv-web-table", "rv-lm", "roundtrip", "parse", "patterns", "demo", "demo-candidates",
          "manifest")
# Two chains of stages that share nothing but the split run side by side, one per core: each is
# single-threaded (eflomal with one thread and DuckDB with one thread, both for bit-identical output).
CONCURRENT_CHAINS = (("phrase-table", "pivot", "rv-web-table"), ("webkjv-table", "lm", "testcases", "rv-lm"))


def _record(report_path: Path, update: dict) -> dict:
    """Merge ``update`` into the report on disk (re-read first, so runs of separate stages all keep their entries)."""
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else {}
    report.setdefault("stages", {}).update(update.pop("stages", {}))
    report.update(update)
    report["stages"] = {stage: report["stages"][stage] for stage in STAGES if stage in report["stages"]}
    with atomic_output(report_path) as handle:
        json.dump(report, handle, indent=1, default=str)
        handle.write("\n")
    return report


STAGE_FUNCTIONS: dict[str, Callable[[BuildContext], dict]] = {
    "extract": corpus_stages.stage_extract, "tokenize": corpus_stages.stage_tokenize,
    "split": corpus_stages.stage_split, "phrase-table": model_stages.stage_phrase_table,
    "pivot": model_stages.stage_pivot, "webkjv-table": model_stages.stage_webkjv_table,
    "lm": model_stages.stage_lm, "testcases": model_stages.stage_testcases,
    "rv-web-table": translation_stages.stage_rv_web_table, "rv-lm": translation_stages.stage_rv_lm,
    "roundtrip": translation_stages.stage_roundtrip,
    "parse": parse_stage.stage_parse, "patterns": pattern_stage.stage_patterns,
    "demo": demo_release.stage_demo, "demo-candidates": demo_release.stage_demo_candidates,
    "manifest": demo_release.stage_manifest,
}


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished subprocesses (eflomal, lmplz, tokenizer workers)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _run_stage(context: BuildContext, stage: str) -> dict:
    context.say(f"[{stage}]")
    started = time.perf_counter()
    cpu_started = _cpu_seconds()
    try:
        stats = STAGE_FUNCTIONS[stage](context)
        status = "done"
    except StageSkipped as reason:
        stats, status = {"reason": str(reason)}, "skipped"
        context.say(f"  [{stage}] skipped: {reason}")
    seconds = time.perf_counter() - started
    cpu = _cpu_seconds() - cpu_started
    context.say(f"  [{stage}] {status} in {seconds:.1f} s ({cpu:.1f} s CPU)")
    return {"status": status, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2), "stats": stats}


def _run_chain_in_child(job: tuple[Path, list[str]]) -> list[tuple[str, dict]]:
    # Runs in the second process; the parent records the entries (one writer for report.json).
    out, stages = job
    context = BuildContext(out)
    return [(stage, _run_stage(context, stage)) for stage in stages]


def _concurrent_chains(wanted: list[str], jobs: int) -> tuple[list[str], list[str]] | None:
    """The two chains to run side by side, or None when fewer than two have work or ``jobs`` < 2."""
    if jobs < 2:
        return None
    chains = [[stage for stage in chain if stage in wanted] for chain in CONCURRENT_CHAINS]
    if not all(chains):
        return None
    return chains[0], chains[1]


def run_build(out: Path | None = None, stages: Iterable[str] | None = None, *,
              say: Callable[[str], None] | None = None, progress: Progress | None = None,
              jobs: int = 2, install: bool = True, spark: SparkSettings | None = None, align_chunk: int = 0) -> dict:
    """Run ``stages`` (all by default, in pipeline order); return and save the report.

    With ``jobs`` >= 2 the WEB-KJV chain (``webkjv-table``, ``lm``, ``testcases``) runs in a second process
    while this one runs ``phrase-table`` and ``pivot``; a stage's seconds are then wall-clock seconds
    while the other chain was running too, and ``last_run.seconds`` is the build's total wall-clock time.
    With ``spark`` the phrase tables are extracted and scored on Spark (same bytes); stages then run one at
    a time, since Spark spreads each over its cores. ``align_chunk``: the phrase tables' word alignment runs by
    chunks of that many sentence pairs (:mod:`core.tablebuild.chunked_alignment`; on Spark's executors with
    ``spark``); 0, the whole corpus at once.
    """
    context = BuildContext(Path(out) if out else default_out_dir(), install=install, jobs=jobs,
                           spark_settings=spark, align_chunk=align_chunk)
    try:
        return _run_stages(context, stages, say, progress)
    finally:
        context.stop_spark()


def _run_stages(context: BuildContext, stages: Iterable[str] | None, say, progress) -> dict:
    if say:
        context.say = say
    if progress:
        context.progress = progress
    wanted = list(STAGES) if not stages else [stage for stage in STAGES if stage in set(stages)]
    unknown = set(stages or ()) - set(STAGES)
    if unknown:
        raise ValueError(f"unknown stage(s) {', '.join(sorted(unknown))}; expected some of {', '.join(STAGES)}")
    report_path = context.path("report.json")
    total_started = time.perf_counter()
    jobs = context.jobs if context.spark_settings is None else 1
    chains = _concurrent_chains(wanted, jobs)
    in_chains = {stage for chain in chains for stage in chain} if chains else set()
    concurrent_done = False
    for stage in wanted:
        if stage in in_chains:
            if concurrent_done:
                continue
            concurrent_done = True
            here, there = chains
            context.say(f"running {' -> '.join(here)} here and {' -> '.join(there)} in a second process")
            with BackgroundCall(_run_chain_in_child, (context.out, there)) as other:  # killed on Ctrl+C
                for own_stage in here:
                    context.report = _record(report_path, {"stages": {own_stage: _run_stage(context, own_stage)}})
                for other_stage, entry in other.result():
                    context.report = _record(report_path, {"stages": {other_stage: entry}})
            continue
        context.report = _record(report_path, {"stages": {stage: _run_stage(context, stage)}})
    engine = "spark" if context.spark_settings else "local"
    context.report = _record(report_path, {"last_run": {"stages": wanted, "jobs": jobs, "engine": engine,
                                                        "concurrent_chains": [list(chain) for chain in chains or ()],
                                                        "seconds": round(time.perf_counter() - total_started, 2)}})
    return context.report
