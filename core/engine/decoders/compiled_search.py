"""The beam decoder's search run by the compiled core (``core/engine/native/beam_core.cpp``).

:class:`~core.engine.decoders.beam_decoder.BeamDecoder` collects the translation options
in Python (:mod:`core.engine.model.translation_options`), then either searches in
Python or hands the options to the C++ core, which runs the same expansion
loop, recombination, pruning and k-best extraction operation for operation
and calls KenLM's C++ model directly. Both give the same lattice, scores and
n-best lists (``tests/test_beam_core.py``); the Python search stays as the
reference.

Each phrase's options are registered with the core once (an ``OptionStore``, as
Moses scores a table's options when it loads it); a sentence then passes only
its spans and their phrase ids. The C++ result keeps its hypotheses in C++; :class:`CompiledDecodeResult`
builds Python :class:`~core.engine.decoders.decoder_types.Hypothesis` objects only when a
caller asks for the lattice itself (search graphs), and for the edges of the
n-best paths it returns.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import os
import sys
from typing import Sequence

from parastudio.core.engine.decoders.decoder_types import DecodeResult, DecoderSettings, Hypothesis, NBestEntry
from parastudio.core.engine.lm.native_model import native_model
from parastudio.core.engine.model.table_options_native import BinaryOptions, RankedRules, usable
from parastudio.core.engine.model.translation_options import (
    OptionCache,
    PhraseOption,
    TranslationOption,
    TranslationOptions,
)
from parastudio.core.engine.tables.binary_table_rows import mapped_buckets

INTERFACE = 4  # the version of beam_core.cpp's Python interface and search this module speaks (its INTERFACE)

try:
    from parastudio.core.engine._search_cores import beam as _beam_core
except ImportError:  # not built (a source checkout without `pip install`): the Python search runs
    _beam_core = None


def available() -> bool:
    """Whether the compiled core is built, importable and as new as this module (an extension left from an
    older checkout is not used: the Python search runs until `pip install` rebuilds it)."""
    return _beam_core is not None and getattr(_beam_core, "INTERFACE", 1) == INTERFACE


def wanted() -> bool:
    """Whether ``core="auto"`` uses the compiled core (``PARASTUDIO_BEAM_CORE=python`` turns it off).

    An install without the core (no compiler, offline) runs the Python search and says so once."""
    if os.environ.get("PARASTUDIO_BEAM_CORE", "auto") == "python":
        return False
    if not available():
        _say_the_python_search_runs()
        return False
    return True


@functools.lru_cache(maxsize=1)
def _say_the_python_search_runs() -> None:
    why = "not built" if _beam_core is None else "older than this checkout"
    print(f"parastudio: note: the compiled search core is {why}; the Python search runs (same results, "
          "several times slower). Reinstall with a C++ compiler to build it (README, Set-up).", file=sys.stderr)


class _Vocabulary:
    """Word -> (token id, KenLM index) for one LM, grown as words arrive; token ids tell strings apart."""

    def __init__(self, model):
        self.model = model
        self.token: dict[str, int] = {}
        self.words: list[str] = []  # token id -> word
        self.lm_index: list[int] = []

    def ids(self, words: Sequence[str]) -> tuple[list[int], list[int]]:
        token = self.token
        new = [w for w in words if w not in token]
        if new:
            fresh = list(dict.fromkeys(new))
            indices = self.model.indices(fresh) if self.model is not None else [0] * len(fresh)
            for word, index in zip(fresh, indices):
                token[word] = len(self.lm_index)
                self.words.append(word)
                self.lm_index.append(index)
        tokens = [token[w] for w in words]
        return tokens, [self.lm_index[t] for t in tokens]


class _Phrase:
    """The options of one phrase (or one word's slot), registered with the core's OptionStore under ``id``."""

    __slots__ = ("options", "count", "id")

    def __init__(self, options: Sequence[PhraseOption], vocabulary: _Vocabulary, store):
        if isinstance(options, RankedRules) and options.phrase_id >= 0:  # the core registered it when ranking
            self.options, self.count, self.id = options, len(options), options.phrase_id
            return
        if isinstance(options, RankedRules):  # its options are built when read: pass their columns
            self.options = options
            self.count = len(options)
            tokens, words = vocabulary.ids([w for target in options.targets for w in target])
            self.id = store.add(options.rule_scores, options.estimates, [len(t) for t in options.targets], words,
                                tokens)
            return
        self.options = list(options)
        self.count = len(self.options)
        tokens, words = vocabulary.ids([w for o in self.options for w in o.target])
        self.id = store.add([o.rule_score for o in self.options], [o.estimate for o in self.options],
                            [len(o.target) for o in self.options], words, tokens)


class CompiledSearch:
    """Runs one decoder's searches in C++ over the options of its :class:`OptionCache`."""

    def __init__(self, cache: OptionCache, settings: DecoderSettings):
        if _beam_core is None:
            raise RuntimeError("the compiled beam core is not built: pip install the package")
        if not available():
            raise RuntimeError("the compiled beam core was built from older sources: pip install the package again")
        self.cache = cache
        self.model = native_model(cache.lm) if cache.lm is not None else None
        self.settings = settings
        # The core's own vocabulary when it has one (a binary table's targets then stay bytes until written).
        native_vocabulary = getattr(_beam_core, "Vocabulary", None)
        self.vocabulary = native_vocabulary(self.model) if native_vocabulary is not None else _Vocabulary(self.model)
        self.store = _beam_core.OptionStore()
        self._slots: dict[str, _Phrase] = {}
        self._phrases: dict[tuple[str, ...], _Phrase] = {}
        self._every_phrase = False  # after prepare(): a span not in _phrases has no rules
        buckets = mapped_buckets(cache.table)
        # A mapped binary table's phrases are ranked in C++ (the same options as cache.ranked, read from the arrays).
        self._binary = BinaryOptions(cache, buckets, self.model) if buckets is not None and usable(cache) else None
        self._batched = (self._binary is not None and not isinstance(self.vocabulary, _Vocabulary)
                         and hasattr(_beam_core, "rank_rules_many"))

    @property
    def ranks_in_core(self) -> bool:
        """Whether phrases are ranked and registered in C++ straight from a mapped binary table."""
        return self._batched

    def prepare(self) -> None:
        """Pack every phrase of the table (see BeamDecoder.prepare): a span then needs no table lookup."""
        phrases = [phrase for phrase in self.cache.table.sources() if phrase not in self._phrases]
        if self._batched:  # all at once in C++, as a sentence's new phrases are (the same options)
            for phrase, ranked in zip(phrases, self._binary.ranked_many(phrases, self.store, self.vocabulary)):
                if ranked is not None:
                    self._phrases[phrase] = _Phrase(ranked, self.vocabulary, self.store)
            if self.cache.identities:  # each word's slot too, as _pieces would make it at the word's first sentence
                for phrase in phrases:
                    if len(phrase) == 1 and phrase[0] not in self._slots:
                        self._slots[phrase[0]] = _Phrase([self._binary.slot(phrase[0])], self.vocabulary, self.store)
        else:
            for phrase in phrases:
                self._phrases[phrase] = _Phrase(self.cache.ranked(phrase, self.cache.table.rules_for(phrase)),
                                                self.vocabulary, self.store)
        self._every_phrase = True

    def _pieces(self, source: tuple[str, ...]) -> list[tuple[int, int, _Phrase]]:
        """``(start, end, options)`` in the order of TranslationOptions.by_start: by start, the slot, then by end."""
        cache, table = self.cache, self.cache.table
        longest = table.max_source_length
        n = len(source)
        pieces = []
        batched = self._batched and not self._every_phrase
        if batched:  # the sentence's new phrases found, ranked and registered at once
            new = list(dict.fromkeys(source[start:end] for start in range(n)
                                     for end in range(start + 1, min(n, start + longest) + 1)
                                     if source[start:end] not in self._phrases))
            for phrase, ranked in zip(new, self._binary.ranked_many(new, self.store, self.vocabulary)):
                if ranked is not None:
                    self._phrases[phrase] = _Phrase(ranked, self.vocabulary, self.store)
        for start in range(n):
            if cache.identities:
                word = source[start]
                known = self._slots.get(word)
                if known is None:
                    slot = self._binary.slot(word) if self._binary is not None else cache.slot(word)
                    known = self._slots[word] = _Phrase([slot], self.vocabulary, self.store)
                pieces.append((start, start + 1, known))
            for end in range(start + 1, min(n, start + longest) + 1):
                phrase = source[start:end]
                known = self._phrases.get(phrase)
                if known is None:
                    if self._every_phrase or batched:
                        continue
                    ranked = self._ranked(phrase)
                    if ranked is None:
                        continue
                    known = self._phrases[phrase] = _Phrase(ranked, self.vocabulary, self.store)
                if known.count:
                    pieces.append((start, end, known))
        return pieces

    def _ranked(self, phrase: tuple[str, ...]) -> list[PhraseOption] | None:
        """The options of ``phrase``, None if the table has no rule for it."""
        if self._binary is not None:
            if isinstance(self.vocabulary, _Vocabulary):
                return self._binary.ranked(phrase)
            return self._binary.ranked(phrase, self.store, self.vocabulary)
        rules = self.cache.table.rules_for(phrase)
        return self.cache.ranked(phrase, rules) if rules else None

    def decode(self, source: tuple[str, ...]) -> "CompiledDecodeResult":
        pieces = self._pieces(source)
        settings = self.settings
        width = math.log10(settings.beam_threshold) if settings.beam_threshold > 0 else -math.inf
        lattice = _beam_core.decode(self.model, self.store, len(source), [p[0] for p in pieces],
                                    [p[1] for p in pieces], [p[2].id for p in pieces], settings.stack_size, width,
                                    settings.weights.lm)
        return CompiledDecodeResult(source, lattice, pieces, settings, self.cache, self.vocabulary)


class _CompiledPaths:
    """:class:`~core.engine.decoders.kbest.KBestPaths`' interface over the C++ k-best."""

    def __init__(self, result: "CompiledDecodeResult"):
        self.result = result
        self.extractor = result.lattice.kbest()

    @property
    def entries(self) -> int:
        return self.extractor.entries

    def path(self, k: int) -> tuple[float, tuple[Hypothesis, ...]] | None:
        found = self.extractor.path(k)
        if found is None:
            return None
        score, edges = found
        return score, self.result.edge_hypotheses(edges)


class CompiledDecodeResult(DecodeResult):
    """A :class:`DecodeResult` whose lattice lives in C++ until a caller needs its hypotheses."""

    def __init__(self, source: tuple[str, ...], lattice, pieces: list[tuple[int, int, _Phrase]],
                 settings: DecoderSettings, cache: OptionCache, vocabulary: _Vocabulary):
        self.source = source
        self.vocabulary = vocabulary
        self.lattice = lattice
        self.pieces = pieces
        self.piece_offsets = [0, *itertools.accumulate(phrase.count for _, _, phrase in pieces)]
        self.cache = cache
        self._options: TranslationOptions | None = None
        self._flat: dict[int, TranslationOption] = {}
        self.settings = settings
        self.hypotheses_created = lattice.hypotheses_created
        self._future: list[list[float]] | None = None
        self._hypotheses: list[Hypothesis] | None = None
        self._stacks: list[list[Hypothesis]] | None = None
        self._light: dict[int, Hypothesis] = {}

    # -- what DecodeResult keeps as attributes, built on demand ----------------------------------
    @property
    def options(self) -> TranslationOptions:
        if self._options is None:
            by_start: list[list[TranslationOption]] = [[] for _ in self.source]
            for index in range(self.piece_offsets[-1]):
                option = self.flat_option(index)
                by_start[option.start].append(option)
            self._options = TranslationOptions(self.source, by_start)
        return self._options

    def flat_option(self, index: int) -> TranslationOption:
        """The ``index``-th option in the C++ core's order (TranslationOptions.all())."""
        option = self._flat.get(index)
        if option is None:
            piece = bisect.bisect_right(self.piece_offsets, index) - 1
            start, end, phrase = self.pieces[piece]
            option = self._flat[index] = phrase.options[index - self.piece_offsets[piece]].at(start, end)
        return option

    @property
    def future_costs(self) -> list[list[float]]:
        if self._future is None:
            self._future = [list(row) for row in self.lattice.future]
        return self._future

    @property
    def stacks(self) -> list[list[Hypothesis]]:
        if self._stacks is None:
            hypotheses = self._all_hypotheses()
            self._stacks = [[hypotheses[i] for i in stack] for stack in self.lattice.stacks]
        return self._stacks

    @property
    def root(self) -> Hypothesis:
        return self._all_hypotheses()[0]

    def _all_hypotheses(self) -> list[Hypothesis]:
        """Every stored hypothesis as a Python object, linked like the Python search links them."""
        if self._hypotheses is None:
            columns = self.lattice.columns()
            flat = self.flat_option
            hypotheses = [
                Hypothesis(id_, None, flat(option) if option >= 0 else None, covered, score, transition,
                           tuple(state), future)
                for id_, option, covered, score, transition, state, future in zip(
                    columns["id"], columns["option"], columns["covered"], columns["score"], columns["transition"],
                    columns["state"], columns["future"])
            ]
            for hypothesis, back, winner, arcs in zip(hypotheses, columns["back"], columns["winner"], columns["arcs"]):
                if back >= 0:
                    hypothesis.back = hypotheses[back]
                if winner >= 0:
                    hypothesis.winner = hypotheses[winner]
                if arcs:
                    hypothesis.arcs = [hypotheses[a] for a in arcs]
            self._hypotheses = hypotheses
        return self._hypotheses

    def graph_lines(self) -> tuple[list[tuple], list[int]]:
        """The connected search graph's lines, computed in C++ (``beam_search_graph.hh``): each line's fields up
        to its option (:data:`~core.engine.decoders.cat.decoded_graph.Row`'s first eight: ids, scores rounded as
        the graph file writes them, forward, fscore) and, apart, its option (a :meth:`flat_option` index, -1 for
        the root); the lines and numbers of :func:`~core.engine.decoders.search_graph.forward_scores` over
        :meth:`connected`, without an object per hypothesis."""
        return self.lattice.graph_lines()

    def edge_hypotheses(self, edges: Sequence[int]) -> tuple[Hypothesis, ...]:
        """The hypotheses of a path's edges; without the whole lattice, light objects with the edge's fields."""
        if self._hypotheses is not None:
            return tuple(self._hypotheses[e] for e in edges)
        out = []
        for edge in edges:
            hypothesis = self._light.get(edge)
            if hypothesis is None:
                id_, _, option, covered, score, transition, future = self.lattice.hypothesis(edge)
                hypothesis = self._light[edge] = Hypothesis(id_, None, self.flat_option(option), covered, score,
                                                            transition, None, future)
            out.append(hypothesis)
        return tuple(out)

    # -- outputs ------------------------------------------------------------------------------
    def best(self) -> Hypothesis | None:
        index = self.lattice.best()
        if index < 0:
            return None
        return self._all_hypotheses()[index] if self._hypotheses is not None else self.edge_hypotheses([index])[0]

    def paths(self) -> _CompiledPaths:
        return _CompiledPaths(self)

    def nbest(self, n: int, *, distinct: bool = True, paths=None) -> list[NBestEntry]:
        if paths is not None:  # a caller's own extractor: the generic loop over it
            return super().nbest(n, distinct=distinct, paths=paths)
        words = self.vocabulary.words
        return [NBestEntry(tuple([words[t] for t in tokens]), score, load_path=functools.partial(self.edge_hypotheses,
                                                                                                   edges))
                for score, edges, tokens in self.lattice.nbest(n, distinct, self.settings.nbest_factor)]
