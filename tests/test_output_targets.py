"""Every command that writes a file, through every kind of output path (issue 22, Deliver 2).

``WRITERS`` lists each command and output option that writes; a new one must be
added here (:func:`test_every_output_option_is_in_the_table` reads the parser and
fails on one that is missing). Each writer runs, in process, through each case:

* ``same``, ``symlink``, ``hardlink``: the output is one of the command's inputs,
  named as it is, through a symlink, or through a hard link: exit 2, ``is also an
  input of this command``, the input's bytes untouched;
* ``fifo``: the output is a named pipe read by a thread: it stays a pipe and the
  reader gets the bytes a regular file would hold;
* ``device``: a character device made with ``os.mknod`` (major/minor of
  /dev/null, in the test's folder): it stays that device;
* ``link``: the output is a symlink to a file in another folder: the target is
  written, the link kept, no temporary left in either folder;
* ``stdout``: ``-`` is standard output for a writer of text; a writer of a binary
  file refuses it (exit 2).

A folder writer (``export-devset --format hf``, ``report --plots``) refuses a
pipe, a device and ``-`` (exit 2, the node untouched) and writes a symlink's
target folder.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import select
import shutil
import signal
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
from conftest import toy_corpus

from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from tests.cat_graph_fixture import GRAPH

ARPA = ("\\data\\\nngram 1=5\nngram 2=3\n\n\\1-grams:\n-1.0\t<unk>\t0\n-99\t<s>\t-0.3\n-0.7\t</s>\t0\n"
        "-0.5\tthe\t-0.3\n-0.6\tdog\t-0.2\n\n\\2-grams:\n-0.2\t<s> the\n-0.3\tthe dog\n-0.1\tdog </s>\n\n\\end\\\n")
SAFETY_NET_SECONDS = 300  # a hang fails the test; nothing is timed
CASES = ("same", "symlink", "hardlink", "fifo", "device", "link", "stdout")


@dataclass(frozen=True)
class Writer:
    """A command that writes: its arguments given the inputs and the output path, the input it may not write
    over, its output's file name, and what it writes."""

    argv: Callable[[dict, Path], list[str]]
    input: str | None  # the key of the input given as the output in the same/symlink/hardlink cases
    name: str = "out.txt"
    text: bool = True  # "-" is standard output
    same_bytes: bool = True  # two runs write the same bytes (no time or date inside)
    folder: bool = False  # the output is a folder
    stdin: str | None = None
    option: str = "--output"  # the option (dest) that names the output, for the completeness check


