"""Generate candidate paraphrases with any system: the one entry point for the CLI, the app and a notebook.

``generate(options, sentences, resources)`` yields :class:`core.engine.candidates.candidate.Candidate`
objects, each with the system's own log10 score of its best path and the exact
log10 true score (seed 000, :mod:`core.engine.model.truescore`) under the same table, LM and weights.
``options`` is the system's frozen options object (:mod:`core.engine.candidates.generation_options`:
``BeamRunOptions``, ``MCPGRunOptions``, ``SPGRunOptions``), ``resources`` the loaded
tables and LM (:mod:`core.engine.candidates.generation_resources`).

Systems:

* ``beam``: the monotone stack decoder of :mod:`core.engine.decoders.beam_decoder` (our MOSES).
* ``mcpg-true`` / ``mcpg-translator``: MCPG (seed 003, seed 000 §4) in
  :func:`core.engine.decoders.mcpg.generate_mcpg`.
* ``spg-compression`` / ``spg-simplification`` / ``spg-similarity``: SPG
  (seed 004) in :func:`core.engine.decoders.spg.generate_spg`.

SPG also takes pattern tables (seed 004's PT-4:
:class:`core.engine.tables.patterns.pattern_table.PatternTable`); they are matched on each
parsed input sentence and are not part of the merged table, so a candidate that used
a pattern has the true score of the phrase tables alone (often unreachable).

Several tables are merged into one table (a rule kept once, with its highest
probability) for the systems that take one table, as Moses would use several
tables as alternative decoding paths; SPG gets the list. Sentences are
processed in parallel (fork, ``processes`` workers) when there are enough of
them for the start-up cost to pay; the output is the same either way.

Provenance: every candidate's ``params`` is the options' JSON plus ``"inputs"``
(every file by path, sha256 and size) and the code's ``"version"`` and
``"commit"`` (:mod:`core.code_identity`); what varies per sentence is on the
candidate itself: its ``source`` (and ``reference``) tokens and, for MCPG, its
``search`` (eta per decision, the decisions, the episodes, whether the time cap cut it).
Wall time is kept off the JSON (``Candidate.seconds``) so that equal runs write equal bytes.
"""

from __future__ import annotations

import os
import time
from functools import partial
from typing import Callable, Iterator, Protocol, Sequence

from parastudio.core.code_identity import code_identity
from parastudio.core.engine.candidates.candidate import Candidate
from parastudio.core.engine.candidates.collection_pauses import fewer_collections
from parastudio.core.engine.candidates.generation_options import (
    OPTIONS_OF_SYSTEM,
    BeamRunOptions,
    MCPGRunOptions,
    RunOptions,
    SPGRunOptions,
)
from parastudio.core.engine.candidates.generation_resources import GenerationResources
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder
from parastudio.core.engine.decoders.mcpg import generate_mcpg
from parastudio.core.engine.decoders.search_graph import search_graph_lines
from parastudio.core.engine.decoders.spg import generate_spg
from parastudio.core.engine.model.derivation import LazySegments, Segment
from parastudio.core.engine.model.scoring import DEFAULT_WEIGHTS, ScoreWeights
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from parastudio.core.errors import OptionsError
from parastudio.core.progress import Progress, no_progress
from parastudio.core.worker_processes import ordered_map

# Below this many sentences a worker pool costs more than it saves.
PARALLEL_MIN_SENTENCES = 8

Output = tuple[tuple[str, ...], float, tuple[Segment, ...]]  # tokens, the system's own score, derivation


class Generator(Protocol):
    """One system: tokenized source (and reference) in, ranked outputs out."""

    weights: ScoreWeights  # the weights its true scores are computed with

    def outputs(self, source: tuple[str, ...], reference: tuple[str, ...] | None) -> list[Output]: ...

    def search_record(self) -> dict | None:
        """What the last search did, recorded on each of its candidates (None: nothing worth recording)."""


class BeamGenerator:
    options_class = BeamRunOptions

    def __init__(self, options: BeamRunOptions, table: ParaphraseTable, resources: GenerationResources):
        self.weights = options.weights
        self.nbest = options.nbest
        self.exclude_source = options.exclude_source
        self.decoder = BeamDecoder(table, resources.lm, options.decoder)
        self.last_result = None

    def outputs(self, source, reference=None) -> list[Output]:
        self.last_result = self.decoder.decode(source)
        wanted = self.nbest + 1 if self.exclude_source else self.nbest
        # Segments built when read: a Moses n-best file or a plain list never reads them.
        found = [(e.tokens, e.score, LazySegments(partial(getattr, e, "segments")))
                 for e in self.last_result.nbest(wanted)]
        if self.exclude_source:
            found = [output for output in found if output[0] != source][: self.nbest]
        return found

    def search_record(self) -> None:
        return None


