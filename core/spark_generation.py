"""Batch generation on Apache Spark: ``parastudio generate --engine spark`` (issue 25, Deliver 4).

The driver splits the sentences (each with its index) into partitions; every executor's Python
worker loads the engine once (:data:`_ENGINES`, keyed by the options and the inputs' sha256; the
binary table ``.pstable`` and the KenLM binary are memory-mapped, so loading is cheap) and runs the
same generator with the same options object (sent as its JSON, rebuilt with ``options_from_json``).
The driver takes the results back a wave of partitions at a time, in partition order, which is
sentence order, so it never holds more than one wave; the command's one writer writes them, so the
bytes are the local run's (the beam; MCPG with a seed).

An executor whose inputs or code differ from the driver's (another file at the same path on a
cluster node, another checkout) would write other params: it refuses instead.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import dataclass
from typing import Iterator, Sequence

from parastudio.core.engine.candidates.candidate import Candidate
from parastudio.core.engine.candidates.generation import SentenceGenerator, candidate_params
from parastudio.core.engine.candidates.generation_options import RunOptions, options_from_json
from parastudio.core.engine.candidates.generation_resources import GenerationResources, load_resources
from parastudio.core.errors import OptionsError

# Sentences per task at most: small enough that the executors share the work, large enough that a
# task's scheduling (milliseconds) is small beside the sentences' search (tens of milliseconds each).
SENTENCES_PER_PARTITION = 16


@dataclass(frozen=True)
class EngineSpec:
    """What an executor needs to load the engine: the options' JSON, the files by absolute path, and the
    params the driver computed (the executor checks that its own are the same)."""

    options_json: str
    tables: tuple[str, ...]
    lm: str | None
    weights_file: str | None
    weights_signature: str | None
    reference_file: str | None
    params: dict

    @property
    def cache_key(self) -> tuple:
        inputs = self.params["inputs"]
        files = [table["sha256"] for table in inputs["tables"]] + [(inputs["lm"] or {}).get("sha256")]
        return self.options_json, tuple(files)


def engine_spec(options: RunOptions, table_paths: Sequence[str], lm_path: str | None,
                resources: GenerationResources) -> EngineSpec:
    """The spec of a run whose resources the driver loaded from ``table_paths`` and ``lm_path``."""
    resources.check_for(options)
    if resources.pattern_tables:
        raise OptionsError("--engine spark does not take pattern tables (SPG's are matched on the driver's parse)")
    return EngineSpec(options_json=json.dumps(options.to_json(), sort_keys=True),
                      tables=tuple(os.path.abspath(path) for path in table_paths),
                      lm=os.path.abspath(lm_path) if lm_path is not None else None,
                      weights_file=resources.weights_file, weights_signature=resources.weights_signature,
                      reference_file=resources.reference_file, params=candidate_params(options, resources))


# This worker process's engines (Spark reuses its Python workers, so one load serves every task), and how
# many times each was loaded here (loads_here: the tests check that it is once).
_ENGINES: dict[tuple, SentenceGenerator] = {}
_LOADS: Counter = Counter()


def loads_here(spec: EngineSpec) -> int:
    """How many times this process loaded ``spec``'s engine."""
    return _LOADS[spec.cache_key]


def _engine(spec: EngineSpec) -> SentenceGenerator:
    key = spec.cache_key
    if key not in _ENGINES:
        options = options_from_json(json.loads(spec.options_json))
        resources = load_resources(options, spec.tables, spec.lm, weights_file=spec.weights_file,
                                   weights_signature=spec.weights_signature, reference_file=spec.reference_file)
        generator = SentenceGenerator(options, resources)
        _LOADS[key] += 1
        if generator.params != spec.params:
            raise OptionsError(f"an executor (pid {os.getpid()}) sees other inputs or code than the driver: "
                               f"{json.dumps(generator.params, sort_keys=True)} != "
                               f"{json.dumps(spec.params, sort_keys=True)}")
        _ENGINES.clear()  # one engine per worker: a new run's replaces the last one's
        _ENGINES[key] = generator
    return _ENGINES[key]


def _partition_runner(spec: EngineSpec):
    def run(items) -> Iterator[tuple[int, list[Candidate]]]:
        generator = None
        for index, source, reference in items:
            generator = generator or _engine(spec)
            yield index, generator.batch(index, source, reference)[0]
    return run


def generate_on_spark(session, spec: EngineSpec, sentences: Sequence[Sequence[str]],
                      references: Sequence[Sequence[str]] | None = None, *,
                      sentences_per_partition: int = SENTENCES_PER_PARTITION, partitions: int | None = None
                      ) -> Iterator[tuple[int, list[Candidate], None]]:
    """Per sentence, in order: its index and candidates (and no search graph), as ``generate_batches`` yields.

    ``partitions``: split the sentences into this many (default: enough for a wave of the executors' cores,
    each of at most ``sentences_per_partition``). The driver holds one wave's candidates at a time.
    """
    if references is not None and len(references) != len(sentences):
        raise OptionsError(f"{len(references)} references for {len(sentences)} sentences")
    if references is None and json.loads(spec.options_json)["system"] == "spg-similarity":
        raise OptionsError("spg-similarity needs a reference sentence for every input sentence (--reference FILE)")
    if not sentences:
        return
    refs = [tuple(r) for r in references] if references is not None else [None] * len(sentences)
    items = [(index, tuple(source), ref) for index, (source, ref) in enumerate(zip(sentences, refs))]
    context = session.sparkContext
    wave = max(1, context.defaultParallelism)
    if partitions is None:
        partitions = max(wave, math.ceil(len(items) / sentences_per_partition))
    partitions = min(len(items), partitions)
    # parallelize keeps the order: partition p holds a contiguous run of indexes after partition p-1's.
    results = context.parallelize(items, partitions).mapPartitions(_partition_runner(spec))
    expected = 0
    for first in range(0, partitions, wave):
        for index, candidates in context.runJob(results, lambda rows: rows, list(range(first, min(first + wave,
                                                                                              partitions)))):
            assert index == expected, f"sentence {index} arrived in place of {expected}"
            expected += 1
            yield index, candidates, None


def spark_batches(settings, spec: EngineSpec, sentences: Sequence[Sequence[str]],
                  references: Sequence[Sequence[str]] | None = None, *, note=None
                  ) -> Iterator[tuple[int, list[Candidate], None]]:
    """:func:`generate_on_spark` in a session of its own (``settings``: a
    :class:`core.tablebuild.spark_session.SparkSettings` with a master, local[N] or spark://HOST:PORT), stopped
    when the iteration ends; ``note`` is told where the run went (outside the candidates, whose bytes it
    must not change)."""
    from parastudio.core.tablebuild.spark_session import session_summary, spark_session

    session = spark_session(settings, app_name="parastudio-generate")
    try:
        if note is not None:
            note(f"generating on Spark ({session_summary(session)})")
        yield from generate_on_spark(session, spec, sentences, references)
    finally:
        session.stop()
