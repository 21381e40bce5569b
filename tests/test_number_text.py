"""Numbers as table tools write them (issues 22 and 39): what Python's float() and int() also take (underscores,
other scripts' digits, a no-break space) is a defect of its line, in every reader."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.number_text import is_decimal, parse_decimal, parse_integer

NOT_ASCII_SPACE = st.sampled_from(["\u00a0", "\u2007", "\u202f", "\u3000", "\u2003", "\u0085"])


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_number_a_tool_writes_reads_back(value):
    assert parse_decimal(repr(value)) == value and parse_decimal(f" {value!r}\t") == value


@given(st.integers(), NOT_ASCII_SPACE)
def test_underscores_other_digits_and_other_spaces_are_refused(number, space):
    text = str(abs(number) + 10)
    for spoiled in (text[:1] + "_" + text[1:], space + text, text + space,
                    text.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")),
                    text.translate(str.maketrans("0123456789", "０１２３４５６７８９"))):
        assert float(spoiled) == float(text)  # what Python itself would have read
        assert not is_decimal(spoiled)
        with pytest.raises(ValueError):
            parse_decimal(spoiled)
        with pytest.raises(ValueError):
            parse_integer(spoiled)


@pytest.mark.parametrize("score", ["1_0", "\u00a01", "１", "٣", "0x1p-3"])
def test_signtest_refuses_a_score_python_would_have_read(tmp_path, capsys, score):
    path = tmp_path / "scores.csv"
    rows = ["item,system,score"] + [f"s{i},{system},{i % 2}" for i in range(6) for system in ("a", "b")]
    rows[3] = f"s1,a,{score}"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["signtest", str(path), "--system-a", "a", "--system-b", "b"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4: expected a finite number in the 'score' field" in err


def test_a_probability_after_a_no_break_space_is_refused_by_the_table_reader(tmp_path, capsys):
    table = tmp_path / "table.txt"
    table.write_text("a ||| b ||| 0.5\nc ||| d ||| \u00a00.25\n", encoding="utf-8")
    assert main(["table", "stats", str(table)]) == 2
    err = capsys.readouterr().err
    assert f"{table}:2:" in err and "Traceback" not in err
    assert math.isfinite(parse_decimal("0.25"))


def test_a_sentence_past_the_token_bound_is_refused_before_any_search(tmp_path, capsys, monkeypatch, tiny_lm):
    """Issue 39: one 100,000-token line grew generate to 13.7 GB; truescore on 20,000 tokens ran for minutes."""
    import io

    from parastudio.core.textio import MAX_SENTENCE_TOKENS

    table = tmp_path / "table.txt"
    table.write_text("the dog ||| the beast ||| 0.8\n", encoding="utf-8")
    long = " ".join(["the"] * (MAX_SENTENCE_TOKENS + 1))
    monkeypatch.setattr("sys.stdin", io.StringIO("the dog\n" + long + "\n"))
    assert main(["generate", "--system", "beam", "--table", str(table), "--lm", str(tiny_lm["binary"]),
                 "--processes", "1"]) == 2
    assert f"<stdin>:2: expected a sentence of at most {MAX_SENTENCE_TOKENS:,} tokens" in capsys.readouterr().err
    assert main(["truescore", "--table", str(table), "--source", long, "--target", "the dog"]) == 2
    assert "at most" in capsys.readouterr().err
