"""The translator's view without Qt (seed 001 §3, §5): a source sentence, its machine translation, suggestions.

A :class:`TranslatorSession` holds what the view shows: the search graphs of a
corpus (a graph store), the LM, the current sentence, the translation as the
translator has edited it, and the suggestions on screen. The translator
selects a span of the translation (token indices of the text as it is now):

* :meth:`~TranslatorSession.select` asks seed 001's paraphraser through the service a CAT tool calls
  (:meth:`core.engine.decoders.cat.suggestion_service.SuggestionService.suggest`: one engine for the screen,
  ``parastudio suggest`` and ``parastudio serve``) for up to five suggestions;
  an edited text is aligned to the machine translation by the fuzzy aligner
  (``tokens=``), an unedited one exactly (a partly selected phrase is extended
  or reduced, §3.4.1, so the span replaced may be wider than the selection);
* :meth:`~TranslatorSession.more_like` re-asks with a shown suggestion as
  feedback ("more like this", UFBS, §5.1);
* :meth:`~TranslatorSession.expand_abbreviation` re-asks with §5.3's filter;
* :meth:`~TranslatorSession.pick` replaces the span with a suggestion and
  returns a :class:`Pick`, which :func:`core.inspection.translator_choices.record_pick`
  stores as a choice judgment (the suggestions shown are the options, the
  picked one the answer).

A request is split in two for a screen that computes off the UI thread:
:meth:`~TranslatorSession.request` (what to ask, a value), :meth:`~TranslatorSession.compute`
(the paraphraser; any thread, one at a time) and :meth:`~TranslatorSession.accept`
(on screen unless the sentence or text changed meanwhile: a stale result is dropped).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Sequence

from parastudio.core.engine.decoders.cat.approaches import APPROACHES, Approach
from parastudio.core.engine.decoders.cat.graph_store import GraphStore, open_graph
from parastudio.core.engine.decoders.cat.stages import Suggestion
from parastudio.core.engine.decoders.cat.suggestion_service import BadRequest, SuggestionService, SuggestRequest
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.progress import Progress, no_progress, scaled
from parastudio.core.store.clock import now

DEFAULT_APPROACH = "approach-10"  # seed 001 Fig. 4.2's best
TOP = 5  # suggestions shown (seed 001 §3.1: "up to five")
_TOKEN = re.compile(r"\S+")


def token_offsets(text: str) -> list[tuple[int, int]]:
    """The character span ``[a, b)`` of every whitespace-separated token of ``text``."""
    return [match.span() for match in _TOKEN.finditer(text)]


def tokens_of_characters(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The tokens a character selection ``[start, end)`` touches, as ``[i, j)``; None when it touches none."""
    start, end = min(start, end), max(start, end)
    touched = [i for i, (a, b) in enumerate(token_offsets(text)) if a < end and b > start]
    return (touched[0], touched[-1] + 1) if touched else None


def characters_of_tokens(text: str, start: int, end: int) -> tuple[int, int]:
    """The characters of tokens ``[start, end)`` of ``text`` (an empty span: where token ``start`` begins)."""
    offsets = token_offsets(text)
    if start >= end:
        at = offsets[start][0] if start < len(offsets) else len(text)
        return at, at
    return offsets[start][0], offsets[end - 1][1]


@dataclass(frozen=True)
class Request:
    """What one request asks: the sentence, the text it is about, the selection, feedback or abbreviation."""

    sentence: int
    text: str
    start: int
    end: int
    feedback: tuple[str, ...] | None = None
    kind: str = "paraphrase"  # or "expand-abbreviation"
    asked_at: float = field(default_factory=time.perf_counter, compare=False)

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(self.text.split())


@dataclass(frozen=True)
class Shown:
    """The suggestions one request produced, and the span of the text they would replace."""

    request: Request
    suggestions: tuple[Suggestion, ...]
    span: tuple[int, int] | None  # tokens of request.text a pick replaces (the aligned selection)
    coverage: tuple[int, int] | None  # the source words the span translates
    error: str | None
    milliseconds: float  # the paraphraser alone
    approach: str
    shown_at: datetime = field(default_factory=now, compare=False)

    @property
    def texts(self) -> list[str]:
        return [s.text for s in self.suggestions]

    @property
    def replaced(self) -> str:
        return " ".join(self.request.tokens[slice(*self.span)]) if self.span else ""