class MCPGGenerator:
    options_class = MCPGRunOptions

    def __init__(self, options: MCPGRunOptions, table: ParaphraseTable, resources: GenerationResources):
        self.options, self.table, self.lm = options, table, resources.lm
        self.weights = DEFAULT_WEIGHTS
        self.last_stats = None
        self.sentence_reward = None
        if options.reward == "predictor":  # resources.check_for made sure the predictor and the LM are there
            from parastudio.core.engine.model.judgment_model import PredictorReward

            self.sentence_reward = PredictorReward(resources.predictor, TrueScorer(table, resources.lm), resources.lm)

    def outputs(self, source, reference=None) -> list[Output]:
        from parastudio.core.engine.decoders.mcpg.search import MCPGStats

        options = self.options
        self.last_stats = MCPGStats()
        return generate_mcpg(source, self.table, self.lm, mode=options.mode, nbest=options.nbest,
                             time_budget=options.time_budget, max_episodes=options.max_episodes, seed=options.seed,
                             profile=options.search_options, episodes_per_step=options.episodes_per_step,
                             exploration=options.exploration, translator_reward=options.translator_reward,
                             stats=self.last_stats, core=options.core, sentence_reward=self.sentence_reward)

    def search_record(self) -> dict | None:
        return self.last_stats.provenance() if self.last_stats is not None else None


class SPGGenerator:
    options_class = SPGRunOptions

    def __init__(self, options: SPGRunOptions, table: ParaphraseTable, resources: GenerationResources):
        self.options, self.resources = options, resources
        self.weights = DEFAULT_WEIGHTS

    def outputs(self, source, reference=None) -> list[Output]:
        options = self.options
        if options.application == "similarity" and reference is None:
            raise OptionsError("spg-similarity needs a reference sentence for every input sentence (--reference FILE)")
        return generate_spg(source, [*self.resources.tables, *self.resources.pattern_tables], self.resources.lm,
                            application=options.application, reference=reference, nbest=options.nbest,
                            weights=options.weights, settings=options.decoder)

    def search_record(self) -> None:
        return None


# The one registry of systems: each generator and the options class it runs, which names its systems.
GENERATORS: dict[str, Callable[[RunOptions, ParaphraseTable, GenerationResources], Generator]] = {
    system: generator for generator in (BeamGenerator, MCPGGenerator, SPGGenerator)
    for system in generator.options_class.SYSTEMS}
SYSTEMS = tuple(GENERATORS)


def merged_table(tables: Sequence[ParaphraseTable]) -> ParaphraseTable:
    if not tables:
        raise ValueError("at least one paraphrase table is needed")
    if len(tables) == 1:
        return tables[0]
    best: dict[tuple, Rule] = {}
    for table in tables:
        for rule in table:
            key = (rule.source, rule.target)
            if key not in best or rule.prob > best[key].prob:
                best[key] = rule
    merged = ParaphraseTable(best.values(), name="+".join(t.name for t in tables))
    merged.sort()
    return merged


class _SentenceGenerator:
    """A registered generator plus the true scorer and provenance: one sentence in, candidates out."""

    def __init__(self, options: RunOptions, resources: GenerationResources, *, search_graph: bool = False,
                 search_graph_extended: bool = False):
        if not isinstance(options, tuple(OPTIONS_OF_SYSTEM.values())):
            raise OptionsError(f"options must be one of the run options objects (core.engine.candidates.generation_options), "
                               f"not {type(options).__name__}")
        if search_graph and options.system != "beam":
            raise OptionsError("a search graph is the beam decoder's (--search-graph needs --system beam)")
        resources.check_for(options)
        self.options = options
        self.system = options.system
        self.search_graph = search_graph
        self.search_graph_extended = search_graph_extended
        table = merged_table(resources.tables)
        self.generator = GENERATORS[options.system](options, table, resources)
        # Sentences come one at a time and their candidates are distinct: a source's rule index and the LM's
        # sentence cache would only hold memory (80 -> 59 MiB on 100 verses, issue 40).
        self.scorer = TrueScorer(table, resources.lm, self.generator.weights, match_cache_size=1, lm_cache=False)
        self.params = candidate_params(options, resources)

    def candidates(self, sentence_id: int, source: Sequence[str]) -> list[Candidate]:
        return self.batch(sentence_id, source)[0]

    def batch(self, sentence_id: int, source: Sequence[str], reference: Sequence[str] | None = None
              ) -> tuple[list[Candidate], list[str] | None]:
        """The candidates of one sentence and, for the beam with ``search_graph``, its graph lines."""
        source = tuple(source)
        reference = tuple(reference) if reference is not None else None
        started = time.perf_counter()
        produced = self.generator.outputs(source, reference)
        graph = (list(search_graph_lines(sentence_id, self.generator.last_result, extended=self.search_graph_extended))
                 if self.search_graph else None)
        elapsed = time.perf_counter() - started
        search = self.generator.search_record()
        candidates = []
        if self.options.exclude_source:  # the beam already asked for one more; MCPG never outputs it
            produced = [output for output in produced if tuple(output[0]) != source]
        for rank, (tokens, model_score, segments) in enumerate(produced, start=1):
            truth = self.scorer.score(source, tokens)
            candidates.append(Candidate(
                sentence_id=sentence_id,
                system=self.system,
                rank=rank,
                text=" ".join(tokens),
                model_score=float(model_score),
                true_score=truth.log10_score,
                derivation=segments if isinstance(segments, LazySegments) else tuple(segments),
                params=dict(self.params),
                source=" ".join(source),
                reference=" ".join(reference) if reference is not None else None,
                search=search,
                seconds=elapsed,
            ))
        return candidates, graph


