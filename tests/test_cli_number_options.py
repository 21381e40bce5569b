"""Every number typed on the command line is read one way (issue 39): ``1_0``, ``0x10``, ``inf``, ``1e400``, a
full-width digit or a no-break space is refused in one line that names the option, exit 2; a number spelt as
a table tool writes it reads as Python reads it. The options are found by walking the parser, every command's
and every plugin's, so a new option is covered the day it is added."""

from __future__ import annotations

import argparse
import math

import pytest
from fuzz_support import run_cli
from hypothesis import assume, given
from hypothesis import strategies as st

from parastudio.core.cli import build_parser
from parastudio.core.cli.command_parser import CommandParser
from parastudio.core.cli.number_options import NUMBER_TYPES, RealNumber, WholeNumber

# Types that are not numbers (Path, text) or are checked by their own reader: seed001's I/N shard.
NOT_NUMBER_TYPES = {"str", "Path", "shard_argument"}
# Spellings Python's int() or float() reads (or nearly) that no table tool writes, and words that are no number.
BAD_WHOLE = ["1_0", "0x10", "inf", "nan", "1e400", "1e3", "2.5", " 1", "1 ", "\u00a01", "1\u00a0", "\uff11", "",
             "two", "\u0661"]
BAD_REAL = ["1_0", "0.1_5", "0x10", "0x1p-3", "inf", "nan", "Infinity", "1e400", " 1", "1\t", "\u00a01", "\uff11",
            "", "one"]


UNKNOWN = "--no-such-option"


def _numeric_options():
    """(command words, action, the type that reads it) for every option whose value is a number."""
    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]):
        parser.format_usage()  # a lazy subcommand adds its arguments when first used
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for word, sub in action.choices.items():
                    yield from walk(sub, (*words, word))
            elif action.type is not None:
                yield words, action
    found = []
    for words, action in walk(build_parser(), ()):
        kind = action.type
        if kind in (int, float):  # read through the parser's registry (core/cli/command_parser.py)
            kind = WholeNumber() if kind is int else RealNumber()
        elif not isinstance(kind, NUMBER_TYPES):
            assert getattr(kind, "__name__", repr(kind)) in NOT_NUMBER_TYPES, (words, action.option_strings)
            continue
        found.append((words, action, kind))
    return found


NUMERIC_OPTIONS = _numeric_options()
IDS = [" ".join((*words, action.option_strings[0])) for words, action, _ in NUMERIC_OPTIONS]


def _argv(words, action, value: str) -> list[str]:
    """The command with ``value`` for the option. An unknown option at the end stops the command before it runs
    even when the value is taken (a regression must not start an experiment or a server); an option of several
    values (--span I J, --lambdas x4) gets ``value`` first and good ones after it."""
    count = action.nargs if isinstance(action.nargs, int) else 1
    return [*words, action.option_strings[0], value, *["1"] * (count - 1), UNKNOWN]


def _good_value(kind) -> str:
    low = next((bound for bound in (kind.at_least, getattr(kind, "above", None)) if bound is not None), 0)
    if isinstance(kind, WholeNumber):
        return str(max(low, 1) if kind.at_most is None or kind.at_most >= 1 else low)
    return "0.5" if low < 0.5 else repr(float(low) + 0.5)


def test_the_walk_finds_the_options_of_every_kind_of_command():
    names = set(IDS)
    assert {"generate --stack-size", "pivot --min-prob", "truescore --alpha-lm", "study assign --overlap",
            "experiment tuning-loop --seed", "suggest --span", "reproduce --processes"} <= names
    assert len(NUMERIC_OPTIONS) > 90


@pytest.mark.parametrize(("words", "action", "kind"), NUMERIC_OPTIONS, ids=IDS)
def test_every_numeric_option_refuses_a_bad_spelling_in_one_line(words, action, kind):
    bad = BAD_WHOLE if isinstance(kind, WholeNumber) else BAD_REAL
    out_of_range = [str(bound) for bound in (
        kind.at_least - 1 if kind.at_least is not None else None,
        kind.at_most + 1 if kind.at_most is not None else None,
        getattr(kind, "above", None), getattr(kind, "below", None)) if bound is not None]
    for value in bad + out_of_range:
        status, out, err = run_cli(_argv(words, action, value))
        assert status == 2 and out == "", (value, err)
        assert err.count("\n") == 1 and err.endswith("\n"), (value, err)
        assert err.startswith(f"parastudio: error: {'/'.join(action.option_strings)}: expected "), (value, err)
        assert f"not {value!r}" in err, (value, err)


@pytest.mark.parametrize(("words", "action", "kind"), NUMERIC_OPTIONS, ids=IDS)
def test_a_good_number_gets_past_its_option(words, action, kind):
    """The command stops at the unknown option at the end (or a required one missing): not at the number."""
    good = _good_value(kind)
    assert kind(good) == (int(good) if isinstance(kind, WholeNumber) else float(good))
    status, _, err = run_cli(_argv(words, action, good))
    assert status == 2 and err.count("\n") == 1, err
    assert "expected" not in err and action.option_strings[0] + ":" not in err, err


