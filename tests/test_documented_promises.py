"""Promises the documentation makes that no other test held (issue 42, item 7).

* A replaced output keeps its mode (docs/CLI.md, "A replaced output keeps the mode ... of the file it replaces"):
  every file writer of tests/test_output_targets.py's table, run over a ``chmod 640`` output.
* ``reproduce`` refuses a run whose LM changed (docs/CLI.md, ``parastudio reproduce``: "``refused`` with the
  reason when an input is missing or its sha256 differs ... exit 2").
* Ctrl+C leaves no temporary beside the output (docs/CLI.md, "Ctrl+C ... no temporary is left beside the
  output"), sent while the temporary exists.
* ``--stop decided+K`` gives a pair K more sentences after the decision, and not one more
  (``study assign-next --help``; ``core/adaptive_assignment.py``).
* MERT returns the weights whose own decoding scored best, not the last round's (``core/tuning/mert.py``).
"""

from __future__ import annotations

import io
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.stats.anytime_comparisons import decision_times
from parastudio.core.stats.anytime_sign_test import AnytimeSignTest
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_judgments import study_judgment_records
from parastudio.core.tuning.mert import Hypothesis, mert
from parastudio.core.tuning.objectives import COLUMN, STATS, make_objective

# The one table of writers, its inputs and its runner: a writer added there is checked here too.
from tests.test_output_targets import WRITERS, _run_writer, files, pristine  # noqa: F401 (fixtures)

DEMO = ROOT / "evaldata" / "demo"
HANG = 120  # seconds: far more than any step takes, so only a hang reaches it


# --- a replaced output keeps its mode ---------------------------------------------------------------------------

# Written through core/textio.py's staged_output (a file another program builds: SQLite, lmplz), which gives the
# new file the umask's mode: the promise is not kept there yet (reported in issue 42, item 7).
STAGED = {"study export-package -o", "lm train -o", "lm train --arpa", "graph load -o"}


def _file_writers():
    for name, writer in WRITERS.items():
        if writer.folder:
            continue
        marks = [pytest.mark.xfail(strict=True, reason="staged_output does not keep the replaced file's mode")
                 ] if name in STAGED else []
        yield pytest.param(name, marks=marks, id=name)


# Neither 0600 (what mkstemp gives a temporary: a writer that kept nothing would pass with it) nor the umask's 0644.
KEPT_MODE = 0o640


@pytest.mark.parametrize("name", list(_file_writers()))
def test_a_replaced_output_keeps_its_mode_after_the_next_run_of_every_writer(files, tmp_path, name):
    writer = WRITERS[name]
    folder = tmp_path / "out"
    folder.mkdir()
    output = folder / writer.name
    output.write_bytes(b"the previous run\n")
    os.chmod(output, KEPT_MODE)
    umask = os.umask(0o022)
    try:
        status, _out, err = _run_writer(writer, files, output)
    finally:
        os.umask(umask)
    assert status == 0, err
    assert output.read_bytes() != b"the previous run\n"
    assert stat.S_IMODE(os.stat(output).st_mode) == KEPT_MODE


# --- reproduce refuses a changed LM -----------------------------------------------------------------------------

def test_reproduce_refuses_a_run_whose_lm_changed_in_one_line_naming_it(tmp_path, example1_table_path, tiny_lm,
                                                                          monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no fingerprint remembered from elsewhere
    lm = tmp_path / "lm.bin"
    shutil.copyfile(tiny_lm["binary"], lm)
    monkeypatch.setattr("sys.stdin", io.StringIO("the dog runs after the young cat\nthe young cat sees the dog\n"))
    assert main(["generate", "--system", "beam", "--nbest", "2", "--table", str(example1_table_path), "--lm",
                 str(lm), "--json", "--processes", "1"]) == 0
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["reproduce", str(candidates), "--processes", "1"]) == 0  # as recorded: reproduced
    capsys.readouterr()
    shutil.copyfile(tiny_lm["arpa"], lm)  # another LM that loads as well (KenLM reads ARPA), under the same name
    status = main(["reproduce", str(candidates), "--processes", "1"])
    out, err = capsys.readouterr()
    assert status == 2, err
    (line,) = err.splitlines()
    assert f"{lm}: sha256" in line and "differs from the recorded" in line and "refused" in line
    assert str(example1_table_path) not in line
    assert "summary: 1 run(s), 1 refused; 0 sentence(s) reproduced" in out  # nothing run on the changed LM