WRITERS: dict[str, Writer] = {
    "study export-judgments -o": Writer(lambda f, o: ["study", "export-judgments", "--db", str(f["study"]),
                                                      "-o", str(o)], "study"),
    "study export-package -o": Writer(lambda f, o: ["study", "export-package", "--db", str(f["study"]),
                                                    "--annotator", "a", "-o", str(o)], "study", "out.sqlite",
                                      text=False, same_bytes=False),
    "study export-scores -o": Writer(lambda f, o: ["study", "export-scores", str(f["study"]), "--criterion",
                                                   "meaning", "-o", str(o)], "study"),
    "study items -o": Writer(lambda f, o: ["study", "items", str(f["study"]), "--format", "csv", "-o", str(o)],
                             "study"),
    "export-devset -o": Writer(lambda f, o: ["export-devset", str(f["study"]), "--aggregate", "majority",
                                             "-o", str(o)], "study"),
    "export-devset --format hf -o": Writer(lambda f, o: ["export-devset", str(f["study"]), "--aggregate",
                                                         "majority", "--format", "hf", "-o", str(o)],
                                           "study", "devset", folder=True),
    "report -o": Writer(lambda f, o: ["report", str(f["study"]), "--bootstrap", "0", "-o", str(o)], "study"),
    "report --plots": Writer(lambda f, o: ["report", str(f["study"]), "--bootstrap", "0", "--plots", str(o)],
                             "study", "plots", folder=True, same_bytes=False, option="plots"),
    "table prune -o": Writer(lambda f, o: ["table", "prune", str(f["table"]), "--list", str(f["prune"]),
                                           "-o", str(o)], "table"),
    "table binarize": Writer(lambda f, o: ["table", "binarize", str(o.with_suffix(""))], None, "t.txt.pstable",
                             text=False, same_bytes=False, option="table"),
    "patterns rescore -o": Writer(lambda f, o: ["patterns", "rescore", str(f["patterns"]), "--paper", "-o", str(o)],
                                  "patterns"),
    "tune -o": Writer(lambda f, o: ["tune", "--devset", str(f["devset"]), "--system", "pivot", "--table",
                                    str(f["pivot-table"]), "--objective", "f1", "--restarts", "1", "--heldout", "0",
                                    "-o", str(o)], "devset", same_bytes=False),
    "tune --table-out": Writer(lambda f, o: ["tune", "--devset", str(f["devset"]), "--system", "pivot", "--table",
                                             str(f["pivot-table"]), "--objective", "f1", "--restarts", "1",
                                             "--heldout", "0", "-o", str(f["dir"] / "w.json"), "--table-out",
                                             str(o)], "pivot-table", option="table_out"),
    "lm train -o": Writer(lambda f, o: ["lm", "train", str(f["corpus"]), "--order", "2", "--discount-fallback",
                                        "-o", str(o)], "corpus", "out.bin", text=False),
    "lm train --arpa": Writer(lambda f, o: ["lm", "train", str(f["corpus"]), "--order", "2", "--discount-fallback",
                                            "-o", str(f["dir"] / "lm.bin"), "--arpa", str(o)], "corpus",
                              "out.arpa", option="arpa"),
    "graph load -o": Writer(lambda f, o: ["graph", "load", str(f["graph"]), "-o", str(o)], "graph", "out.sqlite",
                            text=False),
    "pivot -o": Writer(lambda f, o: ["pivot", str(f["phrases"]), "-o", str(o)], "phrases"),
    "generate -o": Writer(lambda f, o: ["generate", "--system", "beam", "--table", str(f["table"]), "--lm",
                                        str(f["lm"]), "--json", "--processes", "1", "-o", str(o)], "table",
                          same_bytes=False, stdin="sentences"),
    "generate --search-graph": Writer(lambda f, o: ["generate", "--system", "beam", "--table", str(f["table"]),
                                                    "--lm", str(f["lm"]), "--processes", "1", "--search-graph",
                                                    str(o), "-o", str(f["dir"] / "candidates.txt")], "lm",
                                      stdin="sentences", option="search_graph"),
    "inspect-rules --prune-list": Writer(lambda f, o: ["inspect-rules", str(f["study"]), "--prune-list", str(o)],
                                         "study", option="prune_list"),
    "autoeval --details": Writer(lambda f, o: ["autoeval", "--approach", "approach-1", "--cases", str(f["cases"]),
                                               "--graph", str(f["store"]), "--lm", str(f["lm"]), "--details", str(o)],
                                 "cases", same_bytes=False, option="details"),
    "metrics -o": Writer(lambda f, o: ["metrics", str(f["study"]), "-o", str(o)], "study"),
    "metaeval -o": Writer(lambda f, o: ["metaeval", str(f["study"]), "--criterion", "meaning", "--bootstrap", "20",
                                        "--permutations", "20", "-o", str(o)], "study"),
    "autoeval --plot": Writer(lambda f, o: ["autoeval", "--approach", "approach-1", "--cases", str(f["cases"]),
                                            "--graph", str(f["store"]), "--lm", str(f["lm"]), "--plot", str(o)],
                              "cases", "out.png", text=False, option="plot"),
}

