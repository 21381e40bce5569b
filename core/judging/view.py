"""What a judge sees of one item, worked out once without Qt: the texts as the study shows them (readable or
tokenized), the tokens to highlight, the choice options as they read in the sentence, and the answer levels with
the keys that give them. The annotation screen paints this view and nothing more (issue 28: the value of an
answer passed back and forth between the screen, the session, the display and the word diff).

A bridge: it joins the store's :class:`core.store.annotation.ItemView` with the engine's
:mod:`core.engine.text.display_text` and :mod:`core.engine.text.changed_words`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from parastudio.core.engine.text.changed_words import changed_by_diff, changed_tokens
from parastudio.core.engine.text.display_text import SentenceDisplay, sentence_display
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import REPLACEMENT_UNIT
from parastudio.core.store.annotation import ItemView
from parastudio.core.store.items import replacement_units

MAX_OPTIONS = 5


@dataclass(frozen=True)
class ShownSentence:
    """A sentence as shown: its tokens, and when readable the text and each token's span in it; ``marked``:
    the tokens highlighted."""

    tokens: tuple[str, ...]
    marked: frozenset[int]
    text: str | None = None  # None: shown tokenized
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def reading(self) -> str:
        """The string the judge reads: the readable text, or the tokens as stored."""
        return self.text if self.text is not None else " ".join(self.tokens)


@dataclass(frozen=True)
class Level:
    value: str
    label: str
    keys: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True)
class JudgingView:
    item: ItemView
    source_title: str
    source: ShownSentence | None  # None: the source is not shown for this question (form alone, seed 003)
    candidate: ShownSentence | None  # the candidate, or a choice task's sentence with its span marked
    options: tuple[str, ...] = ()  # a choice task's options as they read in the sentence
    levels: tuple[Level, ...] = ()
    pair: tuple[ShownSentence, ShownSentence] | None = None  # a preference item's left and right candidates
    words: tuple[JudgedWord, ...] = ()  # an ESA item's candidate as the words the judge marks (judged_words)

    def value_of_key(self, key: str) -> str | None:
        """The level a key gives on this item (keys as the keyboard types them, upper case), if any."""
        for level in self.levels:
            if key.upper() in level.keys:
                return level.value
        return None

    @property
    def answer_keys(self) -> tuple[str, ...]:
        return tuple(key for level in self.levels for key in level.keys)


def study_display(settings: dict, default_model: str | None = None) -> SentenceDisplay | None:
    """The one display rule of a study, for every screen that shows its sentences (judging, adjudication): None
    (tokenized, as stored) when its "display" setting says "tokenized", else readable, truecased with the study's
    ``truecase_model`` or ``default_model`` when that file exists (else only detokenized and capitalized)."""
    if settings.get("display", "readable") != "readable":
        return None
    model = settings.get("truecase_model") or default_model
    return sentence_display(model if model and Path(model).is_file() else None)


def key_for_level(scale: str, index: int, level: dict) -> tuple[str, ...]:
    """The keys that give a level: Y/1 and N/0 for yes/no, else the level's digit."""
    return protocol_of(scale).level_keys(index, level)


def replacement_marks(derivation, unit: int | None) -> tuple[range, range, str]:
    """The one unit replacement a replacement-task item asks about: its source and candidate tokens, and a title
    saying which of the candidate's replacements it is."""
    units = replacement_units(derivation)
    if unit is None or not 0 <= unit < len(units):
        return range(0), range(0), "Source sentence"
    found = units[unit]
    return (range(*found["src"]), range(*found["tgt"]),
            f"Source sentence · replacement {unit + 1} of {len(units)}: “{found['source']}” → “{found['target']}”")


def levels_of(item: ItemView) -> tuple[Level, ...]:
    return tuple(Level(str(level["value"]), level.get("label") or str(level["value"]),
                       key_for_level(item.scale, index, level), level.get("description", ""))
                 for index, level in enumerate(item.levels))


def shown_sentence(item: ItemView, tokens: str, marked, display: SentenceDisplay | None) -> ShownSentence:
    """``tokens`` as the study shows them: readable (the published source where the text is the source's, else
    detokenized and truecased) when ``display`` is given, else tokenized."""
    words = tuple(tokens.split())
    if display is None:
        return ShownSentence(words, frozenset(marked))
    if item.source_display and list(words) == item.source.split():
        shown = display.show_original(item.source_display, words)
    else:
        shown = display.show(words)
    return ShownSentence(words, frozenset(marked), shown.text, shown.spans)


def shown_text(tokens: str, display: SentenceDisplay | None, *, source: str | None = None,
               original: str | None = None) -> str:
    """The string a judge reads for ``tokens`` (the text of :func:`shown_sentence`, for exports): the published
    ``original`` of ``source`` where ``tokens`` are the source's, else readable, else the tokens as stored."""
    if display is None:
        return " ".join(tokens.split())
    return _displayed(tokens, display, source, original).text