def test_the_message_names_the_option_what_it_expects_and_what_it_got():
    status, _, err = run_cli(["generate", "--system", "beam", "--table", "t", "--lm", "m", "--stack-size", "0x10"])
    assert (status, err) == (2, "parastudio: error: --stack-size: expected a whole number of at least 1, not '0x10'\n")
    status, _, err = run_cli(["truescore", "--alpha-lm", "1e400"])
    assert (status, err) == (2, "parastudio: error: --alpha-lm: expected a finite number, not '1e400'\n")
    status, _, err = run_cli(["pivot", "t", "-o", "o", "--min-prob", "1.5"])
    assert err == "parastudio: error: --min-prob: expected a finite number from 0 to 1, not '1.5'\n"


@pytest.mark.parametrize("argv", [
    ["generate"],  # required options missing
    ["generate", "--system", "teleport"],  # not one of the choices
    ["table", "stats", "t", "--no-such\noption\x1b[31m"],  # an unknown option with a line break and an escape
    ["no-such-command"],
    ["pivot", "t", "-o"],  # an option without its value
])
def test_every_refusal_of_the_parser_is_one_line(argv):
    status, out, err = run_cli(argv)
    assert status == 2 and out == ""
    assert err.startswith("parastudio: error: ") and err.count("\n") == 1 and "\x1b" not in err, err
    assert "usage:" not in err


def test_help_still_prints_the_usage():
    status, out, _ = run_cli(["pivot", "--help"])
    assert status == 0 and out.startswith("usage: parastudio pivot") and "--min-prob" in out


def test_a_bare_int_or_float_option_is_read_the_same_way():
    """What an experiment or a plugin declares with ``type=int``/``type=float`` (they sit below the CLI)."""
    parser = CommandParser(prog="parastudio")
    parser.add_argument("--n", type=int)
    parser.add_argument("--x", type=float)
    assert vars(parser.parse_args(["--n", "+7", "--x=-2.5e-3"])) == {"n": 7, "x": -2.5e-3}
    for argv in (["--n", "1_0"], ["--x", "inf"]):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args(argv)
        assert stop.value.code == 2


# ---------------------------------------------------------------- the kinds themselves

BOUND = st.one_of(st.none(), st.integers(-1000, 1000))


@given(st.integers(-10**6, 10**6), BOUND, BOUND)
def test_a_whole_number_reads_as_int_reads_it_within_its_range(number, low, high):
    assume(low is None or high is None or low <= high)
    kind = WholeNumber(at_least=low, at_most=high)
    inside = (low is None or number >= low) and (high is None or number <= high)
    for spelling in (str(number), f"+{number}" if number >= 0 else str(number)):
        if inside:
            assert kind(spelling) == int(spelling)
        else:
            with pytest.raises(argparse.ArgumentTypeError, match="expected a whole number"):
                kind(spelling)


SPOILERS = [lambda t: t[:1] + "_" + t[1:], lambda t: "\u00a0" + t, lambda t: t + "\u3000", lambda t: " " + t,
            lambda t: t.translate(str.maketrans("0123456789", "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17"
                                                "\uff18\uff19")),
            lambda t: t.translate(str.maketrans("0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667"
                                                "\u0668\u0669"))]


@given(st.integers(10, 10**9), st.sampled_from(range(len(SPOILERS))))
def test_what_python_would_read_but_no_table_tool_writes_is_refused(number, spoiler):
    spoiled = SPOILERS[spoiler](str(number))
    assert int(spoiled) == number and float(spoiled) == number  # Python itself reads them
    for kind in (WholeNumber(), RealNumber()):
        with pytest.raises(argparse.ArgumentTypeError) as refused:
            kind(spoiled)
        assert repr(spoiled) in str(refused.value)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_finite_number_reads_as_float_reads_it(value):
    for spelling in (repr(value), f"{value:e}", f"{value:.3f}"):
        assert RealNumber()(spelling) == float(spelling)


@given(st.sampled_from(["inf", "-inf", "+Infinity", "nan", "NaN", "1e400", "-1e309"]))
def test_a_number_that_is_not_finite_is_refused(spelling):
    assert not math.isfinite(float(spelling))
    with pytest.raises(argparse.ArgumentTypeError, match="expected a finite number"):
        RealNumber()(spelling)


@given(st.floats(-10, 10, allow_nan=False), st.floats(-10, 10, allow_nan=False))
def test_open_and_closed_bounds_are_kept_apart(value, bound):
    for kind, inside in ((RealNumber(above=bound), value > bound), (RealNumber(at_least=bound), value >= bound),
                         (RealNumber(below=bound), value < bound), (RealNumber(at_most=bound), value <= bound)):
        if inside:
            assert kind(repr(value)) == value
        else:
            with pytest.raises(argparse.ArgumentTypeError):
                kind(repr(value))

