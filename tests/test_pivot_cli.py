"""``parastudio pivot`` end to end through the CLI entry point."""

from __future__ import annotations

import gzip

from parastudio.core.cli import main

TABLE = [
    "the house ||| la casa ||| 0.5 0.4 0.8 0.3 ||| 0-0 1-1 ||| 10 8 5",
    "the home ||| la casa ||| 0.5 0.3 0.2 0.2 ||| 0-0 1-1 ||| 10 2 2",
    "the house ||| el hogar ||| 0.3 0.3 0.2 0.2 ||| 0-0 1-1 ||| 4 5 1",
    "the home ||| el hogar ||| 0.7 0.5 0.8 0.6 ||| 0-0 1-1 ||| 4 5 3",
]


def test_pivot_command_writes_gzip_table(tmp_path, capsys):
    table = tmp_path / "pt.gz"
    with gzip.open(table, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(TABLE) + "\n")
    output = tmp_path / "para.gz"
    assert main(["pivot", str(table), "-o", str(output), "--top", "1", "--min-prob", "0.4"]) == 0
    with gzip.open(output, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    assert len(lines) == 1 and lines[0].startswith("the house ||| the home ||| 0.54 ")
    assert len(lines[0].split(" ||| ")[2].split()) == 5
    assert "1 paraphrase pairs" in capsys.readouterr().out


def test_pivot_command_no_features_and_reverse(tmp_path):
    table = tmp_path / "pt.txt"
    flipped = []
    for line in TABLE:
        e, f, scores, *_ = line.split(" ||| ")
        s = scores.split()
        flipped.append(f"{f} ||| {e} ||| {s[2]} {s[3]} {s[0]} {s[1]}")
    table.write_text("\n".join(flipped) + "\n", encoding="utf-8")
    output = tmp_path / "para.txt"
    assert main(["pivot", str(table), "-o", str(output), "--reverse", "--no-features"]) == 0
    assert output.read_text(encoding="utf-8").splitlines() == [
        "the home ||| the house ||| 0.33999999999999997",
        "the house ||| the home ||| 0.54",
    ]


def test_pivot_command_reports_bad_line(tmp_path, capsys):
    table = tmp_path / "bad.txt"
    table.write_text(TABLE[0] + "\nno separators here\n", encoding="utf-8")
    assert main(["pivot", str(table), "-o", str(tmp_path / "out.txt")]) == 2
    assert f"{table}:2: expected" in capsys.readouterr().err
    assert not (tmp_path / "out.txt").exists()
