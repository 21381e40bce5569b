"""The numbers of command-line options: one argparse ``type=`` per kind of number (issue 39).

``type=int`` and ``type=float`` are Python's int() and float(), which read ``1_0`` as 10, a full-width ``１``,
a number beside a no-break space, and (float) ``inf``, ``nan`` and ``1e400`` (infinity). A number typed on a
command line is read here as a number in a table file is (:mod:`core.number_text`: ASCII digits, a sign, no
underscore, no hex), with no white space around it (a quoted ``' 1'`` is a typo too), and checked against its
option's range. A refusal is an :class:`argparse.ArgumentTypeError` saying what was expected and what was
given; argparse adds the option's name and :mod:`core.cli.command_parser` prints it on one line.

A bare ``type=int`` or ``type=float`` is read as the unbounded :class:`WholeNumber` or :class:`RealNumber`
(:mod:`core.cli.command_parser` registers them), so an option that a module below the command line declares
(an experiment's, a plugin's) is read the same way.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from parastudio.core.number_text import parse_decimal, parse_integer


@dataclass(frozen=True)
class WholeNumber:
    """A whole number (``12``, ``+12``, ``-3``) from ``at_least`` to ``at_most`` (either may be open)."""

    at_least: int | None = None
    at_most: int | None = None

    @property
    def expected(self) -> str:
        return "a whole number" + _range_words(self.at_least, self.at_most, None, None)

    def __call__(self, text: str) -> int:
        try:
            value = parse_integer(_bare(text))
        except ValueError:
            raise _refusal(self.expected, text) from None
        if not _within(value, self.at_least, self.at_most, None, None):
            raise _refusal(self.expected, text)
        return value


@dataclass(frozen=True)
class RealNumber:
    """A finite number (``0.5``, ``1e-5``, ``-2``) within the bounds given: ``at_least``/``at_most`` include
    theirs, ``above``/``below`` exclude it."""

    at_least: float | None = None
    at_most: float | None = None
    above: float | None = None
    below: float | None = None

    @property
    def expected(self) -> str:
        return "a finite number" + _range_words(self.at_least, self.at_most, self.above, self.below)

    def __call__(self, text: str) -> float:
        try:
            value = parse_decimal(_bare(text))
        except ValueError:
            raise _refusal(self.expected, text) from None
        if not math.isfinite(value) or not _within(value, self.at_least, self.at_most, self.above, self.below):
            raise _refusal(self.expected, text)
        return value


NUMBER_TYPES = (WholeNumber, RealNumber)
# Kinds several commands share.
COUNT = WholeNumber(at_least=1)
SEED = WholeNumber(at_least=0)  # numpy's generators refuse a negative seed
REPLICATES = WholeNumber(at_least=0)  # bootstrap replicates: 0 means none
PROBABILITY = RealNumber(at_least=0, at_most=1)
LEVEL = RealNumber(above=0, below=1)  # a test's alpha
POSITIVE = RealNumber(above=0)
WEIGHT = RealNumber()


def _bare(text: str) -> str:
    if text != text.strip():
        raise ValueError("white space around a number")
    return text


def _within(value, at_least, at_most, above, below) -> bool:
    return ((at_least is None or value >= at_least) and (at_most is None or value <= at_most)
            and (above is None or value > above) and (below is None or value < below))


def _range_words(at_least, at_most, above, below) -> str:
    if at_least is not None and at_most is not None:
        return f" from {_shown(at_least)} to {_shown(at_most)}"
    words = [f"at least {_shown(at_least)}" if at_least is not None else None,
             f"above {_shown(above)}" if above is not None else None,
             f"at most {_shown(at_most)}" if at_most is not None else None,
             f"below {_shown(below)}" if below is not None else None]
    said = " and ".join(word for word in words if word)
    if not said:
        return ""
    return (" of " if said.startswith("at ") else " ") + said


def _shown(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else repr(bound)


def _refusal(expected: str, text: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
