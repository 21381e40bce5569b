import gzip
import math
import subprocess
import sys

import pytest

from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.table_formats import LoadReport, TableFormat, TableLoading, detect_format, read_rules
from parastudio.core.errors import InputFormatError

MOSES = """the dog ||| the beast ||| 0.8 0.5 0.3 0.2 ||| 0-0 1-1 ||| 10 5 3
the dog ||| the hound ||| 0.1 0.4 0.2 0.1
cat ||| kitten ||| 0.1 0.9 0.6 0.7
"""

PPDB = """[NN] ||| abandonment ||| abandon ||| Abstract=0 p(e|f)=1.20397 p(f|e)=0.69315 PPDB2.0Score=3.5 ||| 0-0 ||| Equivalence
[VP] ||| run away ||| flee ||| Abstract=0 p(e|f)=0.10536 p(f|e)=2.30259 PPDB2.0Score=2.1 ||| 0-0 1-0
"""


def write(path, text, gz=False):
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_moses_table_reads_rules_and_chosen_column(tmp_path, gz):
    path = write(tmp_path / ("t.gz" if gz else "t.txt"), MOSES, gz)
    assert detect_format(path) is TableFormat.MOSES
    rules = list(read_rules(path))
    assert [(" ".join(r.source), " ".join(r.target), r.prob) for r in rules] == [
        ("the dog", "the beast", 0.8), ("the dog", "the hound", 0.1), ("cat", "kitten", 0.1)]
    assert rules[0].features == {"c0": 0.8, "c1": 0.5, "c2": 0.3, "c3": 0.2}
    third = [r.prob for r in read_rules(path, TableLoading(score="2"))]
    assert third == [0.3, 0.2, 0.6]
    assert [r.prob for r in read_rules(path, TableLoading(score="c1"))] == [0.5, 0.4, 0.9]


def test_ppdb_reads_named_feature_as_negative_log(tmp_path):
    path = write(tmp_path / "ppdb.txt", PPDB)
    assert detect_format(path) is TableFormat.PPDB
    rules = list(read_rules(path, TableLoading(score="p(e|f)")))
    assert rules[0].source == ("abandonment",) and rules[0].target == ("abandon",)
    assert rules[0].prob == pytest.approx(math.exp(-1.20397))
    assert rules[1].prob == pytest.approx(0.9, rel=1e-4)
    assert rules[0].features["lhs"] == "[NN]" and rules[0].features["entailment"] == "Equivalence"
    # The default is the first feature, read as a probability: Abstract=0 is not one.
    with pytest.raises(InputFormatError, match=r"ppdb.txt:1: expected feature Abstract to be a probability"):
        list(read_rules(path))


def test_tsv_table(tmp_path):
    path = write(tmp_path / "t.tsv", "the dog\tthe beast\t0.8\ncat\tkitten\t0.1\t0.3\n")
    assert detect_format(path) is TableFormat.TSV
    assert [r.prob for r in read_rules(path)] == [0.8, 0.1]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("the dog ||| the beast", "at least 3 fields"),
        ("the dog ||| the beast ||| abc", "every score to be a finite number"),
        (" ||| the beast ||| 0.5", "non-empty source and target"),
        ("the dog ||| the beast ||| 1.5", "to be a probability in \\(0, 1\\]"),
        ("the dog ||| the beast ||| 0", "to be a probability"),
    ],
)
def test_malformed_line_names_file_line_and_expectation(tmp_path, line, expected):
    path = write(tmp_path / "bad.txt", "a ||| b ||| 0.5\n\n" + line + "\nc ||| d ||| 0.5\n")
    with pytest.raises(InputFormatError, match=rf"bad.txt:3: expected .*{expected}"):
        ParaphraseTable.load(path, TableLoading(format="moses"))


def test_skip_bad_lines_loads_the_rest_and_counts(tmp_path):
    path = write(tmp_path / "bad.txt", "a ||| b ||| 0.5\nbroken line ||| x\nc ||| d ||| 0.5\ne ||| f ||| nan?\n")
    report = LoadReport(str(path))
    table = ParaphraseTable.load(path, TableLoading(format="moses", skip_bad_lines=True), report=report)
    assert len(table) == 2
    assert report.skipped == 2 and report.rules == 2
    assert "bad.txt:2:" in report.first_errors[0] and "bad.txt:4:" in report.first_errors[1]


def run_cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "parastudio", *map(str, args)], capture_output=True, text=True,
                          input=stdin)


def test_cli_table_stats(tmp_path):
    path = write(tmp_path / "t.txt", MOSES)
    result = run_cli("table", "stats", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "rules: 3", "distinct sources: 2", "longest phrase: 2", "mean rules per source: 1.5000"]


def test_cli_reports_bad_line_and_skip(tmp_path):
    path = write(tmp_path / "t.txt", MOSES + "oops\n")
    failed = run_cli("table", "stats", path)
    assert failed.returncode == 2
    assert f"{path}:4: expected at least 3 fields" in failed.stderr
    skipped = run_cli("table", "stats", path, "--skip-bad-lines")
    assert skipped.returncode == 0
    assert "skipped 1 malformed line(s)" in skipped.stderr
    assert "rules: 3" in skipped.stdout


def test_swap_sides_reads_a_bilingual_table_the_other_way(tmp_path):
    path = write(tmp_path / "t.txt", "the dog ||| el perro ||| 0.6 0.5 0.7 0.4\n")
    (rule,) = read_rules(path, TableLoading(score="2", swap_sides=True))
    assert (rule.source, rule.target, rule.prob) == (("el", "perro"), ("the", "dog"), 0.7)
