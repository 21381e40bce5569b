"""``seed001-approaches --save-sets`` / ``--from-sets`` (issue 26, item 3): sets run by separate commands go into
one results file, each set's tables as its own run wrote them, every set's per-case records kept, and each set
naming the command that ran it."""

from __future__ import annotations

import re

import pytest

from core.cli import main
from core.demo import demo_files
from core.experiments.per_sentence import read_per_sentence

DEMO = demo_files()
pytestmark = pytest.mark.skipif(not (DEMO.roundtrip_cases.is_file() and DEMO.roundtrip_graph.is_file()),
                                reason="the bundled round-trip cases are missing")


def sections(markdown: str) -> dict[str, str]:
    """Each case set's section (from its ``## name: N cases`` heading to the next ``## ``)."""
    parts = re.split(r"^## ", markdown, flags=re.M)[1:]
    return {part.split(":")[0]: part for part in parts if re.match(r"[^\n]*: \d+ cases\n", part)}


def test_sets_run_apart_are_written_into_one_file_as_each_run_made_them(tmp_path):
    runs = {}
    for kind in ("roundtrip", "webkjv"):
        out = tmp_path / kind
        assert main(["experiment", "seed001-approaches", "--cases", kind, "--limit", "3", "--processes", "1",
                     "--out", str(out), "--save-sets", str(tmp_path / f"{kind}.sets")]) == 0
        header, records = read_per_sentence(out / "seed001-approaches.jsonl.gz")
        runs[kind] = (sections((out / "seed001-approaches.md").read_text(encoding="utf-8")), header, records)

    joined = tmp_path / "joined"
    assert main(["experiment", "seed001-approaches", "--from-sets", str(tmp_path / "roundtrip.sets"),
                 str(tmp_path / "webkjv.sets"), "--out", str(joined)]) == 0
    markdown = (joined / "seed001-approaches.md").read_text(encoding="utf-8")
    header, records = read_per_sentence(joined / "seed001-approaches.jsonl.gz")

    own = {**runs["roundtrip"][0], **runs["webkjv"][0]}
    assert len(own) == 2 and sections(markdown) == own  # every table of each set as its own run wrote it
    assert records == runs["roundtrip"][2] + runs["webkjv"][2]  # every set's per-case outputs
    for name, (_, run_header, _) in ((name, runs[kind]) for kind in runs for name in runs[kind][0]):
        assert f"- {name}: `{run_header['command']}`" in markdown
        assert header["set_commands"][name] == run_header["command"]
    assert "then written into this file by `" in markdown and "--from-sets" in header["command"]


def test_a_file_not_written_by_save_sets_is_a_one_line_error(tmp_path, capsys):
    wrong = tmp_path / "cases.jsonl"
    wrong.write_text('{"id": "x"}\n', encoding="utf-8")
    assert main(["experiment", "seed001-approaches", "--from-sets", str(wrong), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.endswith(f"{wrong}:1: expected a file written by seed001-approaches --save-sets; got 'BadGzipFile'")
    assert "\n" not in error and not (tmp_path / "out").exists()