def _displayed(tokens: str, display: SentenceDisplay, source: str | None, original: str | None):
    if original and source is not None and tokens.split() == source.split():
        return display.show_original(original, tokens)
    return display.show(tokens)


@dataclass(frozen=True)
class JudgedWord:
    """One word a judge can mark (error spans, issue 30): as it reads, where it is in the shown text, and the
    stored tokens it shows."""

    text: str
    chars: tuple[int, int]
    tokens: range


def judged_words(tokens: str, display: SentenceDisplay | None, *, source: str | None = None,
                 original: str | None = None) -> tuple[str, tuple[JudgedWord, ...]]:
    """The text a judge reads for ``tokens`` (:func:`shown_text`) and the words they mark in it, left to right.

    Shown tokenized, each token is a word. Shown readable, a word is a whitespace-separated run of the text
    and shows the tokens whose characters lie in it: the detokenizer merges tokens ("do n't" -> "don't",
    "hello ," -> "hello,"), never splits one. A token the detokenizer rewrote has no characters of its own
    ("@-@" -> "-"): it belongs to the word before it (the first word when it comes first). Every token belongs to
    exactly one word, in order, so spans over these words map onto tokens and back exactly
    (:mod:`core.judging.span_rewrites`); a run of the text with no token in it is not a word to mark.
    """
    words = tokens.split()
    if display is None:
        text, chars = " ".join(words), []
        for word in words:
            start = chars[-1][1] + 1 if chars else 0
            chars.append((start, start + len(word)))
        return text, tuple(JudgedWord(w, c, range(i, i + 1)) for i, (w, c) in enumerate(zip(words, chars)))
    shown = _displayed(tokens, display, source, original)
    text = shown.text
    runs = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    run_of_token: list[int] = []
    for start, end in shown.spans:
        if start < end:
            run_of_token.append(len(text[:start + 1].split()) - 1)  # the run holding its first character
        else:  # rewritten by the detokenizer, which glues what it wrote to the word before ("well-known")
            run_of_token.append(run_of_token[-1] if run_of_token else 0)
    judged: list[JudgedWord] = []
    for index, run in enumerate(run_of_token):
        if judged and run_of_token[index - 1] == run:
            last = judged[-1]
            judged[-1] = JudgedWord(last.text, last.chars, range(last.tokens.start, index + 1))
        else:
            start, end = runs[run] if runs else (0, 0)
            judged.append(JudgedWord(text[start:end], (start, end), range(index, index + 1)))
    return text, tuple(judged)


def choice_text(item: ItemView, phrase: str, display: SentenceDisplay | None) -> str:
    """A choice task's picked or typed ``phrase`` as it reads in place of its span (its tokens when the study
    shows them tokenized), for the line that quotes the judge's pick."""
    if display is None or item.span is None:
        return phrase
    return display.show_in_place(item.source, item.span, phrase)


def judging_view(item: ItemView, display: SentenceDisplay | None) -> JudgingView:
    """The view of ``item``; ``display`` None shows sentences tokenized (the study's "display" setting). Every
    page paints its texts from here (categorical, choice, DA, ESA, preference), so one rule shows them all."""
    protocol = protocol_of(item.scale)
    if protocol.view == "pair":  # two candidates, each marked where it differs from the other (favouring neither)
        left_marks, right_marks = changed_by_diff((item.left or "").split(), (item.right or "").split())
        pair = (shown_sentence(item, item.left or "", left_marks, display),
                shown_sentence(item, item.right or "", right_marks, display))
        return JudgingView(item, "Source sentence", shown_sentence(item, item.source, (), display), None,
                           levels=levels_of(item), pair=pair)
    if protocol.view == "choice":
        start, end = item.span or (0, 0)
        options = tuple(display.show_in_place(item.source, (start, end), option) if display is not None else option
                        for option in item.options[:MAX_OPTIONS])
        return JudgingView(item, "Sentence", None, shown_sentence(item, item.source, range(start, end), display),
                           options)
    candidate = item.candidate or ""
    # ESA and MQM: the candidate as the words the judge marks (the desk counts them, the page paints them).
    words = (judged_words(candidate, display, source=item.source, original=item.source_display)[1]
             if protocol.marks_words else ())
    if protocol.item == REPLACEMENT_UNIT:
        source_changed, candidate_changed, title = replacement_marks(item.derivation, item.unit)
    elif item.shows_source:
        source_changed, candidate_changed = changed_tokens(item.source, candidate, item.derivation)
        title = "Source sentence"
    else:  # form alone: no source, and no highlight that would hint at one
        return JudgingView(item, "Source sentence: not shown for this question", None,
                           shown_sentence(item, candidate, (), display), levels=levels_of(item), words=words)
    return JudgingView(item, title, shown_sentence(item, item.source, source_changed, display),
                       shown_sentence(item, candidate, candidate_changed, display), levels=levels_of(item),
                       words=words)
