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

HEAVY = ("sqlalchemy", "sacremoses", "PySide6", "numpy", "parastudio.desktop.app", "parastudio.core.store.operations", "matplotlib")

PROBE = """
import contextlib, io, json, sys
from parastudio.core.cli import main
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


LISTED_ONLY = ("parastudio.core.evaldata.build", "parastudio.core.experiments.mcpg_vs_beam", "parastudio.core.experiments.seed001_approaches",
               "parastudio.core.engine.candidates.generation", "parastudio.core.engine.tables.paraphrase_table", "parastudio.core.engine.model.truescore",
               "parastudio.core.engine.lm.kenlm_tools")


def loaded_of(argv: list[str], names: tuple[str, ...]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=names)], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_listing_the_commands_imports_none_of_the_modules_that_run_them():
    assert loaded_of(["--help"], LISTED_ONLY) == []


def test_a_subcommand_loads_its_own_arguments_when_it_is_used():
    assert "parastudio.core.experiments.mcpg_vs_beam" in loaded_of(["experiment", "mcpg-vs-beam", "--help"], LISTED_ONLY)
    assert "parastudio.core.evaldata.build" in loaded_of(["data", "build", "--help"], LISTED_ONLY)
    assert "parastudio.core.engine.candidates.generation" in loaded_of(["generate", "--help"], LISTED_ONLY)


PROBE_WITH_INPUT = """
import contextlib, io, json, sys
from parastudio.core.cli import main
sys.stdin = io.StringIO({text!r})
with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass
print(json.dumps([out.getvalue(), sorted(m for m in {names!r} if m in sys.modules)]))
"""

POOL_AND_TEMPORARIES = ("multiprocessing", "socket", "uuid")


def run_with_input(argv: list[str], text: str, names: tuple[str, ...]) -> tuple[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE_WITH_INPUT.format(argv=argv, text=text, names=names)],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    return tuple(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_generate_in_one_process_loads_neither_a_pool_nor_temporary_naming(tmp_path):
    """A whole generate at stack 5 is about as long as Moses' start-up (docs/BENCHMARKS.md): a run in one process
    that prints its candidates imports no multiprocessing, and socket and uuid only when it names a temporary
    (after the first run, which writes the table's binary form and records the inputs' sha256)."""
    table = tmp_path / "table.txt"
    table.write_text("dog ||| hound ||| 0.5\n", encoding="utf-8")
    argv = ["generate", "--system", "beam", "--table", str(table), "--lm", str(ROOT / "evaldata/demo/lm.bin"),
            "--stack-size", "5"]
    run_with_input([*argv, "--processes", "1"], "the dog runs\n", ())  # a first run records the inputs' sha256
    printed, loaded = run_with_input([*argv, "--processes", "1"], "the dog runs\n", POOL_AND_TEMPORARIES)
    assert printed.startswith("0 ||| ") and loaded == []
    output = tmp_path / "out.txt"
    _, loaded = run_with_input([*argv, "--processes", "1", "-o", str(output)], "the dog runs\n", POOL_AND_TEMPORARIES)
    assert output.read_text(encoding="utf-8") == printed and "socket" in loaded  # the temporary names its writer
    _, loaded = run_with_input([*argv, "--processes", "2"], "the dog runs\n" * 8, POOL_AND_TEMPORARIES)
    assert "multiprocessing" in loaded
