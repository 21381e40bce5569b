"""The beam decoder's search run by the compiled core (``core/engine/native/beam_core.cpp``).

:class:`~core.engine.beam_decoder.BeamDecoder` collects the translation options
in Python (:mod:`core.engine.translation_options`), then either searches in
Python or hands the options to the C++ core, which runs the same expansion
loop, recombination, pruning and k-best extraction operation for operation
and calls KenLM's C++ model directly. Both give the same lattice, scores and
n-best lists (``tests/test_beam_core.py``); the Python search stays as the
reference.

The C++ result keeps its hypotheses in C++; :class:`CompiledDecodeResult`
builds Python :class:`~core.engine.beam_decoder.Hypothesis` objects only when a
caller asks for the lattice itself (search graphs), and for the edges of the
n-best paths it returns.
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from core.engine.beam_decoder import DecodeResult, DecoderSettings, Hypothesis, NBestEntry, read_path
from core.engine.lm import LanguageModel
from core.engine.translation_options import TranslationOption, TranslationOptions

try:
    from core.engine import _beam_core
except ImportError:  # not built (a source checkout without `pip install`): the Python search runs
    _beam_core = None


def available() -> bool:
    """Whether the compiled core is built and importable."""
    return _beam_core is not None


def wanted() -> bool:
    """Whether ``core="auto"`` uses the compiled core (``PARASTUDIO_BEAM_CORE=python`` turns it off)."""
    return available() and os.environ.get("PARASTUDIO_BEAM_CORE", "auto") != "python"


class _Vocabulary:
    """Word -> (token id, KenLM index) for one LM, grown as words arrive; token ids tell strings apart."""

    def __init__(self, model):
        self.model = model
        self.token: dict[str, int] = {}
        self.lm_index: list[int] = []

    def ids(self, words: Sequence[str]) -> tuple[list[int], list[int]]:
        token = self.token
        new = [w for w in words if w not in token]
        if new:
            fresh = list(dict.fromkeys(new))
            indices = self.model.indices(fresh) if self.model is not None else [0] * len(fresh)
            for word, index in zip(fresh, indices):
                token[word] = len(self.lm_index)
                self.lm_index.append(index)
        tokens = [token[w] for w in words]
        return tokens, [self.lm_index[t] for t in tokens]


_MODELS: dict[tuple[str, int, int], object] = {}


def native_model(lm: LanguageModel):
    """The C++ KenLM model of ``lm``'s file, opened once per process (keyed by path, size and mtime)."""
    stat = lm.path.stat()
    key = (str(lm.path.resolve()), stat.st_size, stat.st_mtime_ns)
    model = _MODELS.get(key)
    if model is None:
        model = _MODELS[key] = _beam_core.Model(str(lm.path))
    return model


class CompiledSearch:
    """Runs one decoder's searches in C++; ``lm`` None decodes with the table alone."""

    def __init__(self, lm: LanguageModel | None, settings: DecoderSettings):
        if _beam_core is None:
            raise RuntimeError("the compiled beam core is not built: pip install the package")
        self.model = native_model(lm) if lm is not None else None
        self.settings = settings
        self.vocabulary = _Vocabulary(self.model)

    def decode(self, source: tuple[str, ...], options: TranslationOptions) -> "CompiledDecodeResult":
        flat = list(options.all())
        count = len(flat)
        starts = np.fromiter((o.start for o in flat), dtype=np.int32, count=count)
        ends = np.fromiter((o.end for o in flat), dtype=np.int32, count=count)
        rule_scores = np.fromiter((o.rule_score for o in flat), dtype=np.float64, count=count)
        estimates = np.fromiter((o.estimate for o in flat), dtype=np.float64, count=count)
        lengths = np.fromiter((len(o.target) for o in flat), dtype=np.int32, count=count)
        offsets = np.zeros(count + 1, dtype=np.int32)
        np.cumsum(lengths, out=offsets[1:])
        tokens, words = self.vocabulary.ids([w for o in flat for w in o.target])
        settings = self.settings
        width = float(np.log10(settings.beam_threshold)) if settings.beam_threshold > 0 else -np.inf
        lattice = _beam_core.decode(self.model, len(source), starts, ends, rule_scores, estimates, offsets,
                                    np.asarray(words, dtype=np.uint32), np.asarray(tokens, dtype=np.int32),
                                    settings.stack_size, width, settings.weights.lm)
        return CompiledDecodeResult(source, lattice, options, flat, settings)


class _CompiledPaths:
    """:class:`~core.engine.kbest.KBestPaths`' interface over the C++ k-best."""

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

    def __init__(self, source: tuple[str, ...], lattice, options: TranslationOptions,
                 flat: list[TranslationOption], settings: DecoderSettings):
        self.source = source
        self.lattice = lattice
        self.options = options
        self.flat_options = flat
        self.settings = settings
        self.hypotheses_created = lattice.hypotheses_created
        self._future: list[list[float]] | None = None
        self._hypotheses: list[Hypothesis] | None = None
        self._stacks: list[list[Hypothesis]] | None = None
        self._light: dict[int, Hypothesis] = {}

    # -- what DecodeResult keeps as attributes, built on demand ----------------------------------
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
            flat = self.flat_options
            hypotheses = [
                Hypothesis(id_, None, flat[option] if option >= 0 else None, covered, score, transition,
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

    def edge_hypotheses(self, edges: Sequence[int]) -> tuple[Hypothesis, ...]:
        """The hypotheses of a path's edges; without the whole lattice, light objects with the edge's fields."""
        if self._hypotheses is not None:
            return tuple(self._hypotheses[e] for e in edges)
        out = []
        for edge in edges:
            hypothesis = self._light.get(edge)
            if hypothesis is None:
                id_, _, option, covered, score, transition, future = self.lattice.hypothesis(edge)
                hypothesis = self._light[edge] = Hypothesis(id_, None, self.flat_options[option], covered, score,
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
        entries = []
        for score, edges in self.lattice.nbest(n, distinct, self.settings.nbest_factor):
            path = self.edge_hypotheses(edges)
            tokens, segments = read_path(path)
            entries.append(NBestEntry(tokens, score, segments, path))
        return entries