# Options that name something written which is not an output file of the kind above, and why.
NOT_OUTPUT_FILES = {
    ("data", "build", "out"): "the evaldata folder the build stages fill, under names of their own",
    ("patterns", "build", "out"): "the evaldata folder the build stages fill",
    ("pivot", "temp_dir"): "DuckDB's work folder, removed at the end",
    ("study", "create", "db"): "the study database itself, created or opened",
    ("patterns", "study", "db"): "the study database itself, created or opened",
    ("study", "invite", "output"): "a member's connection file: a credential, written 0600 through the same door "
                                   "(atomic_output); its cases need the PostgreSQL server and are in "
                                   "test_study_roles_postgres.py",
}
OUTPUT_DESTS = {"output", "details", "plot", "plots", "search_graph", "prune_list", "table_out", "arpa", "out",
                "output_dir", "temp_dir"}


def _digest(path: Path) -> str:
    if path.is_dir():
        return ";".join(f"{p.relative_to(path)}:{_digest(p)}" for p in sorted(path.rglob("*")) if p.is_file())
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def files(pristine, tmp_path):
    """A copy of the inputs for one test: a writer that destroys one (the defect looked for) spoils no other test."""
    copy = tmp_path / "inputs"
    shutil.copytree(pristine["dir"], copy)
    return {key: copy / path.relative_to(pristine["dir"]) for key, path in pristine.items() if key != "dir"} | {
        "dir": copy}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """Small real inputs for every writer: a judged study, tables, an LM, a corpus, a graph, cases."""
    from parastudio.core.engine.decoders.cat.graph_store import GraphStore
    from parastudio.core.tablebuild.patterns.table_file import MLE_LAMBDAS, scored_pair, write_table

    directory = tmp_path_factory.mktemp("inputs")
    rng = random.Random(22)
    words, pivots = [f"w{i}" for i in range(80)], [f"p{i}" for i in range(20)]
    lines = {f"{rng.choice(words)} ||| {rng.choice(pivots)} ||| " + " ".join(f"{rng.uniform(0.01, 1):.4f}"
                                                                        for _ in range(4)) for _ in range(600)}
    (directory / "phrases.txt").write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    (directory / "table.txt").write_text("the dog ||| the beast ||| 0.8\nthe ||| a ||| 0.3\n"
                                         "dog ||| hound ||| 0.2\n", encoding="utf-8")
    (directory / "prune.txt").write_text("dog ||| hound\n", encoding="utf-8")
    (directory / "lm.arpa").write_text(ARPA, encoding="utf-8")
    (directory / "sentences.txt").write_text("the dog runs after the cat\nthe dog\n", encoding="utf-8")
    (directory / "corpus.txt").write_text("\n".join(toy_corpus(seed=22, sentences=200)) + "\n", encoding="utf-8")
    pairs = sorted({(f"[NN_1] w{rng.randrange(50)}", f"w{rng.randrange(50)} [NN_1]") for _ in range(100)})
    write_table((scored_pair(e1, e2, [(f"p{rng.randrange(9)}", [-rng.uniform(0.1, 4) for _ in range(4)])],
                             MLE_LAMBDAS) for e1, e2 in pairs), directory / "patterns.txt", {})
    pivot_lines, records = [], []
    for index in range(30):
        h = [-rng.uniform(0.1, 3) for _ in range(4)]
        pivot_lines.append(f"w{index} ||| w{index + 100} ||| 0.1 " + " ".join(f"{v:.4f}" for v in h))
        records.append({"id": str(index), "source": f"w{index}", "candidate": f"w{index + 100}", "derivation": [],
                        "judgments": [], "replacements": [{"source": f"w{index}", "target": f"w{index + 100}",
                                                           "src": [0, 1], "tgt": [0, 1],
                                                           "label": "correct" if h[1] > -1.5 else "incorrect"}]})
    (directory / "pivot-table.txt").write_text("\n".join(pivot_lines) + "\n", encoding="utf-8")
    (directory / "devset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (directory / "graph.txt").write_text(GRAPH, encoding="utf-8")
    GraphStore.build(directory / "store.sqlite", [directory / "graph.txt"]).close()
    (directory / "cases.jsonl").write_text(json.dumps({
        "id": "c1", "sentence_id": 0, "source": "a b c d e", "sentence": "indiana became the first state .",
        "span": [1, 3], "gold": "was the"}) + "\n", encoding="utf-8")
    study = directory / "study.sqlite"
    with open_database(study, create=True) as db:
        _judged_study(db)
    return {"dir": directory, "study": study, **{key: directory / name for key, name in (
        ("phrases", "phrases.txt"), ("table", "table.txt"), ("prune", "prune.txt"), ("lm", "lm.arpa"),
        ("sentences", "sentences.txt"), ("corpus", "corpus.txt"), ("patterns", "patterns.txt"),
        ("pivot-table", "pivot-table.txt"), ("devset", "devset.jsonl"), ("graph", "graph.txt"),
        ("store", "store.sqlite"), ("cases", "cases.jsonl"))}}


def _judged_study(db) -> None:
    """Six sentences, two systems, two judges; 'dog -> hound' in every rejected candidate."""
    study = ops.create_study(db, "outputs", criteria=["meaning"])
    rows = []
    for s in range(6):
        source = f"the dog runs home {s}".split()
        for system, (at, word) in (("beam", (1, "hound") if s < 4 else (2, "walks")), ("mcpg-true", (2, "walks"))):
            derivation = [{"src": [i, i + 1], "tgt": [i, i + 1], "source": w, "target": word if i == at else w,
                           "p": 0.2 if i == at else 1.0, "identity": i != at} for i, w in enumerate(source)]
            rows.append(ops.CandidateRow(sentence_id=str(s), text=" ".join(d["target"] for d in derivation),
                                         system=system, source=" ".join(source), derivation=derivation,
                                         model_score=-3.0, true_score=-2.5))
    ops.import_candidates(db, study, rows)
    ops.assign(db, study, ["a", "b"])
    for name in ("a", "b"):
        annotator = ops.find_annotator(db, study, name)
        while (item := ops.next_item(db, annotator)) is not None:
            ops.record_judgment(db, item.assignment_id, "no" if "hound" in item.candidate else "yes")


class _Hang(Exception):
    pass


def run(argv: list[str], stdin: bytes = b"", seconds: float = SAFETY_NET_SECONDS) -> tuple[int, str, str]:
    """``parastudio argv`` in this process: (exit status, stdout, stderr); a hang past the safety net raises."""
    import sys

    from parastudio.core.cli import main

    def expire(_signum, _frame):
        raise _Hang(f"parastudio {' '.join(argv)} did not return")

    out, err = io.StringIO(), io.StringIO()
    saved_stdin, previous = sys.stdin, signal.signal(signal.SIGALRM, expire)
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.BytesIO(stdin)), encoding="utf-8")
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else 2
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin = saved_stdin
    return status, out.getvalue(), err.getvalue()


