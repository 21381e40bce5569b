"""Search graphs in Moses' ``-output-search-graph`` line format: writer and reader.

One line per hypothesis, grouped by sentence (Moses ``Manager::OutputSearchGraph``
and ``OutputSearchNode``). The traditional format (Moses ``-output-search-graph``)::

    0 hyp=0 stack=0
    0 hyp=1 stack=1 back=0 score=-1.497 transition=-1.497 forward=3 fscore=-7.6 covered=0-0 out=the
    0 hyp=7 stack=1 back=0 score=-2.2 transition=-2.2 recombined=1 forward=3 fscore=-7.6 covered=0-0 out=a

The extended format (Moses ``-output-search-graph-extended``) gives the root
its ``forward``/``fscore`` too, and each other line the feature values of its
step and the source phrase beside the target::

    0 hyp=0 stack=0 forward=1 fscore=-9.1
    0 hyp=1 stack=1 back=0 score=-1.497 transition=-1.497 forward=3 fscore=-7.6 covered=0-0 scores="-0.3 -1.197 -1" out="le|the"

(our feature values, unweighted, base-10: the rule's log10 p, the LM's
log10 probability of the step, minus the number of target words).

* ``score`` is the hypothesis' accumulated score, ``transition`` the score of
  the step from ``back``; ``covered`` is the inclusive, 0-based source span of
  the last phrase; ``out`` its target words (to the end of the line).
* ``forward``/``fscore``: the next hypothesis on the best path to a complete
  translation and the score of that remaining path (``-1``/``0`` on the last
  stack). A recombined hypothesis (``recombined=W``: it lost to ``W``) carries
  its winner's ``forward``/``fscore``, since its path continues from ``W``.
* The reader accepts both formats, and roots with or without ``forward``.

Our decoder's scores are base-10 logs; a real Moses dump holds natural-log
scores (ours times ln 10 under the same weights). The reader keeps numbers as
written: ``SearchGraphLine`` does not know which decoder wrote it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import IO, Iterable, Iterator

from parastudio.core.engine.decoders.decoder_types import DecodeResult, Hypothesis
from parastudio.core.errors import InputFormatError
from parastudio.core.textio import atomic_output, open_text_maybe_gzip


@dataclass(frozen=True)
class SearchGraphLine:
    sentence_id: int
    hyp: int
    stack: int
    back: int | None = None
    score: float | None = None
    transition: float | None = None
    recombined: int | None = None
    forward: int | None = None
    fscore: float | None = None
    covered: tuple[int, int] | None = None  # inclusive, 0-based
    out: tuple[str, ...] = ()
    source_phrase: tuple[str, ...] | None = None  # extended format only
    scores: tuple[float, ...] | None = None  # extended format only: the step's feature values

    @property
    def is_root(self) -> bool:
        return self.back is None


def _number(value: float) -> str:
    return f"{value:.6g}" if value != 0 else "0"


def format_line(sentence_id: int, hypothesis: Hypothesis, forward: dict[int, int], fscore: dict[int, float],
                *, extended: bool = False, weights=None) -> str:
    """One line for ``hypothesis`` (a winner, or a recombined loser), traditional or extended format."""
    if hypothesis.back is None:
        line = f"{sentence_id} hyp={hypothesis.id} stack=0"
        if extended:
            line += f" forward={forward.get(hypothesis.id, -1)} fscore={_number(fscore.get(hypothesis.id, 0.0))}"
        return line
    node = hypothesis.winner or hypothesis
    parts = [
        f"{sentence_id} hyp={hypothesis.id} stack={hypothesis.covered} back={hypothesis.back.id}",
        f"score={_number(hypothesis.score)} transition={_number(hypothesis.transition)}",
    ]
    if hypothesis.winner is not None:
        parts.append(f"recombined={hypothesis.winner.id}")
    option = hypothesis.option
    parts.append(f"forward={forward.get(node.id, -1)} fscore={_number(fscore.get(node.id, 0.0))}")
    parts.append(f"covered={option.start}-{option.end - 1}")
    if not extended:
        parts.append(f"out={' '.join(option.target)}")
        return " ".join(parts)
    rule_log10 = option.rule.log10_prob
    lm_weight = weights.lm if weights is not None else 1.0
    lm_log10 = (hypothesis.transition - option.rule_score) / lm_weight if lm_weight else 0.0
    parts.append(f'scores="{_number(rule_log10)} {_number(lm_log10)} {-len(option.target)}"')
    parts.append(f'out="{" ".join(option.rule.source)}|{" ".join(option.target)}"')
    return " ".join(parts)


def forward_scores(result: DecodeResult) -> tuple[dict[int, int], dict[int, float]]:
    """Best continuation of every connected winner (Moses ``GetSearchGraph``)."""
    connected = result.connected()
    connected_ids = {h.id for h in connected}
    forward: dict[int, int] = {}
    fscore: dict[int, float] = {}
    for hypothesis in result.final_stack:
        if hypothesis.id in connected_ids:
            forward[hypothesis.id] = -1
            fscore[hypothesis.id] = 0.0
    for hypothesis in reversed(connected):
        if hypothesis.id not in fscore:
            continue
        for edge in (hypothesis, *hypothesis.arcs):
            back = edge.back
            if back is None:
                continue
            candidate = fscore[hypothesis.id] + edge.transition
            if back.id not in fscore or fscore[back.id] < candidate:
                fscore[back.id] = candidate
                forward[back.id] = edge.id
    return forward, fscore


def search_graph_lines(sentence_id: int, result: DecodeResult, *, extended: bool = False) -> Iterator[str]:
    """Every connected hypothesis, each followed by the ones recombined into it."""
    forward, fscore = forward_scores(result)
    weights = result.settings.weights
    for hypothesis in result.connected():
        yield format_line(sentence_id, hypothesis, forward, fscore, extended=extended, weights=weights)
        for loser in hypothesis.arcs:
            yield format_line(sentence_id, loser, forward, fscore, extended=extended, weights=weights)


def write_search_graph(path: str | os.PathLike, results: Iterable[tuple[int, DecodeResult]], *,
                       extended: bool = False) -> None:
    with atomic_output(path) as out:
        write_search_graph_to(out, results, extended=extended)


def write_search_graph_to(out: IO[str], results: Iterable[tuple[int, DecodeResult]], *,
                          extended: bool = False) -> None:
    for sentence_id, result in results:
        for line in search_graph_lines(sentence_id, result, extended=extended):
            out.write(line + "\n")


_FIELD = re.compile(r"(\w+)=(\S*)")
_INTEGER_FIELDS = {"hyp", "stack", "back", "recombined", "forward"}
_FLOAT_FIELDS = {"score", "transition", "fscore"}


def parse_line(text: str, path: str = "<search graph>", line_number: int = 0) -> SearchGraphLine:
    """Parse one line of ours or of a real Moses dump (traditional or extended format)."""
    text = text.rstrip("\n").rstrip("\r")
    head, _, rest = text.partition(" ")
    try:
        sentence_id = int(head)
    except ValueError:
        raise InputFormatError(path, line_number, "a sentence number then hyp=... (Moses search graph)", text[:80]) from None
    out: tuple[str, ...] = ()
    values: dict = {}
    # out= is last and its words contain spaces: everything after it is the phrase
    # (extended: out="source words|target words").
    out_at = rest.find(" out=")
    if out_at >= 0:
        phrase = rest[out_at + len(" out="):]
        rest = rest[:out_at]
        if phrase.startswith('"') and phrase.endswith('"') and "|" in phrase:
            source_text, _, target_text = phrase[1:-1].partition("|")
            values["source_phrase"] = tuple(source_text.split())
            phrase = target_text
        out = tuple(phrase.split())
    scores_at = rest.find(' scores="')
    if scores_at >= 0:
        end = rest.find('"', scores_at + len(' scores="'))
        if end < 0:
            raise InputFormatError(path, line_number, 'scores="..." closed by a quote', text[:80])
        # Moses writes feature names ("LM0= -1.2 ...") among the numbers; the numbers are kept in order.
        values["scores"] = tuple(float(v) for v in rest[scores_at + len(' scores="'):end].split() if _is_number(v))
        rest = rest[:scores_at] + rest[end + 1:]
    for key, value in _FIELD.findall(rest):
        try:
            if key in _INTEGER_FIELDS:
                values[key] = int(value)
            elif key in _FLOAT_FIELDS:
                values[key] = float(value)
            elif key == "covered":
                start, _, end = value.partition("-")
                values[key] = (int(start), int(end))
        except ValueError:
            raise InputFormatError(path, line_number, f"a number in {key}=", value) from None
    if "hyp" not in values or "stack" not in values:
        raise InputFormatError(path, line_number, "hyp=N and stack=N", text[:80])
    if "back" in values and ("covered" not in values or out_at < 0 or "score" not in values):
        raise InputFormatError(path, line_number, "score=, covered=S-E and out= on a non-root hypothesis", text[:80])
    return SearchGraphLine(sentence_id=sentence_id, out=out, **values)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_search_graph(path: str | os.PathLike) -> Iterator[SearchGraphLine]:
    with open_text_maybe_gzip(path) as handle:
        for number, text in enumerate(handle, start=1):
            if text.strip():
                yield parse_line(text, str(path), number)


def best_path(lines: Iterable[SearchGraphLine]) -> list[SearchGraphLine]:
    """The best complete path of one sentence's graph, by following ``forward`` from the root."""
    by_id: dict[int, SearchGraphLine] = {}
    root = None
    for line in lines:
        by_id[line.hyp] = line
        if line.is_root:
            root = line
    if root is None:
        raise ValueError("search graph has no root line (hyp=0 stack=0)")
    if root.forward is None:
        # A newer Moses root line has no forward=: start from the best arc out of the root.
        starts = [line for line in by_id.values() if line.back == root.hyp]
        if not starts:
            return []
        current = max(starts, key=lambda l: l.transition + (l.fscore or 0.0))
    else:
        if root.forward < 0:
            return []
        current = by_id[root.forward]
    path = [current]
    while current.forward is not None and current.forward >= 0:
        current = by_id[current.forward]
        path.append(current)
    return path


def group_by_sentence(lines: Iterable[SearchGraphLine]) -> dict[int, list[SearchGraphLine]]:
    grouped: dict[int, list[SearchGraphLine]] = {}
    for line in lines:
        grouped.setdefault(line.sentence_id, []).append(line)
    return grouped
