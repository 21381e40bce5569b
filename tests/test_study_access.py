"""Every command that reads a study says which study it cannot tell in one way (``core.cli.study_access``):
``parastudio: error: ...``, exit 1, no traceback, whichever subcommand was asked."""

from __future__ import annotations

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database

# Each command that opens a study, with the arguments it needs besides the database and --study.
COMMANDS = {
    "study import-candidates": (["study", "import-candidates", "CANDIDATES", "--db", "DB"]),
    "study assign": ["study", "assign", "--db", "DB", "--annotators", "ann"],
    "study import-judgments": ["study", "import-judgments", "JUDGMENTS", "--db", "DB"],
    "study export-judgments": ["study", "export-judgments", "--db", "DB"],
    "study export-package": ["study", "export-package", "--db", "DB", "--annotator", "ann", "-o", "OUT"],
    "study assign-next": ["study", "assign-next", "--db", "DB", "--annotators", "ann", "--sentences", "2",
                          "--criterion", "meaning"],
    "study qc": ["study", "qc", "--db", "DB"],
    "study progress": ["study", "progress", "--db", "DB"],
    "study export-scores": ["study", "export-scores", "DB", "--criterion", "meaning"],
    "study status": ["study", "status", "DB"],
    "study items": ["study", "items", "DB"],
    "inspect": ["inspect", "DB"],
    "inspect-rules": ["inspect-rules", "DB"],
    "agreement": ["agreement", "DB"],
    "signtest": ["signtest", "DB", "--system-a", "a", "--system-b", "b"],
    "report": ["report", "DB"],
    "export-devset": ["export-devset", "DB", "-o", "OUT"],
}
STUDY_FLAG = {"inspect": "--study-name", "inspect-rules": "--study-name"}


@pytest.fixture
def two_studies(tmp_path):
    path = tmp_path / "two.sqlite"
    with open_database(path, create=True) as db:
        ops.create_study(db, "first", criteria=["meaning"])
        ops.create_study(db, "second", criteria=["meaning"])
    (tmp_path / "candidates.csv").write_text("item,source,candidate,system\n0,a b,a c,beam\n", encoding="utf-8")
    (tmp_path / "judgments.csv").write_text("item,annotator,criterion,value\n1,ann,meaning,yes\n", encoding="utf-8")
    return path


def _argv(command: str, tmp_path, db) -> list[str]:
    files = {"DB": str(db), "CANDIDATES": str(tmp_path / "candidates.csv"),
             "JUDGMENTS": str(tmp_path / "judgments.csv"), "OUT": str(tmp_path / "out")}
    return [files.get(word, word) for word in COMMANDS[command]]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_database_of_several_studies_and_no_study_named_is_one_clear_error(command, two_studies, tmp_path,
                                                                            capsys):
    assert main(_argv(command, tmp_path, two_studies)) == 1
    err = capsys.readouterr().err
    assert err.startswith("parastudio: error: the database holds 2 studies") and err.count("\n") == 1
    assert err.endswith("; name one with --study\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_study_the_database_does_not_hold_is_named_in_the_error(command, two_studies, tmp_path, capsys):
    assert main([*_argv(command, tmp_path, two_studies), STUDY_FLAG.get(command, "--study"), "third"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("parastudio: error: no study named 'third' in ") and err.count("\n") == 1
