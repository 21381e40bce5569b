"""A text table is parsed once: the first load writes its binary form, so the next one opens at once."""

from __future__ import annotations

import pytest

from parastudio.core.cli import main as cli_main
from parastudio.core.engine.tables import paraphrase_table
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.table_binary import binary_path, cached_binary_path
from parastudio.core.engine.tables.table_formats import LoadReport

RULES = [(f"w{i}", f"v{j}", 1.0 / (1 + j)) for i in range(60) for j in range(3)]


@pytest.fixture
def table_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PARASTUDIO_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "rules.txt"
    path.write_text("".join(f"{s} ||| {t} ||| {p!r}\n" for s, t, p in RULES), encoding="utf-8")
    monkeypatch.setattr(paraphrase_table, "BINARY_ON_FIRST_USE_BYTES", path.stat().st_size)
    return path


def _answers(table: ParaphraseTable) -> list:
    return [(s, [(r.target, r.prob) for r in table.rules_for((s,))]) for s in sorted({s for s, _, _ in RULES})]


def test_the_first_load_writes_the_binary_form_and_the_second_opens_it_with_the_same_answers(table_path):
    first = LoadReport(str(table_path))
    parsed = ParaphraseTable.load(table_path, report=first)
    assert binary_path(table_path).is_file()
    assert any("next load opens it at once" in note for note in first.notes)

    second = LoadReport(str(table_path))
    opened = ParaphraseTable.load(table_path, report=second)
    assert second.binary == str(binary_path(table_path))
    assert _answers(opened) == _answers(parsed)


def test_a_small_table_gets_no_binary_form_unasked(table_path, monkeypatch):
    monkeypatch.setattr(paraphrase_table, "BINARY_ON_FIRST_USE_BYTES", table_path.stat().st_size + 1)
    ParaphraseTable.load(table_path)
    assert not binary_path(table_path).exists()


@pytest.mark.parametrize("blocker", ["user-file", "folder"])
def test_a_pstable_beside_that_is_not_ours_is_kept_and_the_binary_goes_to_the_cache(table_path, blocker):
    beside = binary_path(table_path)
    if blocker == "folder":
        beside.mkdir()
    else:
        beside.write_bytes(b"my own notes\n")

    report = LoadReport(str(table_path))
    ParaphraseTable.load(table_path, report=report)

    cached = cached_binary_path(table_path)
    assert cached.is_file()
    assert beside.is_dir() if blocker == "folder" else beside.read_bytes() == b"my own notes\n"
    again = LoadReport(str(table_path))
    ParaphraseTable.load(table_path, report=again)
    assert again.binary == str(cached)


def test_an_edited_table_is_read_again_and_its_binary_rewritten(table_path):
    ParaphraseTable.load(table_path)
    with open(table_path, "a", encoding="utf-8") as handle:
        handle.write("w0 ||| new ||| 0.9\n")
    table = ParaphraseTable.load(table_path)
    assert ("new",) in [r.target for r in table.rules_for(("w0",))]
    report = LoadReport(str(table_path))
    reopened = ParaphraseTable.load(table_path, report=report)
    assert report.binary == str(binary_path(table_path))
    assert ("new",) in [r.target for r in reopened.rules_for(("w0",))]


def test_the_command_line_says_where_it_wrote_the_binary_form(table_path, capsys):
    assert cli_main(["table", "stats", str(table_path)]) == 0
    assert f"wrote the table's binary form {binary_path(table_path)}" in capsys.readouterr().err


def test_a_table_inside_an_installation_gets_its_binary_in_the_cache_not_beside_it(tmp_path):
    """A bundled or installed table (read-only, or shared by the machine's users) is never written beside."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    environment = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(environment)],
                   check=True)
    python = environment / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    installed = Path(purelib) / "somepackage" / "data"
    installed.mkdir(parents=True)
    table = installed / "rules.txt"
    table.write_text("".join(f"{s} ||| {t} ||| {p!r}\n" for s, t, p in RULES), encoding="utf-8")
    cache = tmp_path / "cache"
    code = ("import sys; from parastudio.core.engine.tables import paraphrase_table as p; p.BINARY_ON_FIRST_USE_BYTES = 0; "
            "t = p.ParaphraseTable.load(sys.argv[1]); print(len(t))")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([str(python), "-c", code, str(table)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(root), PARASTUDIO_CACHE=str(cache)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(len(RULES))
    assert sorted(p.name for p in installed.iterdir()) == ["rules.txt"]
    assert [p.name for p in (cache / "tables").iterdir()] == [cached_binary_path(table).name]


def test_the_first_launch_builds_the_demo_study_without_writing_a_binary_table(tmp_path, monkeypatch):
    """The demo's choice tasks read only their phrases' rules: no 85 MB binary written on a first launch."""
    import shutil
    import sqlite3
    from pathlib import Path

    from parastudio.core.demo import CHOICE_TASKS, DEMO_CHOICE_STUDY, open_demo_study

    bundled = Path(__file__).resolve().parents[1] / "evaldata" / "demo"
    demo = tmp_path / "demo"
    shutil.copytree(bundled, demo, ignore=shutil.ignore_patterns("*.pstable"))
    monkeypatch.setenv("PARASTUDIO_DEMO", str(demo))
    monkeypatch.setenv("PARASTUDIO_CACHE", str(tmp_path / "cache"))
    study = open_demo_study(tmp_path / "demo-study.sqlite")
    assert not list(demo.glob("*.pstable")) and not (tmp_path / "cache").exists()
    with sqlite3.connect(f"file:{study}?mode=ro", uri=True) as connection:
        (tasks,), = connection.execute("SELECT count(*) FROM choice_task JOIN study ON study.id = choice_task.study_id "
                                       "WHERE study.name = ?", (DEMO_CHOICE_STUDY,))
    assert tasks == CHOICE_TASKS
