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

SPG also takes pattern tables (``pattern_tables``, seed 004's PT-4:
:class:`core.engine.patterns.pattern_table.PatternTable`); they are matched on each
parsed input sentence and are not part of the merged table, so a candidate that used
a pattern has the true score of the phrase tables alone (often unreachable).

Several ``--table`` arguments are merged into one table (a rule kept once,
with its highest probability) for the systems that take one table, as Moses
would use several tables as alternative decoding paths; SPG gets the list.
Sentences are processed in parallel (fork, ``processes`` workers) when there
are enough of them for the start-up cost to pay.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Protocol, Sequence

from core import __version__
from core.engine.beam_decoder import BeamDecoder, DecoderSettings
from core.engine.candidate import Candidate
from core.engine.derivation import Segment
from core.engine.lm import LanguageModel
from core.engine.mcpg import (
    DEFAULT_EXPLORATION,
    PROFILES,
    MCPGOptions,
    generate_mcpg,
    resolve_profile,
)
from core.engine.paraphrase_table import ParaphraseTable
from core.engine.rules import Rule
from core.engine.scoring import DEFAULT_WEIGHTS, ScoreWeights
from core.engine.search_graph import search_graph_lines
from core.engine.spg import SPGWeights, generate_spg
from core.engine.truescore import TrueScorer
from core.progress import Progress, no_progress

# Below this many sentences a worker pool costs more than it saves.
PARALLEL_MIN_SENTENCES = 8

Output = tuple[tuple[str, ...], float, tuple[Segment, ...]]  # tokens, the system's own score, derivation


@dataclass(frozen=True)
class GenerationSetup:
    """What every generator is built from: the tables, the LM and the run's options."""

    tables: tuple[ParaphraseTable, ...]
    table: ParaphraseTable  # the tables merged, for the systems that take one
    lm: LanguageModel | None
    nbest: int
    time_budget: float | None
    seed: int
    decoder: DecoderSettings
    mcpg: MCPGOptions
    mcpg_episodes_per_step: int | None = None
    mcpg_exploration: float = DEFAULT_EXPLORATION
    mcpg_translator_reward: str = "channel"
    spg: SPGWeights = field(default_factory=SPGWeights)
    pattern_tables: tuple = ()  # SPG only: PatternTable objects, one more table each
    exclude_source: bool = False  # never output the unchanged source (the beam asks for one more path)


class Generator(Protocol):
    """One system: tokenized source (and reference) in, ranked outputs out."""

    weights: ScoreWeights  # the weights its true scores are computed with

    def outputs(self, source: tuple[str, ...], reference: tuple[str, ...] | None) -> list[Output]: ...

    def params(self) -> dict: ...


class BeamGenerator:
    def __init__(self, setup: GenerationSetup):
        self.settings = setup.decoder
        self.weights = setup.decoder.weights
        self.nbest = setup.nbest
        self.exclude_source = setup.exclude_source
        self.decoder = BeamDecoder(setup.table, setup.lm, setup.decoder)
        self.last_result = None

    def outputs(self, source, reference=None) -> list[Output]:
        self.last_result = self.decoder.decode(source)
        wanted = self.nbest + 1 if self.exclude_source else self.nbest
        found = [(e.tokens, e.score, e.segments) for e in self.last_result.nbest(wanted)]
        if self.exclude_source:
            found = [output for output in found if output[0] != source][: self.nbest]
        return found

    def params(self) -> dict:
        return {"decoder": self.settings.to_json(), "exclude_source": self.exclude_source}


class MCPGGenerator:
    def __init__(self, setup: GenerationSetup, mode: str):
        self.setup, self.mode = setup, mode
        self.weights = DEFAULT_WEIGHTS

    def outputs(self, source, reference=None) -> list[Output]:
        setup = self.setup
        return generate_mcpg(source, setup.table, setup.lm, mode=self.mode, nbest=setup.nbest,
                             time_budget=setup.time_budget, seed=setup.seed, profile=setup.mcpg,
                             episodes_per_step=setup.mcpg_episodes_per_step, exploration=setup.mcpg_exploration,
                             translator_reward=setup.mcpg_translator_reward)

    def params(self) -> dict:
        setup = self.setup
        profile = next((name for name, options in PROFILES.items() if options == setup.mcpg), "custom")
        episodes = setup.mcpg_episodes_per_step or setup.mcpg.episodes_per_step
        if setup.mcpg_episodes_per_step is None and setup.mcpg.pace_to_budget and setup.time_budget is not None:
            episodes = "paced to the time budget"
        return {"mcpg_mode": self.mode, "mcpg_profile": profile, "mcpg_episodes_per_step": episodes,
                "mcpg_exploration": setup.mcpg_exploration, "mcpg_translator_reward": setup.mcpg_translator_reward,
                "mcpg_options": setup.mcpg.to_json()}


class SPGGenerator:
    def __init__(self, setup: GenerationSetup, application: str):
        self.setup, self.application = setup, application
        self.weights = DEFAULT_WEIGHTS

    def outputs(self, source, reference=None) -> list[Output]:
        if self.application == "similarity" and reference is None:
            raise ValueError("spg-similarity needs a reference sentence for every input sentence (--reference FILE)")
        setup = self.setup
        return generate_spg(source, [*setup.tables, *setup.pattern_tables], setup.lm, application=self.application, reference=reference,
                            nbest=setup.nbest, weights=setup.spg, settings=setup.decoder)

    def params(self) -> dict:
        return {"spg_application": self.application, "spg_weights": self.setup.spg.to_json()}


