"""The CLI starts without the libraries only some commands need (issue 17: start-up).

`parastudio --help` and a command's own parsing import neither the store
(SQLAlchemy), nor the tokenizer (sacremoses), nor the app (Qt), nor numpy;
those load when a command that uses them runs. Checked in a fresh interpreter,
since this test process has imported all of them already.
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

HEAVY = ("sqlalchemy", "sacremoses", "PySide6", "numpy", "desktop.app", "core.store.operations", "matplotlib")

PROBE = """
import contextlib, io, json, sys
from core.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def loaded_after(argv: list[str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_help_imports_no_store_tokenizer_app_or_numpy():
    assert loaded_after(["--help"]) == []


def test_a_command_parses_without_what_other_commands_need():
    assert loaded_after(["study", "create", "--help"]) == []
    assert loaded_after(["generate", "--help"]) == []


def test_a_command_that_needs_the_store_loads_it(tmp_path):
    assert "sqlalchemy" in loaded_after(["study", "progress", "--db", str(tmp_path / "missing.sqlite")])


LISTED_ONLY = ("core.evaldata.build", "core.experiments.mcpg_vs_beam", "core.experiments.seed001_approaches",
               "core.engine.generation", "core.engine.paraphrase_table", "core.engine.truescore",
               "core.engine.kenlm_tools")


def loaded_of(argv: list[str], names: tuple[str, ...]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=names)], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_listing_the_commands_imports_none_of_the_modules_that_run_them():
    assert loaded_of(["--help"], LISTED_ONLY) == []


def test_a_subcommand_loads_its_own_arguments_when_it_is_used():
    assert "core.experiments.mcpg_vs_beam" in loaded_of(["experiment", "mcpg-vs-beam", "--help"], LISTED_ONLY)
    assert "core.evaldata.build" in loaded_of(["data", "build", "--help"], LISTED_ONLY)
    assert "core.engine.generation" in loaded_of(["generate", "--help"], LISTED_ONLY)
