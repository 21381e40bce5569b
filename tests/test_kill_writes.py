"""Commands that write a file, killed or starved of disk (issue 18): never a half-written output.

* SIGKILL mid-write: the command runs in its own process group, killed the
  moment its temporary file appears beside the output (so the kill lands
  while it writes); the output is then the previous complete file, or none
  when there was none; the next complete run removes the killed writer's
  temporary. ``pivot`` is also killed while DuckDB works, before writing.
* The other writers (``report -o``, ``table prune -o``, ``table binarize``,
  ``patterns rescore -o``, ``tune -o``, ``export-devset -o``, ``lm train -o``,
  ``graph load -o``) write small outputs quickly, so their kill is not left to
  a race: SIGKILL comes at the moment the output would be renamed into place
  (:data:`KILL_AT_PUBLISH`), and on a full disk the tmpfs is filled first.
* ENOSPC: the output goes to a 64 KiB tmpfs (``mount -t tmpfs``, root only;
  the test is skipped with the reason otherwise); the command exits 1 with
  ``parastudio: error: ... No space left on device``, no traceback, and leaves
  nothing on the full disk.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, toy_corpus

from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database

PREVIOUS = b"the previous complete output\n"
ARPA = ("\\data\\\nngram 1=5\nngram 2=3\n\n\\1-grams:\n-1.0\t<unk>\t0\n-99\t<s>\t-0.3\n-0.7\t</s>\t0\n"
        "-0.5\tthe\t-0.3\n-0.6\tdog\t-0.2\n\n\\2-grams:\n-0.2\t<s> the\n-0.3\tthe dog\n-0.1\tdog </s>\n\n\\end\\\n")


def _command(argv: list[str], stdin: Path | None = None, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "parastudio", *argv], cwd=ROOT, start_new_session=True,
                            stdin=open(stdin, "rb") if stdin else subprocess.DEVNULL, **options)


def _temporaries(directory: Path, prefix: str) -> list[str]:
    if not directory.is_dir():
        return []
    return [entry.name for entry in os.scandir(directory) if entry.name.startswith(prefix)]


def kill_when(argv: list[str], directory: Path, prefix: str, stdin: Path | None = None) -> bool:
    """Run ``parastudio argv``; SIGKILL its process group once a name starting with ``prefix`` appears in
    ``directory``. True when the kill came then, False when the command ended first."""
    process = _command(argv, stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while process.poll() is None:
            if _temporaries(directory, prefix):
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                return True
            time.sleep(0.0002)
        return False
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def run(argv: list[str], stdin: Path | None = None) -> subprocess.CompletedProcess:
    process = _command(argv, stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=300)
    return subprocess.CompletedProcess(argv, process.returncode, out, err.decode("utf-8", "replace"))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A phrase table to pivot, sentences and a table to generate from, and a judged study to export."""
    directory = tmp_path_factory.mktemp("kill")
    rng = random.Random(18)
    words = [f"w{i}" for i in range(400)]
    pivots = [f"p{i}" for i in range(60)]
    lines = {f"{rng.choice(words)} {rng.choice(words)} ||| {rng.choice(pivots)} ||| "
             + " ".join(f"{rng.uniform(0.01, 1):.4f}" for _ in range(4)) for _ in range(6000)}
    (directory / "phrases.txt").write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    (directory / "table.txt").write_text("the dog ||| the beast ||| 0.8\nthe ||| a ||| 0.3\n", encoding="utf-8")
    (directory / "lm.arpa").write_text(ARPA, encoding="utf-8")
    (directory / "sentences.txt").write_text("the dog runs after the cat\n" * 3000, encoding="utf-8")
    study = directory / "study.sqlite"
    with open_database(study, create=True) as db:
        study_id = ops.create_study(db, "s", criteria=["fluency"])
        # Long system names: export-scores writes a row per sentence and system, more than the 64 KiB disk holds.
        rows = [ops.CandidateRow(sentence_id=str(i // 2), system=f"system-{i % 3}-{'with-a-long-name-' * 8}",
                                 text=f"candidate number {i} of the study", source=f"source sentence {i // 2}")
                for i in range(3000)]
        ops.import_candidates(db, study_id, rows)
        ops.assign(db, study_id, ["ann1", "ann2"])
        judgments = directory / "judgments.csv"
        judgments.write_text("item,annotator,criterion,value\n" + "".join(
            f"{item},{annotator},fluency,{rng.choice(['yes', 'no'])}\n"
            for item in range(1, 601) for annotator in ("ann1", "ann2")), encoding="utf-8")
        ops.import_judgments_csv(db, study_id, judgments)
    return {"dir": directory, "phrases": directory / "phrases.txt", "table": directory / "table.txt",
            "lm": directory / "lm.arpa", "sentences": directory / "sentences.txt", "study": study}


def _tokenize_stage_input(out: Path, verses: int) -> None:
    corpus = out / "build" / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    sentences = toy_corpus(seed=18, sentences=3 * verses)
    with open(corpus / "verses.jsonl", "w", encoding="utf-8") as handle:
        for i in range(verses):
            handle.write(json.dumps({"ref": f"Gen.{i // 30 + 1}.{i % 30 + 1}", "web": sentences[3 * i],
                                     "kjv": sentences[3 * i + 1], "rv": sentences[3 * i + 2]}) + "\n")


# (name, arguments given the inputs and the output path, the output's folder is the output's parent)
WRITERS = {
    "pivot": lambda i, out: ["pivot", str(i["phrases"]), "-o", str(out), "--top", "50"],
    "generate -o": lambda i, out: ["generate", "--system", "beam", "--table", str(i["table"]), "--lm", str(i["lm"]),
                                   "--json", "-o", str(out), "--processes", "1"],
    "study export-judgments": lambda i, out: ["study", "export-judgments", "--db", str(i["study"]), "-o", str(out)],
    "study export-package": lambda i, out: ["study", "export-package", "--db", str(i["study"]), "--annotator",
                                            "ann1", "-o", str(out)],
    "study export-scores": lambda i, out: ["study", "export-scores", str(i["study"]), "--criterion", "fluency",
                                           "-o", str(out)],
    "study items": lambda i, out: ["study", "items", str(i["study"]), "--format", "csv", "-o", str(out)],
}


KILLS = [(writer, True) for writer in sorted(WRITERS)] + [("generate -o", False)]


@pytest.mark.parametrize("writer, previous", KILLS, ids=[f"{w}-{'over-previous' if p else 'new'}" for w, p in KILLS])
def test_sigkill_while_writing_leaves_the_previous_output_or_none(inputs, tmp_path, writer, previous):
    output = tmp_path / "out" / ("package.sqlite" if "package" in writer else "output.txt")
    output.parent.mkdir()
    argv = WRITERS[writer](inputs, output)
    stdin = inputs["sentences"] if writer.startswith("generate") else None
    for _attempt in range(8):  # a short write can end between two looks; try again
        output.unlink(missing_ok=True)
        if previous:
            output.write_bytes(PREVIOUS)
        if kill_when(argv, output.parent, f".{output.name}.", stdin):
            break
    else:
        pytest.skip(f"{writer} always finished before its temporary file was seen; nothing was killed mid-write")
    assert (output.read_bytes() == PREVIOUS) if previous else not output.exists()
    assert _temporaries(output.parent, f".{output.name}.")  # the killed writer's, left where it died
    completed = run(argv, stdin)
    assert completed.returncode == 0, completed.stderr
    assert output.exists() and output.read_bytes() != PREVIOUS
    assert not _temporaries(output.parent, f".{output.name}.")  # the complete run removed the dead one's


def test_sigkill_while_duckdb_pivots_leaves_the_previous_table(inputs, tmp_path):
    output = tmp_path / "para.txt"
    output.write_bytes(PREVIOUS)
    argv = WRITERS["pivot"](inputs, output)
    if not kill_when(argv, tmp_path, ".pivot-"):
        pytest.skip("pivot finished before its DuckDB work folder was seen")
    assert output.read_bytes() == PREVIOUS
    assert run(argv).returncode == 0
    assert not _temporaries(tmp_path, ".pivot-")  # the next pivot removed the killed one's work folder


def test_sigkill_during_a_data_build_stage_leaves_the_previous_output(tmp_path):
    tokenized = tmp_path / "build" / "corpus" / "tokenized.jsonl"
    argv = ["data", "build", "--out", str(tmp_path), "--stages", "tokenize", "--jobs", "1", "--no-install"]
    for verses in (3000, 12000, 48000):  # enough verses for the write to be seen
        _tokenize_stage_input(tmp_path, verses)
        tokenized.write_bytes(PREVIOUS)
        if kill_when(argv, tokenized.parent, ".tokenized.jsonl."):
            break
    else:
        pytest.skip("the tokenize stage always finished before its temporary file was seen")
    assert tokenized.read_bytes() == PREVIOUS
    assert run(argv).returncode == 0
    rows = [json.loads(line) for line in tokenized.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == verses and all(row["web"] for row in rows)


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs, unmounted afterwards; skipped where mounting is not permitted."""
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount_point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill (needs root): {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def _assert_clear_disk_full(completed: subprocess.CompletedProcess, disk: Path) -> None:
    assert completed.returncode == 1, completed.stderr
    assert "Traceback" not in completed.stderr
    assert "parastudio" in completed.stderr and "No space left on device" in completed.stderr
    assert sorted(p.name for p in disk.iterdir()) == []  # no output, no temporary


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_full_disk_gives_a_clear_error_and_no_partial_file(inputs, full_disk, writer):
    output = full_disk / ("package.sqlite" if "package" in writer else "output.txt")
    stdin = inputs["sentences"] if writer.startswith("generate") else None
    _assert_clear_disk_full(run(WRITERS[writer](inputs, output), stdin), full_disk)


def test_a_data_build_stage_on_a_full_disk_gives_a_clear_error(full_disk, tmp_path):
    _tokenize_stage_input(tmp_path, 200)
    corpus = full_disk / "build" / "corpus"
    corpus.mkdir(parents=True)
    verses = (tmp_path / "build" / "corpus" / "verses.jsonl").read_bytes()
    assert len(verses) < 40_000
    (corpus / "verses.jsonl").write_bytes(verses)  # the input fits; the tokenized copy does not
    completed = run(["data", "build", "--out", str(full_disk), "--stages", "tokenize", "--jobs", "1",
                     "--no-install"])
    assert completed.returncode == 1 and "Traceback" not in completed.stderr, completed.stderr
    assert "No space left on device" in completed.stderr
    assert sorted(p.name for p in corpus.iterdir()) == ["verses.jsonl"]


# The other commands that write a file. Their outputs are small or quick, so the kill is not left to a race:
# the command runs with os.replace/os.rename wrapped to SIGKILL the process at the moment it would publish
# its output (every byte written, nothing renamed yet: the worst moment for a reader). A writer that wrote
# in place, not through a temporary, is never killed there, and the test says so.
KILL_AT_PUBLISH = """
import os, signal, sys
from pathlib import Path

target = Path(sys.argv[1]).resolve()


def killing(real):
    def publish(source, destination, *args, **kwargs):
        if Path(destination).resolve() == target:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(source, destination, *args, **kwargs)
    return publish


os.replace, os.rename = killing(os.replace), killing(os.rename)
from parastudio.core.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.fixture(scope="module")
def more_inputs(inputs):
    """Small inputs for the other writers: a prune list, a pattern table, a pivot table and its dev set, a graph."""
    from parastudio.core.tablebuild.patterns.table_file import MLE_LAMBDAS, scored_pair, write_table

    directory = inputs["dir"]
    rng = random.Random(18)
    first_rule = inputs["phrases"].read_text(encoding="utf-8").splitlines()[0].split(" ||| ")
    (directory / "prune.txt").write_text(f"{first_rule[0]} ||| {first_rule[1]}\n", encoding="utf-8")
    pairs = sorted({(f"[NN_1] w{rng.randrange(300)} w{rng.randrange(300)}", f"w{rng.randrange(300)} [NN_1]")
                    for _ in range(3000)})
    write_table((scored_pair(e1, e2, [(f"p{rng.randrange(40)}", [-rng.uniform(0.1, 4) for _ in range(4)])],
                             MLE_LAMBDAS) for e1, e2 in pairs), directory / "patterns.txt", {})
    pivot_lines, records = [], []
    for index in range(60):
        e1, e2 = f"w{index}", f"w{index + 100}"
        h = [-rng.uniform(0.1, 3) for _ in range(4)]
        pivot_lines.append(f"{e1} ||| {e2} ||| {min(1.0, sum(map(abs, h)) / 12):.4f} "
                           + " ".join(f"{v:.4f}" for v in h))
        records.append({"id": str(index), "source": e1, "candidate": e2, "derivation": [], "judgments": [],
                        "replacements": [{"source": e1, "target": e2, "src": [0, 1], "tgt": [0, 1],
                                          "label": "correct" if h[1] > -1.5 else "incorrect"}]})
    (directory / "pivot-table.txt").write_text("\n".join(pivot_lines) + "\n", encoding="utf-8")
    (directory / "dev.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return {**inputs, "prune": directory / "prune.txt", "patterns": directory / "patterns.txt",
            "pivot-table": directory / "pivot-table.txt", "devset": directory / "dev.jsonl",
            "judgments": directory / "judgments.csv", "graph": ROOT / "evaldata" / "demo" / "direct-test.graph.gz"}


# (name, the output's file name, arguments given the inputs and the output path)
MORE_WRITERS = {
    "report -o": ("report.md", lambda i, out: ["report", str(i["judgments"]), "--bootstrap", "0", "-o", str(out)]),
    "table prune -o": ("pruned.txt", lambda i, out: ["table", "prune", str(i["phrases"]), "--list", str(i["prune"]),
                                                     "-o", str(out)]),
    "table binarize": ("table.txt.pstable", lambda i, out: ["table", "binarize", str(out.with_suffix(""))]),
    "patterns rescore -o": ("rescored.txt", lambda i, out: ["patterns", "rescore", str(i["patterns"]), "--paper",
                                                            "-o", str(out)]),
    "tune -o": ("weights.json", lambda i, out: ["tune", "--devset", str(i["devset"]), "--system", "pivot",
                                                "--table", str(i["pivot-table"]), "--objective", "f1",
                                                "--restarts", "1", "--heldout", "0", "-o", str(out)]),
    "export-devset -o": ("dev.jsonl", lambda i, out: ["export-devset", str(i["study"]), "--aggregate", "majority",
                                                      "-o", str(out)]),
    "lm train -o": ("lm.bin", lambda i, out: ["lm", "train", str(i["sentences"]), "--order", "2",
                                              "--discount-fallback", "-o", str(out)]),
    "graph load -o": ("graph.sqlite", lambda i, out: ["graph", "load", str(i["graph"]), "-o", str(out)]),
}


def _place_inputs(writer: str, more_inputs: dict, folder: Path) -> None:
    if writer == "table binarize":  # it writes beside its table
        (folder / "table.txt").write_bytes(more_inputs["table"].read_bytes())


@pytest.mark.parametrize("writer", sorted(MORE_WRITERS))
def test_sigkill_as_the_output_is_published_leaves_the_previous_or_none(more_inputs, tmp_path, writer):
    name, arguments = MORE_WRITERS[writer]
    for previous in (True, False):
        folder = tmp_path / ("previous" if previous else "new")
        folder.mkdir()
        _place_inputs(writer, more_inputs, folder)
        output = folder / name
        if previous:
            output.write_bytes(PREVIOUS)
        argv = arguments(more_inputs, output)
        killed = subprocess.run([sys.executable, "-c", KILL_AT_PUBLISH, str(output), *argv], cwd=ROOT,
                                capture_output=True, text=True, timeout=300)
        assert killed.returncode == -signal.SIGKILL, f"{writer} was not killed publishing {output} (did it write " \
                                                     f"in place?): exit {killed.returncode}\n{killed.stderr}"
        assert (output.read_bytes() == PREVIOUS) if previous else not output.exists()
    completed = run(argv)  # the last folder's: a complete run then removes what the killed one left
    assert completed.returncode == 0, completed.stderr
    assert output.exists() and output.read_bytes() != PREVIOUS
    # binarize's input sits beside its output; a pattern table has its sidecar
    beside = {"table binarize": ["table.txt"], "patterns rescore -o": [f"{name}.json"]}.get(writer, [])
    assert sorted(p.name for p in output.parent.iterdir()) == sorted([name, *beside])  # no temporary, no work folder


def _fill(disk: Path) -> Path:
    """Fill the small disk to its last byte: any output written to it then fails with ENOSPC."""
    filler = disk / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(descriptor, b"\0" * 4096):
            pass
    except OSError:  # ENOSPC: full
        pass
    finally:
        os.close(descriptor)
    return filler


@pytest.mark.parametrize("writer", sorted(MORE_WRITERS))
def test_the_other_writers_on_a_full_disk_give_a_clear_error_and_no_partial_file(more_inputs, full_disk, writer):
    name, arguments = MORE_WRITERS[writer]
    _place_inputs(writer, more_inputs, full_disk)
    before = sorted(p.name for p in full_disk.iterdir()) + ["filler"]
    _fill(full_disk)
    completed = run(arguments(more_inputs, full_disk / name))
    assert completed.returncode == 1, completed.stderr
    assert "Traceback" not in completed.stderr
    assert "parastudio" in completed.stderr and "No space left on device" in completed.stderr, completed.stderr
    assert sorted(p.name for p in full_disk.iterdir()) == sorted(before)  # no output, no temporary