@dataclass(frozen=True)
class Pick:
    """A suggestion picked: the new text, and the choice it records (seed 001 §4.2's task: sentence, span,
    options; the answer ``option:N``)."""

    sentence: int
    text: str  # the translation after the replacement
    before: str  # the translation the suggestions were shown for
    span: tuple[int, int]  # tokens of ``before`` replaced
    options: tuple[str, ...]  # the suggestions shown, in their order
    number: int  # 1-based: the one picked
    system: str  # approach and request, as the choice task's system
    shown_at: datetime
    picked_at: datetime

    @property
    def chosen(self) -> str:
        return self.options[self.number - 1]

    @property
    def answer(self) -> str:
        return f"option:{self.number}"


class TranslatorSession:
    """One translator's view of a corpus (module docstring). Not for two threads at once, except
    :meth:`compute`, which may run in a worker while the UI thread keeps the session (it takes a lock)."""

    def __init__(self, store: GraphStore, lm: LanguageModel | None, sources: Sequence[str], *,
                 approach: Approach | None = None, top: int = TOP, corpus: str = ""):
        self.store, self.lm, self.top = store, lm, top
        self.sources = list(sources)
        self.service = SuggestionService(store, dict(APPROACHES), lm)
        self.approach = approach or APPROACHES[DEFAULT_APPROACH]
        self.corpus = corpus or store.path.stem
        self.sentence_ids = store.sentences()
        # Every 1-best read once here, so the UI thread never waits for a request running in a worker.
        self.translations = {n: " ".join(store.sentence_graph(n).translation().tokens) for n in self.sentence_ids}
        self._lock = threading.Lock()
        self.index = 0
        self.text = ""
        self.shown: Shown | None = None
        if self.sentence_ids:
            self.go(0)

    @classmethod
    def open(cls, graph: str | Path, sources: str | Path | None, lm: str | Path | None, *,
             approach: Approach | None = None, progress: Progress = no_progress) -> "TranslatorSession":
        """Open the graph store (a dump is loaded once into the user cache), the LM and the source sentences,
        and run one request so the first selection does not pay for imports."""
        progress(0, 100, f"opening the search graphs {Path(graph).name}")
        store = open_graph(graph, progress=scaled(progress, 0, 80))
        try:
            progress(80, 100, f"loading the language model {Path(lm).name}" if lm else "no language model")
            model = LanguageModel(lm) if lm else None
            lines = Path(sources).read_text(encoding="utf-8").splitlines() if sources else []
            session = cls(store, model, lines, approach=approach, corpus=Path(graph).name.split(".")[0])
            progress(95, 100, "warming up the paraphraser")
            session.warm_up()
        except BaseException:
            store.close()
            raise
        progress(100, 100, f"{session.count} sentences ready")
        return session

    def close(self) -> None:
        with self._lock:  # after a request still running in a worker
            self.store.close()

    def warm_up(self) -> None:
        """One request on the first sentence (SciPy's k-means for CDBS is imported on first use)."""
        if self.sentence_ids and self.text.split():
            self.compute(Request(self.sentence, self.text, 0, 1))

    # -- the sentence on screen ---------------------------------------------------------------------
    @property
    def count(self) -> int:
        return len(self.sentence_ids)

    @property
    def sentence(self) -> int:
        return self.sentence_ids[self.index]

    @property
    def approach(self) -> Approach:
        return self.service.approaches[self.service.default_approach]

    @approach.setter
    def approach(self, approach: Approach) -> None:
        self.service.approaches[approach.name] = approach
        self.service.default_approach = approach.name

    @property
    def source(self) -> str:
        return self.sources[self.sentence] if 0 <= self.sentence < len(self.sources) else ""

    @property
    def machine_translation(self) -> str:
        return self.translations[self.sentence]

    @property
    def edited(self) -> bool:
        return tuple(self.text.split()) != tuple(self.machine_translation.split())

    def go(self, index: int) -> None:
        """Show sentence number ``index`` (0-based, clamped) with its machine translation, unedited."""
        self.index = max(0, min(self.count - 1, index))
        self.text = self.machine_translation
        self.shown = None

    def step(self, delta: int) -> bool:
        """The next (``delta`` 1) or previous (-1) sentence; False at either end."""
        target = self.index + delta
        if not 0 <= target < self.count:
            return False
        self.go(target)
        return True

    def edit(self, text: str) -> None:
        """The translator typed: the suggestions shown are for the old text, so they go."""
        if text != self.text:
            self.text = text
            self.shown = None

    def restore(self) -> None:
        """Back to the machine translation."""
        self.go(self.index)

    # -- requests ---------------------------------------------------------------------------------------
    def request(self, start: int, end: int, *, feedback: Sequence[str] | None = None,
                kind: str = "paraphrase") -> Request:
        return Request(self.sentence, self.text, start, end, tuple(feedback) if feedback else None, kind)

    def service_request(self, request: Request) -> SuggestRequest:
        """``request`` as the service takes it (what ``POST /suggest`` would send for it)."""
        return SuggestRequest(span=(request.start, request.end), sentence=request.sentence, text=request.tokens,
                              approach=self.approach.name, top=self.top, feedback=request.feedback,
                              request=request.kind)

    def compute(self, request: Request) -> Shown:
        """Run the paraphraser for ``request`` (any thread; one request at a time)."""
        system = self.approach.name
        with self._lock:
            started = time.perf_counter()
            try:
                result = self.service.suggest(self.service_request(request)).result
            except BadRequest as refusal:  # a selection the aligner cannot take: said where suggestions go
                return Shown(request, (), None, None, str(refusal), 1000 * (time.perf_counter() - started), system)
            milliseconds = 1000 * result.seconds
        span = coverage = None
        if result.context is not None:
            span, coverage = result.context.user_span(), result.alignment.coverage
        return Shown(request, tuple(result.suggestions), span, coverage, result.error, milliseconds, system)

    def accept(self, shown: Shown) -> bool:
        """Put ``shown`` on screen unless it is stale (another sentence or text since it was asked)."""
        if shown.request.sentence != self.sentence or shown.request.text != self.text:
            return False
        self.shown = shown
        return True

    def select(self, start: int, end: int) -> Shown:
        """Suggestions for tokens ``[start, end)`` of the text as it is now (computed here, then shown)."""
        shown = self.compute(self.request(start, end))
        self.accept(shown)
        return shown

    def _again(self, **changes) -> Request:
        if self.shown is None:
            raise LookupError("select a span of the translation first")
        asked = self.shown.request
        return self.request(asked.start, asked.end, feedback=changes.get("feedback", asked.feedback),
                            kind=changes.get("kind", "paraphrase"))

    def more_like_request(self, number: int) -> Request:
        """'More like this' on shown suggestion ``number`` (1-based): the same selection, that suggestion as
        the feedback UFBS sorts towards (§5.1)."""
        if self.shown is None or not 1 <= number <= len(self.shown.suggestions):
            raise LookupError(f"no suggestion {number} on screen")
        return self._again(feedback=self.shown.suggestions[number - 1].words)

    def expand_request(self) -> Request:
        """The same selection read as an abbreviation: only expansions whose initials spell it (§5.3)."""
        return self._again(feedback=None, kind="expand-abbreviation")

    def more_like(self, number: int) -> Shown:
        shown = self.compute(self.more_like_request(number))
        self.accept(shown)
        return shown

    def expand_abbreviation(self) -> Shown:
        shown = self.compute(self.expand_request())
        self.accept(shown)
        return shown

    # -- picking ----------------------------------------------------------------------------------------
    def pick(self, number: int) -> Pick:
        """Replace the shown span with suggestion ``number`` (1-based); the text changes, the suggestions go."""
        shown = self.shown
        if shown is None or shown.span is None or not 1 <= number <= len(shown.suggestions):
            raise LookupError(f"no suggestion {number} on screen")
        before = shown.request.text
        a, b = characters_of_tokens(before, *shown.span)
        after = before[:a] + shown.suggestions[number - 1].text + before[b:]
        request = shown.request
        system = self.approach.name + (" expand-abbreviation" if request.kind != "paraphrase" else "") + (
            " more-like-this" if request.feedback else "")
        pick = Pick(self.sentence, after, before, shown.span, tuple(shown.texts), number, system, shown.shown_at,
                    now())
        self.text, self.shown = after, None
        return pick

    def replaced_characters(self, pick: Pick) -> tuple[int, int]:
        """Where the picked words now stand in ``pick.text`` (for the screen to mark them)."""
        a, _ = characters_of_tokens(pick.before, *pick.span)
        return a, a + len(pick.chosen)