def _run_writer(writer: Writer, files: dict, output: Path) -> tuple[int, str, str]:
    if writer is WRITERS["table binarize"]:  # it writes beside its table
        shutil.copyfile(files["table"], output.with_suffix(""))
    stdin = files[writer.stdin].read_bytes() if writer.stdin else b""
    return run(writer.argv(files, output), stdin)


@pytest.fixture
def regular(files, tmp_path):
    """What a writer writes to a regular file from this test's inputs (bytes, or the files of a folder)."""
    cache = {}

    def written(name: str):
        if name not in cache:
            writer = WRITERS[name]
            folder = tmp_path / "regular"
            folder.mkdir()
            output = folder / writer.name
            status, _out, err = _run_writer(writer, files, output)
            assert status == 0, err
            cache[name] = _digest(output) if writer.folder else output.read_bytes()
        return cache[name]

    return written


def _read_fifo(path: Path, into: list, done: threading.Event) -> threading.Thread:
    """Read the pipe ``path`` in a thread until the command has returned and the pipe is empty. Its read end
    is opened here, so a writer never waits to open it; a pipe replaced by a file is then read as empty."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)

    def read():
        chunks = []
        try:
            while True:
                select.select([descriptor], [], [], 1.0)
                try:
                    data = os.read(descriptor, 1 << 16)
                except BlockingIOError:  # a writer holds it, with nothing written yet
                    continue
                if data:
                    chunks.append(data)
                elif done.is_set():  # no writer and the command has returned: every byte is in
                    break
                else:
                    done.wait(0.05)  # no writer yet, or between two
        finally:
            os.close(descriptor)
            into.append(b"".join(chunks))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


# A plot's name must end in .png or .svg: an input of another name given as a plot is refused for that first.
PLOT_NAME = "a plot is written as .png or .svg"


def _assert_refused(status: int, err: str) -> None:
    assert status == 2, err
    assert ("is also an input of this command" in err and "choose another output" in err) or PLOT_NAME in err, err
    assert "Traceback" not in err


def _case_parameters():
    for name, writer in WRITERS.items():
        for case in CASES:
            if writer.input is None and case in ("same", "symlink", "hardlink", "stdout"):
                continue  # its output is named after its input (T -> T.pstable): never the input, never "-"
            yield pytest.param(name, case, id=f"{name}-{case}")


@pytest.mark.parametrize("name, case", list(_case_parameters()))
def test_every_writer_through_every_kind_of_output(files, regular, tmp_path, name, case):
    writer = WRITERS[name]
    if case in ("same", "symlink", "hardlink"):
        given = files[writer.input]
        before = _digest(given)
        suffix = Path(writer.name).suffix  # a link named as the output would be (a plot's .png)
        output = {"same": given, "symlink": tmp_path / f"link{suffix}", "hardlink": tmp_path / f"hard{suffix}"}[case]
        if case == "symlink":
            output.symlink_to(given)
        elif case == "hardlink":
            os.link(given, output)
        status, _out, err = _run_writer(writer, files, output)
        _assert_refused(status, err)
        assert _digest(given) == before
        assert case != "symlink" or (output.is_symlink() and output.resolve() == given.resolve())
        return
    if case == "fifo":
        output = tmp_path / writer.name
        os.mkfifo(output)
        received: list[bytes] = []
        done = threading.Event()
        reader = _read_fifo(output, received, done) if not writer.folder else None
        status, _out, err = _run_writer(writer, files, output)
        done.set()
        if reader is not None:
            reader.join(SAFETY_NET_SECONDS)
        assert stat.S_ISFIFO(os.lstat(output).st_mode), f"{name} replaced the pipe"
        if writer.folder:
            assert status == 2 and "is not a folder" in err, err
            return
        assert status == 0, err
        assert received and received[0], f"{name} wrote nothing into the pipe"
        if writer.same_bytes:
            assert received[0] == regular(name)
        return
    if case == "device":
        output = tmp_path / writer.name
        os.mknod(output, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        status, _out, err = _run_writer(writer, files, output)
        node = os.lstat(output)
        assert stat.S_ISCHR(node.st_mode) and node.st_rdev == os.makedev(1, 3), f"{name} replaced the device"
        assert (status == 2 and "is not a folder" in err) if writer.folder else status == 0, err
        return
    if case == "link":
        elsewhere = tmp_path / "target-folder"
        elsewhere.mkdir()
        target = elsewhere / writer.name
        if writer.folder:
            target.mkdir()
            (target / "devset.jsonl").write_bytes(b"{}\n")  # a previous dev set's folder
        else:
            target.write_bytes(b"the previous output\n")
        previous = _digest(target) if writer.folder else target.read_bytes()
        links = tmp_path / "links"
        links.mkdir()
        output = links / writer.name
        output.symlink_to(target, target_is_directory=writer.folder)
        status, _out, err = _run_writer(writer, files, output)
        assert status == 0, err
        assert output.is_symlink() and output.resolve() == target.resolve(), f"{name} replaced the symlink"
        written = _digest(target) if writer.folder else target.read_bytes()
        if writer.same_bytes:
            assert written == regular(name)
        else:
            assert written and written != previous
        # The temporary was made beside the target and renamed there: nothing left in either folder.
        assert [p.name for p in elsewhere.iterdir() if p.name.endswith(".part")] == []
        beside = {"table binarize": ["t.txt"], "patterns rescore -o": ["out.txt.json"]}.get(name, [])
        assert sorted(p.name for p in links.iterdir()) == sorted([writer.name, *beside])
        return
    status, out, err = _run_writer(writer, files, Path("-"))  # case "stdout"
    assert "Traceback" not in err
    assert not Path("-").exists(), f"{name} wrote a file named '-'"
    if writer.text and not writer.folder:
        assert status == 0, err
        assert regular(name).decode("utf-8") in out if writer.same_bytes else out.strip()
    else:
        assert status == 2 and any(why in err for why in ("standard output takes text", "is not a folder",
                                                          PLOT_NAME)), err


def _output_options(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                yield from _output_options(sub, (*words, word))
        elif action.dest in OUTPUT_DESTS or "-o" in action.option_strings:
            yield (*words, action.dest)


def test_every_output_option_is_in_the_table():
    from parastudio.core.cli import build_parser

    listed = set(NOT_OUTPUT_FILES)
    for name, writer in WRITERS.items():
        command = [word for word in name.split() if not word.startswith("-")]
        listed.add((*command, writer.option.lstrip("-").replace("-", "_")))
    found = {option for option in _output_options(build_parser(["table"]))
             if option[0] != "experiment"}  # experiments write their results folder (evaldata/results)
    assert found - listed == set(), "a command writes a file this test does not run through every case"


def test_standard_output_named_by_a_link_to_its_descriptor_is_written_not_replaced(files, tmp_path):
    """``-o /dev/stdout`` names the descriptor already open. The link is made in the test's folder (to
    /proc/self/fd/1, as /dev/stdout is): a writer that replaced it must not replace the machine's own."""
    import subprocess
    import sys

    from conftest import ROOT

    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    completed = subprocess.run([sys.executable, "-m", "parastudio", "study", "export-judgments", "--db",
                                str(files["study"]), "-o", str(link)], cwd=ROOT, capture_output=True,
                               timeout=SAFETY_NET_SECONDS, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith(b"item,annotator,criterion,value")
    assert link.is_symlink()


@pytest.mark.parametrize("companion", ["-wal", "-shm", "-journal"])
def test_a_study_input_s_sqlite_companions_are_not_outputs(files, companion):
    """SQLite keeps a study's log beside it (S-wal, S-shm, S-journal): writing one would hand SQLite a log
    that is not its own. Refused by name (the study is not opened to tell), also through a sqlite:/// URL."""
    study = files["study"]
    before = _digest(study)
    for given in (str(study), f"sqlite:///{study}"):
        status, _out, err = run(["study", "export-judgments", "--db", given, "-o", f"{study}{companion}"])
        assert status == 2 and f"is the {companion} file of an input of this command" in err, err
    assert _digest(study) == before


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_a_replaced_output_keeps_the_mode_of_the_file_it_replaces(tmp_path, mode):
    """Issue 39: a `chmod 600` export stays private after the next `-o` to it; a new file gets the umask's."""
    import stat as stat_module

    from parastudio.core.textio import atomic_output

    target = tmp_path / "export.csv"
    target.write_text("old\n")
    os.chmod(target, mode)
    with atomic_output(target) as handle:
        handle.write("new\n")
    assert stat_module.S_IMODE(os.stat(target).st_mode) == mode and target.read_text() == "new\n"
    fresh = tmp_path / "fresh.csv"
    umask = os.umask(0o022)
    try:
        with atomic_output(fresh) as handle:
            handle.write("x\n")
    finally:
        os.umask(umask)
    assert stat_module.S_IMODE(os.stat(fresh).st_mode) == 0o644
    with atomic_output(target, file_mode=0o600) as handle:  # a credential: private whatever was there
        handle.write("secret\n")
    assert stat_module.S_IMODE(os.stat(target).st_mode) == 0o600