# --- Ctrl+C while the temporary exists --------------------------------------------------------------------------

def _wait_for_temporary(folder: Path, process: subprocess.Popen) -> Path:
    """The writer's temporary beside its output, once it exists (polled; the timeout only catches a hang)."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        found = [path for path in folder.iterdir() if path.name.endswith(".part")]
        if found:
            return found[0]
        assert process.poll() is None, "the writer ended before its temporary was seen"
        time.sleep(0.02)
    raise AssertionError(f"no temporary in {folder} within {HANG} s")


def test_ctrl_c_while_the_temporary_is_written_leaves_no_part_file_and_the_previous_output(
        tmp_path, ctrl_c_as_a_terminal_gives_it):
    words = "in the beginning god created the heavens and the earth was without form".split()
    rng = random.Random(42)
    sentences = tmp_path / "sentences.txt"  # far more decoding than the wait: the signal comes mid-write
    sentences.write_text("".join(" ".join(rng.choice(words) for _ in range(12)) + "\n" for _ in range(50_000)),
                         encoding="utf-8")
    folder = tmp_path / "out"
    folder.mkdir()
    output = folder / "candidates.jsonl"
    output.write_text("the previous run\n", encoding="utf-8")
    argv = ["generate", "--system", "beam", "--table", str(DEMO / "paraphrase-table.gz"), "--lm",
            str(DEMO / "lm.bin"), "--processes", "1", "--json", "-o", str(output)]
    said = tmp_path / "stderr.txt"
    with open(sentences, "rb") as stdin, open(said, "wb") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "parastudio", *argv], cwd=ROOT, stdin=stdin,
                                   stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
    try:
        temporary = _wait_for_temporary(folder, process)
        # What it said while loading (a first load's note on the table's binary form) is not the interruption's.
        before = said.stat().st_size
        os.killpg(process.pid, signal.SIGINT)  # as the terminal sends Ctrl+C: to the whole group
        process.wait(timeout=HANG)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    err = said.read_bytes()[before:]
    assert process.returncode == 130
    assert err.decode().splitlines() == ["parastudio: interrupted; what it was writing was not kept"]
    assert not temporary.exists() and [path.name for path in folder.iterdir()] == ["candidates.jsonl"]
    assert output.read_text(encoding="utf-8") == "the previous run\n"


# --- study assign-next --stop decided+K -------------------------------------------------------------------------

SENTENCES = 30  # more than the decision and any margin below need: the rule stops the batches, not the study


def _study(path: Path) -> None:
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "s", criteria=["meaning"], application="simplification", seed=11)
        rows = [ops.CandidateRow(sentence_id=str(s), text=f"{system} says {s}", system=system, line=2 * s + i + 1)
                for s in range(SENTENCES) for i, system in enumerate("ab")]
        ops.import_candidates(db, study, rows, sources={str(s): f"source {s}" for s in range(SENTENCES)})


def _judge_everything(db) -> int:
    """Answer every assigned item (a's candidates right, b's wrong); the sentences given out so far."""
    study = ops.find_study(db)
    for judge in ("j1", "j2"):
        annotator = ops.find_annotator(db, study, judge)
        while (item := ops.next_item(db, annotator)) is not None:
            ops.record_judgment(db, item.assignment_id, "yes" if item.candidate.startswith("a ") else "no")
    return len(set(study_judgment_records(db, study).sentences))


def _sentences_to_decide(test: AnytimeSignTest) -> int:
    """The straight wins after which the anytime-valid test decides (one pair: Holm changes nothing)."""
    n = 1
    while test.run([1] * n).p_anytime > test.alpha:
        n += 1
    return n


@settings(max_examples=3, deadline=None)
@given(st.integers(min_value=0, max_value=5))
def test_decided_plus_k_gives_k_more_sentences_after_the_decision_and_not_one_more(margin):
    decide = _sentences_to_decide(AnytimeSignTest())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "study.sqlite"
        _study(path)
        given_out = []
        with open_database(path) as db:  # the judges' connection, open beside the command's
            for _ in range(SENTENCES):
                status = main(["study", "assign-next", "--db", str(path), "--annotators", "j1,j2", "--sentences",
                               "1", "--criterion", "meaning", "--stop", f"decided+{margin}"])
                assert status == 0
                given_out.append(_judge_everything(db))
                if len(given_out) > 1 and given_out[-1] == given_out[-2]:
                    break  # a batch gave nothing: the pair is closed
            records = study_judgment_records(db, ops.find_study(db))
        ((decided_at, after),) = decision_times(records, "meaning", AnytimeSignTest()).values()
    assert decided_at is not None
    assert given_out[-1] == given_out[-2] == decide + margin < SENTENCES
    assert after == margin
    assert given_out[:-1] == list(range(1, decide + margin + 1))  # one sentence per batch until then


# --- MERT keeps the weights whose own decoding scored best ------------------------------------------------------

# Two sentences; a candidate is (features, judged acceptable). Score = w . features, with w[0] fixed, so the
# search is along one ratio r = w[1] / w[0] and each candidate is a line in r. Round 1's pool prefers r > 1,
# where b1 decodes (acceptable); round 2's pool adds g2 and prefers r > 8/3, where traps the pool never saw
# (t1, t2: unacceptable) outrank everything: the pool's optimum decodes worse than round 1's weights.
CATALOGUE = [
    {"a1": ((0.0, 0.0), 0), "b1": ((-1.0, 1.0), 1), "t1": ((-5.0, 2.0), 0)},
    {"a2": ((0.0, 0.0), 0), "x2": ((-1.0, -1.0), 0), "g2": ((-8.0, 3.0), 1), "t2": ((-14.0, 5.0), 0)},
]


def test_mert_returns_the_weights_whose_own_decoding_scored_best_not_the_last_rounds():
    decodings: list[tuple[np.ndarray, float]] = []  # every decoding: its weights and its 1-best's accuracy

    def decode(weights):
        lists = []
        for candidates in CATALOGUE:
            ranked = sorted(candidates, key=lambda key: -np.dot(candidates[key][0], weights))[:2]
            stats = [np.zeros(len(STATS)) for _ in ranked]
            for row, key in zip(stats, ranked):
                row[COLUMN["acceptable"]], row[COLUMN["sentences"]] = candidates[key][1], 1
            lists.append([Hypothesis(key, np.array(candidates[key][0]), row) for key, row in zip(ranked, stats)])
        accepted = sum(CATALOGUE[i][nbest[0].key][1] for i, nbest in enumerate(lists))
        decodings.append((np.array(weights, dtype=float), accepted / len(lists)))
        return lists

    result = mert(decode, [1.0, 0.0], make_objective("accuracy"), max_iterations=2, fixed=(0,))
    values = [value for _, value in decodings]
    best = values.index(max(values))  # the first of equals: a later round must do strictly better
    assert len(decodings) == 1 + len(result.iterations)
    assert 0 < best < len(values) - 1  # the case this test is about: the best decoding is neither start nor last
    assert result.iterations[-1].pool_value > values[-1]  # the last round won on its pool and lost decoded
    np.testing.assert_array_equal(result.weights, decodings[best][0])
    assert result.final_value == values[best]
