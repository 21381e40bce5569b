"""Generate candidate paraphrases with any system: the one entry point for the CLI and the GUI.

``generate`` yields :class:`core.engine.candidate.Candidate` objects, each with the
system's own log10 score of its best path and the exact log10 true score
(seed 000, :mod:`core.engine.truescore`) under the same table, LM and weights.

Systems:

* ``beam``: the monotone stack decoder of :mod:`core.engine.beam_decoder` (our MOSES).
* ``mcpg-true`` / ``mcpg-translator``: MCPG (seed 003, seed 000 §4) in
  ``core.engine.mcpg.generate_mcpg(source, table, lm, mode="true-score"|"translator",
  nbest=, time_budget=, seed=)``.
* ``spg-compression`` / ``spg-simplification`` / ``spg-similarity``: SPG
  (seed 004) in ``core.engine.spg.generate_spg(source, tables, lm, application=,
  nbest=, time_budget=, seed=)``.

Several ``--table`` arguments are merged into one table (a rule kept once,
with its highest probability) for the systems that take one table, as Moses
would use several tables as alternative decoding paths; SPG gets the list.
Sentences are processed in parallel (fork, ``processes`` workers) when there
are enough of them for the start-up cost to pay.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import time
from typing import Callable, Iterator, Sequence

from core import __version__
from core.engine.beam_decoder import BeamDecoder, DecoderSettings
from core.engine.candidate import Candidate
from core.engine.lm import LanguageModel
from core.engine.search_graph import search_graph_lines
from core.engine.paraphrase_table import ParaphraseTable
from core.engine.rules import Rule
from core.engine.scoring import DEFAULT_WEIGHTS
from core.engine.truescore import TrueScorer

SYSTEMS = (
    "beam",
    "mcpg-true",
    "mcpg-translator",
    "spg-compression",
    "spg-simplification",
    "spg-similarity",
)
_MCPG_MODES = {"mcpg-true": "true-score", "mcpg-translator": "translator"}
# Below this many sentences a worker pool costs more than it saves.
PARALLEL_MIN_SENTENCES = 8

ProgressCallback = Callable[[int, int], None]


class GeneratorUnavailable(RuntimeError):
    """A system whose module is not installed in this build."""


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


def _load_system(module_name: str, function_name: str, system: str):
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            raise GeneratorUnavailable(
                f"system {system!r} needs {module_name} ({function_name}), which is not in this build yet"
            ) from None
        raise
    function = getattr(module, function_name, None)
    if function is None:
        raise GeneratorUnavailable(f"system {system!r}: {module_name} has no {function_name}()")
    return function


class _SentenceGenerator:
    """Everything needed to turn one tokenized sentence into candidates (picklable state kept small)."""

    def __init__(self, system: str, tables: Sequence[ParaphraseTable], lm: LanguageModel | None, *, nbest: int,
                 time_budget: float | None, seed: int, stack_size: int, settings: DecoderSettings | None,
                 search_graph: bool = False):
        if system not in SYSTEMS:
            raise ValueError(f"unknown system {system!r}; expected one of {', '.join(SYSTEMS)}")
        if nbest < 1:
            raise ValueError("nbest must be at least 1")
        self.system = system
        self.search_graph = search_graph
        self.tables = list(tables)
        self.table = merged_table(self.tables)
        self.lm = lm
        self.nbest = nbest
        self.time_budget = time_budget
        self.seed = seed
        self.settings = settings or DecoderSettings(stack_size=stack_size)
        self.scorer = TrueScorer(self.table, lm, DEFAULT_WEIGHTS if system != "beam" else self.settings.weights)
        self.params = {
            "system": system,
            "tables": [getattr(t, "source_path", t.name) for t in self.tables],
            "lm": str(lm.path) if lm is not None else None,
            "nbest": nbest,
            "seed": seed,
            "time_budget": time_budget,
            "version": __version__,
        }
        if system == "beam":
            self.params["decoder"] = self.settings.to_json()
            self.decoder = BeamDecoder(self.table, lm, self.settings)
        elif system.startswith("mcpg"):
            self.function = _load_system("core.engine.mcpg", "generate_mcpg", system)
            self.params["mcpg_profile"] = "tuned"  # generate_mcpg's default (core.engine.mcpg.TUNED)
        else:
            self.function = _load_system("core.engine.spg", "generate_spg", system)

    def outputs(self, source: tuple[str, ...], reference: tuple[str, ...] | None = None
                ) -> list[tuple[tuple[str, ...], float, tuple]]:
        if self.system == "beam":
            return [(e.tokens, e.score, e.segments) for e in self.decoder.decode(source).nbest(self.nbest)]
        if self.system.startswith("mcpg"):
            return self.function(source, self.table, self.lm, mode=_MCPG_MODES[self.system], nbest=self.nbest,
                                 time_budget=self.time_budget, seed=self.seed)
        application = self.system.split("-", 1)[1]
        if application == "similarity" and reference is None:
            raise ValueError("spg-similarity needs a reference sentence for every input sentence (--reference FILE)")
        return self.function(source, self.tables, self.lm, application=application, reference=reference,
                             nbest=self.nbest, time_budget=self.time_budget, seed=self.seed)

    def candidates(self, sentence_id: int, source: Sequence[str]) -> list[Candidate]:
        return self.batch(sentence_id, source)[0]

    def batch(self, sentence_id: int, source: Sequence[str], reference: Sequence[str] | None = None
              ) -> tuple[list[Candidate], list[str] | None]:
        """The candidates of one sentence and, for the beam with ``search_graph``, its graph lines."""
        source = tuple(source)
        reference = tuple(reference) if reference is not None else None
        started = time.perf_counter()
        graph = None
        if self.system == "beam" and self.search_graph:
            result = self.decoder.decode(source)
            produced = [(e.tokens, e.score, e.segments) for e in result.nbest(self.nbest)]
            graph = list(search_graph_lines(sentence_id, result))
        else:
            produced = self.outputs(source, reference)
        elapsed = time.perf_counter() - started
        candidates = []
        for rank, (tokens, model_score, segments) in enumerate(produced, start=1):
            truth = self.scorer.score(source, tokens)
            candidates.append(Candidate(
                sentence_id=sentence_id,
                system=self.system,
                rank=rank,
                text=" ".join(tokens),
                model_score=float(model_score),
                true_score=truth.log10_score,
                derivation=tuple(segments),
                params={**self.params, "seconds": round(elapsed, 4)},
            ))
        return candidates, graph


# The worker's generator, inherited through fork (KenLM models do not pickle).
_WORKER: _SentenceGenerator | None = None


def _work(item: tuple[int, tuple[str, ...], tuple[str, ...] | None]) -> tuple[int, list[Candidate], list[str] | None]:
    assert _WORKER is not None
    return (item[0], *_WORKER.batch(*item))


def generate(
    system: str,
    sentences: Sequence[Sequence[str]],
    tables: Sequence[ParaphraseTable],
    lm: LanguageModel | None,
    *,
    nbest: int = 1,
    time_budget: float | None = None,
    seed: int = 0,
    stack_size: int = 200,
    progress: ProgressCallback | None = None,
    processes: int | None = None,
    settings: DecoderSettings | None = None,
    sentence_ids: Sequence[int] | None = None,
    references: Sequence[Sequence[str]] | None = None,
) -> Iterator[Candidate]:
    """Candidates for every sentence (token lists), in sentence order then rank.

    ``progress(done, total)`` is called after each sentence. ``processes``
    defaults to min(2, CPU count); 1 disables the worker pool. ``settings``
    overrides the beam decoder's settings (``stack_size`` is then ignored).
    """
    for _, candidates, _ in generate_batches(
        system, sentences, tables, lm, nbest=nbest, time_budget=time_budget, seed=seed, stack_size=stack_size,
        progress=progress, processes=processes, settings=settings, sentence_ids=sentence_ids, references=references,
    ):
        yield from candidates


def generate_batches(
    system: str,
    sentences: Sequence[Sequence[str]],
    tables: Sequence[ParaphraseTable],
    lm: LanguageModel | None,
    *,
    nbest: int = 1,
    time_budget: float | None = None,
    seed: int = 0,
    stack_size: int = 200,
    progress: ProgressCallback | None = None,
    processes: int | None = None,
    settings: DecoderSettings | None = None,
    sentence_ids: Sequence[int] | None = None,
    search_graph: bool = False,
    references: Sequence[Sequence[str]] | None = None,
) -> Iterator[tuple[int, list[Candidate], list[str] | None]]:
    """Per sentence: its id, its candidates and (beam with ``search_graph``) its Moses search-graph lines."""
    global _WORKER
    generator = _SentenceGenerator(system, tables, lm, nbest=nbest, time_budget=time_budget, seed=seed,
                                   stack_size=stack_size, settings=settings, search_graph=search_graph)
    ids = list(sentence_ids) if sentence_ids is not None else list(range(len(sentences)))
    if references is not None and len(references) != len(sentences):
        raise ValueError(f"{len(references)} references for {len(sentences)} sentences")
    refs = [tuple(r) for r in references] if references is not None else [None] * len(sentences)
    items = [(i, tuple(s), r) for i, s, r in zip(ids, sentences, refs)]
    total = len(items)
    workers = processes if processes is not None else min(2, os.cpu_count() or 1)
    use_pool = workers > 1 and total >= PARALLEL_MIN_SENTENCES and "fork" in multiprocessing.get_all_start_methods()
    if not use_pool:
        for done, item in enumerate(items, start=1):
            yield (item[0], *generator.batch(*item))
            if progress:
                progress(done, total)
        return
    _WORKER = generator
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for done, produced in enumerate(pool.imap(_work, items, chunksize=1), start=1):
                yield produced
                if progress:
                    progress(done, total)
    finally:
        _WORKER = None