# One sentence in, candidates out: what a Spark executor keeps loaded (core/spark_generation.py).
SentenceGenerator = _SentenceGenerator


def candidate_params(options: RunOptions, resources: GenerationResources) -> dict:
    """Every candidate's ``params``: the options, the inputs by sha256, the code by version and commit."""
    return {**options.to_json(), "inputs": resources.inputs(), **code_identity()}


# The worker's generator, inherited through fork (KenLM models do not pickle).
_WORKER: _SentenceGenerator | None = None


def _work(item: tuple[int, tuple[str, ...], tuple[str, ...] | None]) -> tuple[int, list[Candidate], list[str] | None]:
    assert _WORKER is not None
    return (item[0], *_WORKER.batch(*item))


def generate(
    options: RunOptions,
    sentences: Sequence[Sequence[str]],
    resources: GenerationResources,
    *,
    progress: Progress = no_progress,
    processes: int | None = None,
    sentence_ids: Sequence[int] | None = None,
    references: Sequence[Sequence[str]] | None = None,
) -> Iterator[Candidate]:
    """Candidates for every sentence (token lists), in sentence order then rank.

    ``progress`` is told after each sentence. ``processes`` defaults to
    min(2, CPU count); 1 disables the worker pool. ``references`` (one per
    sentence) are spg-similarity's. Options and resources the system cannot
    use raise :class:`~core.errors.OptionsError`.
    """
    for _, candidates, _ in generate_batches(options, sentences, resources, progress=progress, processes=processes,
                                             sentence_ids=sentence_ids, references=references):
        yield from candidates


def generate_batches(
    options: RunOptions,
    sentences: Sequence[Sequence[str]],
    resources: GenerationResources,
    *,
    progress: Progress = no_progress,
    processes: int | None = None,
    sentence_ids: Sequence[int] | None = None,
    references: Sequence[Sequence[str]] | None = None,
    search_graph: bool = False,
    search_graph_extended: bool = False,
) -> Iterator[tuple[int, list[Candidate], list[str] | None]]:
    """Per sentence: its id, its candidates and (beam with ``search_graph``) its Moses search-graph lines."""
    global _WORKER
    generator = _SentenceGenerator(options, resources, search_graph=search_graph,
                                   search_graph_extended=search_graph_extended)
    ids = list(sentence_ids) if sentence_ids is not None else list(range(len(sentences)))
    if references is not None and len(references) != len(sentences):
        raise OptionsError(f"{len(references)} references for {len(sentences)} sentences")
    if references is None and options.system == "spg-similarity":
        raise OptionsError("spg-similarity needs a reference sentence for every input sentence (--reference FILE)")
    refs = [tuple(r) for r in references] if references is not None else [None] * len(sentences)
    items = [(i, tuple(s), r) for i, s, r in zip(ids, sentences, refs)]
    total = len(items)
    if processes is not None and (isinstance(processes, bool) or not isinstance(processes, int) or processes < 1):
        raise OptionsError(f"processes (--processes) must be a whole number of at least 1, not {processes!r}")
    workers = processes if processes is not None else min(2, os.cpu_count() or 1)
    use_pool = workers > 1 and total >= PARALLEL_MIN_SENTENCES
    if use_pool:
        import multiprocessing  # here: a run in one process never needs it (start-up time)

        use_pool = "fork" in multiprocessing.get_all_start_methods()
    if not use_pool:
        with fewer_collections():
            for done, item in enumerate(items, start=1):
                yield (item[0], *generator.batch(*item))
                progress(done, total, f"sentence {done} of {total}")
        return
    _WORKER = generator  # forked: inherited by the workers
    try:
        # Not multiprocessing.Pool: its terminate can wait for ever on a queue lock after Ctrl+C (issue 39).
        with fewer_collections():
            for done, produced in enumerate(ordered_map(_work, items, workers), start=1):
                yield produced
                progress(done, total, f"sentence {done} of {total}")
    finally:
        _WORKER = None
