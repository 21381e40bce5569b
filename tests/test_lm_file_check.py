"""KenLM files are checked before KenLM reads them: truncated binaries and malformed ARPA files are refused clearly."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.engine.lm.file_check import check_lm_file
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.errors import InputFileError, InputFormatError

LENIENT = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_whole_models_pass_and_score(tiny_lm):
    for path in (tiny_lm["binary"], tiny_lm["arpa"]):
        check_lm_file(path)
        assert math.isfinite(LanguageModel(path).score("the dog runs"))


@LENIENT
@given(cut=st.floats(0.0, 0.999))
def test_a_binary_cut_anywhere_is_refused(tiny_lm, tmp_path, cut):
    data = tiny_lm["binary"].read_bytes()
    path = tmp_path / "cut.bin"
    path.write_bytes(data[: max(1, int(len(data) * cut))])
    with pytest.raises((InputFileError, InputFormatError)) as raised:
        check_lm_file(path)
    assert str(path) in str(raised.value)


def test_the_last_byte_missing_is_enough_to_refuse(tiny_lm, tmp_path):
    data = tiny_lm["binary"].read_bytes()
    path = tmp_path / "short.bin"
    path.write_bytes(data[:-1])
    with pytest.raises(InputFileError, match="vocabulary words"):
        LanguageModel(path)


def arpa_lines(tiny_lm) -> list[str]:
    return tiny_lm["arpa"].read_text(encoding="utf-8").splitlines()


def first_entry(lines: list[str], order: int) -> int:
    return lines.index(f"\\{order}-grams:") + 1


@pytest.mark.parametrize("damage, expected", [
    ("count", "as the header says"),
    ("nan", "finite log10 p <= 0"),
    ("positive", "finite log10 p <= 0"),
    ("words", "finite log10 p <= 0"),
    ("no-end", "ending with \\end\\"),
    ("backoff-at-top", "no back-off at the highest order"),
])
def test_a_damaged_arpa_is_refused_at_its_line(tiny_lm, tmp_path, damage, expected):
    lines = arpa_lines(tiny_lm)
    line = first_entry(lines, 2)
    if damage == "count":
        at = next(i for i, text in enumerate(lines) if text.startswith("ngram 2="))
        count = int(lines[at].split("=")[1])
        lines[at] = f"ngram 2={count + 1}"
        line = lines.index("\\3-grams:")
    elif damage == "nan":
        lines[line] = "nan\t" + lines[line].split("\t", 1)[1]
    elif damage == "positive":
        lines[line] = "0.5\t" + lines[line].split("\t", 1)[1]
    elif damage == "words":
        fields = lines[line].split("\t")
        lines[line] = "\t".join([fields[0], fields[1].split()[0], *fields[2:]])
    elif damage == "no-end":
        lines = [text for text in lines if text != "\\end\\"]
        line = len(lines) - 1
    else:
        line = first_entry(lines, 3)
        lines[line] += "\t-0.5"
    path = tmp_path / "bad.arpa"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as raised:
        check_lm_file(path)
    assert expected in str(raised.value)
    assert str(raised.value).startswith(f"{path}:")
    if damage not in ("no-end",):
        assert str(raised.value).startswith(f"{path}:{line + 1}:")


def test_the_cli_says_which_file_and_exits_2(tiny_lm, tmp_path, capsys, monkeypatch):
    import io

    path = tmp_path / "half.bin"
    data = tiny_lm["binary"].read_bytes()
    path.write_bytes(data[: len(data) // 2])
    monkeypatch.setattr("sys.stdin", io.StringIO("the dog\n"))
    assert main(["lm", "score", str(path)]) == 2
    assert f"{path}: expected" in capsys.readouterr().err
