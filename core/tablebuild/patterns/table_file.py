"""The pattern paraphrase table file (docs/pattern-table.md): one pattern pair per line, Moses-like.

    e1 ||| e2 ||| score p_mle ||| h1 h2 h3 h4 [h1 h2 h3 h4 ...] ||| c_1 ||| c_2 ...

* ``e1``, ``e2``: patterns, slots as ``[TAG_n]`` (e2's numbers are e1's);
* ``score``: Eq. 3 under the table's weights λ (in its ``.json`` sidecar; capped at e^700, see
  :data:`MAX_LOG_SCORE`), ``p_mle``: Eq. 1; both plain numbers, not logs, as Moses writes probabilities;
* then h1..h4 of each pivot, four numbers per pivot, and the pivots themselves,
  one field each, in the same order (highest contribution under λ first).

Lines are sorted by e1, then by decreasing score, then e2 (code-point order).
A sidecar ``TABLE.json`` records the format, λ, T and how the table was built.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from parastudio.core.errors import InputFormatError
from parastudio.core.output_files import FILE, resolve_output
from parastudio.core.structured_text import parse_json
from parastudio.core.tablebuild.patterns.scoring import FEATURE_NAMES, MLE_LAMBDAS, log_score
from parastudio.core.textio import atomic_output, open_text_maybe_gzip
from parastudio.core.vocabulary import is_slot

FORMAT = "parastudio-pattern-table/1"
# A tuned λ (``parastudio tune --system pivot``) may put ln score(e2|e1) past a float's range (λ1 = -100 with
# h1 = -10 gives e^1000): the written score is capped at e^700; the exact ln score is Eq. 3 of the features.
MAX_LOG_SCORE = 700.0
SEPARATOR = " ||| "
_EXPECTED = ("'e1 ||| e2 ||| score p_mle ||| h1 h2 h3 h4 ... ||| pivot ...' with four feature values per pivot "
             "and e2's slots e1's")


@dataclass(frozen=True)
class PatternPair:
    e1: str
    e2: str
    score: float
    p_mle: float
    features: tuple[tuple[float, ...], ...]
    pivots: tuple[str, ...]


def sidecar_path(table: Path) -> Path:
    name = Path(table).name
    for suffix in (".gz",):
        name = name.removesuffix(suffix)
    return Path(table).with_name(name + ".json")


def _number(value: float) -> str:
    return repr(float(value)) if math.isfinite(value) else str(value)


def format_line(pair: PatternPair) -> str:
    features = " ".join(_number(value) for group in pair.features for value in group)
    return SEPARATOR.join([pair.e1, pair.e2, f"{_number(pair.score)} {_number(pair.p_mle)}", features,
                           *pair.pivots]) + "\n"


def scored_pair(e1: str, e2: str, pivots: Sequence[tuple[str, Sequence[float]]], lambdas: Sequence[float]) -> PatternPair:
    """A pair with its Eq. 3 score under ``lambdas`` and its Eq. 1 probability, pivots best first."""
    ordered = sorted(pivots, key=lambda item: (-sum(w * h for w, h in zip(lambdas, item[1])), item[0]))
    features = tuple(tuple(float(h) for h in item[1]) for item in ordered)
    return PatternPair(e1, e2, math.exp(min(log_score(features, lambdas), MAX_LOG_SCORE)),
                       math.exp(log_score(features, MLE_LAMBDAS)), features, tuple(item[0] for item in ordered))


def write_table(pairs: Iterator[PatternPair], output: Path, meta: dict, *, compresslevel: int = 6,
                inputs=()) -> int:
    """Write ``pairs`` (already in table order) and the sidecar; returns the number of lines. ``output``
    may not be one of ``inputs``; written to a device, a FIFO or standard output, it has no sidecar."""
    lines = 0
    regular = resolve_output(output, inputs).kind == FILE
    with atomic_output(output, compresslevel=compresslevel, inputs=inputs) as handle:
        batch: list[str] = []
        for pair in pairs:
            if any(" ||| " in text or "\t" in text for text in (pair.e1, pair.e2, *pair.pivots)):
                raise ValueError(f"a pattern holds the field separator: {pair.e1!r} / {pair.e2!r}")
            batch.append(format_line(pair))
            lines += 1
            if len(batch) >= 20_000:
                handle.write("".join(batch))
                batch.clear()
        handle.write("".join(batch))
    if not regular:
        return lines
    with atomic_output(sidecar_path(output), inputs=inputs) as handle:
        json.dump({"format": FORMAT, "features": list(FEATURE_NAMES), "pairs": lines, **meta}, handle, indent=1,
                  default=str)
        handle.write("\n")
    return lines


def read_meta(table: Path) -> dict:
    """The table's sidecar (``{}`` when it has none), read through the checked text reader."""
    path = sidecar_path(table)
    if not path.exists():
        return {}
    with open_text_maybe_gzip(path) as handle:
        text = handle.read()
    meta = parse_json(text, path, "the pattern table's JSON sidecar")
    if not isinstance(meta, dict):
        raise InputFormatError(str(path), 1, "the pattern table's JSON sidecar (an object)", text[:60])
    return meta


def _slots(pattern: str) -> list[str]:
    return sorted(token for token in pattern.split() if is_slot(token))


def parse_line(line: str) -> PatternPair | None:
    fields = line.rstrip("\n").split(SEPARATOR)
    if len(fields) < 5:
        return None
    e1, e2 = fields[0].strip(), fields[1].strip()
    try:
        scores = [float(value) for value in fields[2].split()]
        values = [float(value) for value in fields[3].split()]
    except ValueError:
        return None
    pivots = tuple(field.strip() for field in fields[4:])
    if not e1 or not e2 or len(scores) != 2 or len(values) != 4 * len(pivots) or not all(pivots):
        return None
    if _slots(e1) != _slots(e2) or not _slots(e1):  # e2's slots are e1's: a slot of one side alone has no words
        return None
    if any(math.isnan(value) or value > 1e-9 and index % 4 < 2 for index, value in enumerate(values)):
        return None  # h1, h2 are log probabilities: <= 0
    features = tuple(tuple(values[i:i + 4]) for i in range(0, len(values), 4))
    return PatternPair(e1, e2, scores[0], scores[1], features, pivots)


def read_table(path: Path) -> Iterator[PatternPair]:
    """Every pair of a pattern table; a malformed line stops the read with file:line: expected ..."""
    with open_text_maybe_gzip(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            pair = parse_line(line)
            if pair is None:
                raise InputFormatError(str(path), number, _EXPECTED, line.rstrip("\n"))
            yield pair
