"""What the beam decoder gives and takes, apart from its search: its Moses settings, the hypotheses of its
lattice, a decoded sentence (:class:`DecodeResult`: stacks, n-best lists, the connected graph) and an n-best
entry. The Python search (:mod:`core.engine.decoders.beam_decoder`) and the compiled one
(:mod:`core.engine.decoders.compiled_search`) both build these; neither imports the other's module for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from parastudio.core.engine.decoders.kbest import KBestPaths
from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.model.scoring import DEFAULT_WEIGHTS, ScoreWeights
from parastudio.core.engine.model.translation_options import DEFAULT_OPTION_LIMIT, TranslationOption, TranslationOptions

DEFAULT_STACK_SIZE = 200  # Moses -stack
DEFAULT_BEAM_THRESHOLD = 1e-5  # Moses -beam-threshold
DEFAULT_NBEST_FACTOR = 20  # Moses -n-best-factor: paths tried per distinct entry wanted


@dataclass(frozen=True)
class DecoderSettings:
    """The decoder's Moses settings: ``-stack``, ``-beam-threshold``, ``-ttable-limit``, weights, ``-n-best-factor``."""

    stack_size: int = DEFAULT_STACK_SIZE
    beam_threshold: float = DEFAULT_BEAM_THRESHOLD
    option_limit: int | None = DEFAULT_OPTION_LIMIT
    weights: ScoreWeights = DEFAULT_WEIGHTS
    nbest_factor: int = DEFAULT_NBEST_FACTOR

    def to_json(self) -> dict:
        return {
            "stack_size": self.stack_size,
            "beam_threshold": self.beam_threshold,
            "option_limit": self.option_limit,
            "nbest_factor": self.nbest_factor,
            **self.weights.to_json(),
        }


@dataclass(eq=False, slots=True)
class Hypothesis:
    """A partial translation; ``back`` is the hypothesis it extends."""

    id: int
    back: "Hypothesis | None"
    option: TranslationOption | None
    covered: int  # source words covered, = the stack it lives in
    score: float  # log10, accumulated from the root
    transition: float  # score - back.score
    lm_state: object
    future_score: float  # score + future cost of the uncovered span (what pruning compares)
    arcs: list["Hypothesis"] = field(default_factory=list)  # recombined losers, Moses' ArcList
    winner: "Hypothesis | None" = None  # set on losers


class NBestEntry:
    """One entry of a distinct n-best list: the best path found for one output string.

    ``path`` (its edges, from the first phrase to the last) and ``segments``
    are given, or built from ``load_path`` (a callable giving the path) when
    first read: an n-best list of 100 is mostly read for its strings, and
    building every entry's edges would cost more than finding them.
    """

    __slots__ = ("tokens", "score", "_segments", "_path", "_load_path")

    def __init__(self, tokens: tuple[str, ...], score: float, segments: tuple[Segment, ...] | None = None,
                 path: tuple[Hypothesis, ...] | None = None, *, load_path=None):
        if path is None and load_path is None:
            raise ValueError("an n-best entry needs its path or a way to load it")
        self.tokens = tokens
        self.score = score
        self._segments = segments
        self._path = path
        self._load_path = load_path

    @property
    def path(self) -> tuple[Hypothesis, ...]:
        if self._path is None:
            self._path = self._load_path()
        return self._path

    @property
    def segments(self) -> tuple[Segment, ...]:
        if self._segments is None:
            self._segments = read_path(self.path)[1]
        return self._segments

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NBestEntry):
            return NotImplemented
        return (self.tokens, self.score, self.segments, self.path) == (other.tokens, other.score, other.segments,
                                                                     other.path)

    __hash__ = None

    def __repr__(self) -> str:
        return f"NBestEntry(tokens={self.tokens!r}, score={self.score!r})"


class DecodeResult:
    """Stacks, lattice and outputs of one decoded sentence."""

    def __init__(self, source: tuple[str, ...], root: Hypothesis, stacks: list[list[Hypothesis]],
                 options: TranslationOptions, future_costs: list[list[float]],
                 settings: DecoderSettings, hypotheses_created: int):
        self.source = source
        self.root = root
        self.stacks = stacks
        self.options = options
        self.future_costs = future_costs
        self.settings = settings
        self.hypotheses_created = hypotheses_created

    @property
    def final_stack(self) -> list[Hypothesis]:
        return self.stacks[len(self.source)]

    def best(self) -> Hypothesis | None:
        return max(self.final_stack, key=lambda h: h.score, default=None)

    def paths(self) -> KBestPaths:
        """The lattice's paths, best first, extracted lazily (:mod:`core.engine.decoders.kbest`)."""
        return KBestPaths(self.root, self.final_stack)

    def nbest(self, n: int, *, distinct: bool = True, paths: KBestPaths | None = None) -> list[NBestEntry]:
        """The ``n`` best paths of the lattice, like Moses ``-n-best-list FILE n [distinct]``.

        Paths come out in exact score order (lazy k-best, :mod:`core.engine.decoders.kbest`,
        which stores ``O(n * sentence length)`` entries however many paths
        tie). With ``distinct`` a string is kept once, with its best path; as
        in Moses at most ``n * nbest_factor`` paths are tried. ``paths``: an
        extractor to use (and read ``entries`` from afterwards).
        """
        if n <= 0:
            return []
        paths = paths if paths is not None else self.paths()
        entries: list[NBestEntry] = []
        seen: set[tuple[str, ...]] = set()
        limit = n * max(1, self.settings.nbest_factor) if distinct else n
        for k in range(limit):
            found = paths.path(k)
            if found is None:
                break
            score, path = found
            tokens, segments = read_path(path)
            if distinct and tokens in seen:
                continue
            seen.add(tokens)
            entries.append(NBestEntry(tokens, score, segments, path))
            if len(entries) >= n:
                break
        return entries

    def connected(self) -> list[Hypothesis]:
        """Winners from which a final hypothesis is reachable, in stack order (Moses GetConnectedGraph)."""
        keep: set[int] = set()
        frontier = list(self.final_stack)
        while frontier:
            hypothesis = frontier.pop()
            if hypothesis.id in keep:
                continue
            keep.add(hypothesis.id)
            for edge in (hypothesis, *hypothesis.arcs):
                if edge.back is not None and edge.back.id not in keep:
                    frontier.append(edge.back)
        return [h for stack in self.stacks for h in stack if h.id in keep]


def read_path(path: Sequence[Hypothesis]) -> tuple[tuple[str, ...], tuple[Segment, ...]]:
    tokens: list[str] = []
    segments = []
    for edge in path:
        option = edge.option
        start = len(tokens)
        tokens.extend(option.target)
        segments.append(Segment(option.start, option.end, start, len(tokens), option.rule, option.identity))
    return tuple(tokens), tuple(segments)
