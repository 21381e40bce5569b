"""Every command that reads a file, given a named pipe instead (issue 22, Deliver 3).

A pipe gives its bytes once. A command that reads its input in one pass reads
the pipe as it reads a file, and prints what it prints for the file; one that
must read it twice refuses it with ``FILE: expected a regular file (it is read
twice)``. Never a hang (a second open of a pipe waits for a writer that never
comes), never a silent empty result (``rules: 0`` for a table that has rules),
never "not found". A writer thread feeds the pipe; in the second case it opens it
and closes it without writing. The time limit of ``run`` is a safety net only:
the assertions are about the exit status and the output.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from pathlib import Path
from typing import Callable

import pytest

from tests.test_output_targets import SAFETY_NET_SECONDS, files, pristine, run  # noqa: F401 (fixtures)

PIPE_SAFETY_NET = 60  # seconds; a hang fails the test, nothing is timed
READ_TWICE = "expected a regular file (it is read twice)"

# name -> (arguments given the inputs and the path read, the input given as a pipe, standard input)
READERS: dict[str, tuple[Callable[[dict, Path], list[str]], str, str | None]] = {
    "table stats": (lambda f, p: ["table", "stats", str(p)], "table", None),
    "table prune": (lambda f, p: ["table", "prune", str(p), "--list", str(f["prune"]), "-o", str(f["dir"] / "o.txt")],
                    "table", None),
    "table prune --list": (lambda f, p: ["table", "prune", str(f["table"]), "--list", str(p), "-o",
                                         str(f["dir"] / "o.txt")], "prune", None),
    "truescore": (lambda f, p: ["truescore", "--table", str(p), "--source", "the dog", "--target", "the beast"],
                  "table", None),
    "lm train": (lambda f, p: ["lm", "train", str(p), "--order", "2", "--discount-fallback", "-o",
                               str(f["dir"] / "lm.bin")], "corpus", None),
    "lm score": (lambda f, p: ["lm", "score", str(p)], "lm", "sentences"),
    "pivot": (lambda f, p: ["pivot", str(p), "-o", str(f["dir"] / "para.txt")], "phrases", None),
    "report": (lambda f, p: ["report", str(p), "--bootstrap", "0"], "judgments", None),
    "agreement": (lambda f, p: ["agreement", str(p), "--bootstrap", "0"], "judgments", None),
    "signtest": (lambda f, p: ["signtest", str(p), "--system-a", "beam", "--system-b", "mcpg-true"], "scores", None),
    "study import-judgments": (lambda f, p: ["study", "import-judgments", "--db", str(f["study"]), str(p)],
                               "judgments", None),
    "study import-candidates": (lambda f, p: ["study", "import-candidates", "--db", str(f["study"]), str(p),
                                              "--format", "jsonl"], "candidates", None),
    "generate --table": (lambda f, p: ["generate", "--system", "beam", "--table", str(p), "--lm", str(f["lm"]),
                                       "--processes", "1"], "table", "sentences"),
    "generate --lm": (lambda f, p: ["generate", "--system", "beam", "--table", str(f["table"]), "--lm", str(p),
                                    "--processes", "1"], "lm", "sentences"),
    "graph load": (lambda f, p: ["graph", "load", str(p), "-o", str(f["dir"] / "g.sqlite")], "graph", None),
    "suggest --graph": (lambda f, p: ["suggest", "--graph", str(p), "--sentence", "0", "--span", "1", "2", "--lm",
                                      str(f["lm"])], "graph", None),
    "autoeval --cases": (lambda f, p: ["autoeval", "--approach", "approach-1", "--cases", str(p), "--graph",
                                       str(f["store"]), "--lm", str(f["lm"])], "cases", None),
    "patterns stats": (lambda f, p: ["patterns", "stats", str(p)], "patterns", None),
    "patterns rescore": (lambda f, p: ["patterns", "rescore", str(p), "--paper", "-o", str(f["dir"] / "r.txt")],
                         "patterns", None),
    "tune --devset": (lambda f, p: ["tune", "--devset", str(p), "--system", "pivot", "--table", str(f["pivot-table"]),
                                    "--objective", "f1", "--restarts", "1", "--heldout", "0", "-o",
                                    str(f["dir"] / "w.json"), "--json"], "devset", None),
}


@pytest.fixture
def inputs(files):
    """The writers' inputs and a few more: a judgments CSV, a scores CSV, a candidates file."""
    from parastudio.core.cli import main

    with contextlib.redirect_stderr(None), contextlib.redirect_stdout(None):
        assert main(["study", "export-judgments", "--db", str(files["study"]), "-o", str(files["dir"] / "j.csv")]) == 0
        assert main(["study", "export-scores", str(files["study"]), "--criterion", "meaning", "-o",
                     str(files["dir"] / "scores.csv")]) == 0
    (files["dir"] / "candidates.jsonl").write_text(
        '{"sentence_id": 9, "system": "beam", "rank": 1, "text": "a dog runs", "source": "the dog runs"}\n',
        encoding="utf-8")
    return {**files, "judgments": files["dir"] / "j.csv", "scores": files["dir"] / "scores.csv",
            "candidates": files["dir"] / "candidates.jsonl"}