GENERATORS: dict[str, Callable[[GenerationSetup], Generator]] = {
    "beam": BeamGenerator,
    "mcpg-true": functools.partial(MCPGGenerator, mode="true-score"),
    "mcpg-translator": functools.partial(MCPGGenerator, mode="translator"),
    "spg-compression": functools.partial(SPGGenerator, application="compression"),
    "spg-simplification": functools.partial(SPGGenerator, application="simplification"),
    "spg-similarity": functools.partial(SPGGenerator, application="similarity"),
}
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

    def __init__(self, system: str, tables: Sequence[ParaphraseTable], lm: LanguageModel | None, *, nbest: int,
                 time_budget: float | None, seed: int, stack_size: int, settings: DecoderSettings | None,
                 search_graph: bool = False, mcpg: MCPGOptions | str = "tuned",
                 mcpg_episodes_per_step: int | None = None, mcpg_exploration: float = DEFAULT_EXPLORATION,
                 mcpg_translator_reward: str = "channel", spg: SPGWeights | None = None,
                 search_graph_extended: bool = False, exclude_source: bool = False, pattern_tables: Sequence = (),
                 weights_source: dict | None = None):
        if system not in GENERATORS:
            raise ValueError(f"unknown system {system!r}; expected one of {', '.join(SYSTEMS)}")
        if nbest < 1:
            raise ValueError("nbest must be at least 1")
        if pattern_tables and not system.startswith("spg"):
            raise ValueError(f"pattern tables are SPG tables (seed 004's PT-4); {system} cannot use them")
        self.system = system
        self.search_graph = search_graph and system == "beam"
        self.search_graph_extended = search_graph_extended
        self.setup = GenerationSetup(
            tables=tuple(tables), table=merged_table(tables), lm=lm, nbest=nbest, time_budget=time_budget,
            seed=seed, decoder=settings or DecoderSettings(stack_size=stack_size), mcpg=resolve_profile(mcpg),
            mcpg_episodes_per_step=mcpg_episodes_per_step, mcpg_exploration=mcpg_exploration,
            mcpg_translator_reward=mcpg_translator_reward, spg=spg or SPGWeights(), exclude_source=exclude_source,
            pattern_tables=tuple(pattern_tables))
        self.generator = GENERATORS[system](self.setup)
        self.scorer = TrueScorer(self.setup.table, lm, self.generator.weights)
        self.params = {
            "system": system,
            "tables": [getattr(t, "source_path", t.name) for t in tables],
            **({"pattern_tables": [{"path": getattr(t, "source_path", None) or t.name, "score": t.score_column}
                                   for t in pattern_tables]} if pattern_tables else {}),
            "lm": str(lm.path) if lm is not None else None,
            "nbest": nbest,
            "seed": seed,
            "time_budget": time_budget,
            "version": __version__,
            **self.generator.params(),
        }
        if weights_source is not None:  # tuned weights (parastudio generate --weights): which file, which run
            self.params["weights_file"] = weights_source

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
        candidates = []
        if self.setup.exclude_source:  # the beam already asked for one more; MCPG never outputs it
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
    progress: Progress = no_progress,
    processes: int | None = None,
    settings: DecoderSettings | None = None,
    sentence_ids: Sequence[int] | None = None,
    references: Sequence[Sequence[str]] | None = None,
    **system_options,
) -> Iterator[Candidate]:
    """Candidates for every sentence (token lists), in sentence order then rank.

    ``progress`` is told after each sentence. ``processes`` defaults to
    min(2, CPU count); 1 disables the worker pool. ``settings`` overrides the
    beam decoder's settings (``stack_size`` is then ignored).
    ``system_options`` go to the system: ``mcpg`` (a profile name or
    :class:`~core.engine.mcpg.MCPGOptions`), ``mcpg_episodes_per_step``,
    ``mcpg_exploration``, ``mcpg_translator_reward``, ``spg`` (SPGWeights), ``pattern_tables`` (SPG),
    ``weights_source`` (the provenance of tuned weights, recorded in every candidate's params).
    """
    for _, candidates, _ in generate_batches(
        system, sentences, tables, lm, nbest=nbest, time_budget=time_budget, seed=seed, stack_size=stack_size,
        progress=progress, processes=processes, settings=settings, sentence_ids=sentence_ids, references=references,
        **system_options,
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
    progress: Progress = no_progress,
    processes: int | None = None,
    settings: DecoderSettings | None = None,
    sentence_ids: Sequence[int] | None = None,
    search_graph: bool = False,
    references: Sequence[Sequence[str]] | None = None,
    **system_options,
) -> Iterator[tuple[int, list[Candidate], list[str] | None]]:
    """Per sentence: its id, its candidates and (beam with ``search_graph``) its Moses search-graph lines."""
    global _WORKER
    generator = _SentenceGenerator(system, tables, lm, nbest=nbest, time_budget=time_budget, seed=seed,
                                   stack_size=stack_size, settings=settings, search_graph=search_graph,
                                   **system_options)
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
            progress(done, total, f"sentence {done} of {total}")
        return
    _WORKER = generator
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for done, produced in enumerate(pool.imap(_work, items, chunksize=1), start=1):
                yield produced
                progress(done, total, f"sentence {done} of {total}")
    finally:
        _WORKER = None