def _copy(inputs: dict, folder: Path) -> dict:
    shutil.copytree(inputs["dir"], folder)
    return {key: folder / path.relative_to(inputs["dir"]) for key, path in inputs.items() if key != "dir"} | {
        "dir": folder}


def _feed(pipe: Path, data: bytes) -> threading.Thread:
    def write():
        with contextlib.suppress(BrokenPipeError), open(pipe, "wb") as stream:
            stream.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _release(pipe: Path, writer: threading.Thread) -> None:
    """A writer still waiting for a reader (the command never opened the pipe): open it once so it goes."""
    if writer.is_alive():
        descriptor = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
        writer.join(SAFETY_NET_SECONDS)
        os.close(descriptor)
    writer.join(SAFETY_NET_SECONDS)


def _through_pipe(inputs: dict, name: str, data: bytes, tmp_path: Path) -> tuple[int, str, str, Path]:
    argv, key, stdin = READERS[name]
    pipe = tmp_path / f"pipe{Path(inputs[key]).suffix}"
    os.mkfifo(pipe)
    writer = _feed(pipe, data)
    try:
        status, out, err = run(argv(inputs, pipe), inputs[stdin].read_bytes() if stdin else b"", PIPE_SAFETY_NET)
    finally:
        _release(pipe, writer)
    return status, out, err, pipe


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_pipe_is_read_as_a_stream_or_refused_never_a_hang(inputs, tmp_path, name):
    argv, key, stdin = READERS[name]
    twin = _copy(inputs, tmp_path / "twin")  # the file run's own inputs: an import changes its study
    expected = run(argv(twin, twin[key]), twin[stdin].read_bytes() if stdin else b"")
    assert expected[0] == 0, expected[2]
    status, out, err, pipe = _through_pipe(inputs, name, inputs[key].read_bytes(), tmp_path)
    assert "Traceback" not in err and "not found" not in err and "No such file" not in err, err
    if status == 0:
        assert out.replace(str(pipe), str(twin[key])).replace(str(inputs["dir"]), str(twin["dir"])) == expected[1]
    else:
        assert status == 2 and f"{pipe}: {READ_TWICE}" in err, err


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_pipe_closed_without_a_byte_gets_an_answer(inputs, tmp_path, name):
    status, out, err, _pipe = _through_pipe(inputs, name, b"", tmp_path)
    assert "Traceback" not in err and "not found" not in err and "No such file" not in err, err
    assert status == 0 or "error" in err, err


def test_table_stats_of_a_table_through_a_pipe_counts_its_rules(inputs, tmp_path):
    status, out, err, _pipe = _through_pipe(inputs, "table stats", inputs["table"].read_bytes(), tmp_path)
    assert status == 0, err
    assert "rules: 3" in out
