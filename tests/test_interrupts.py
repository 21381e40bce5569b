"""Ctrl+C and SIGTERM end a command at once and cleanly (issue 39): exit 130 or 143, one line, no worker's
traceback, no temporary left; Ctrl+C inside DuckDB too; the forked workers' map and the signals' bookkeeping.

The command's standard error is a pseudo-terminal, so it shows its progress bar: the first bar is the sign that
the work has started (the test waits on it, not on a clock). A generous timeout is the hang detector:
``multiprocessing.Pool.terminate`` used to wait for ever on a queue lock after Ctrl+C.
"""

from __future__ import annotations

import multiprocessing
import os
import pty
import random
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.errors import InputFormatError
from parastudio.core.interruption import Terminated, signals_noted
from parastudio.core.worker_processes import BackgroundCall, ordered_map

DEMO = ROOT / "evaldata" / "demo"
HANG = 60  # seconds: far more than any clean end takes, so only a hang reaches it
pytestmark = pytest.mark.usefixtures("ctrl_c_as_a_terminal_gives_it")  # conftest: as from a terminal
SAID = {signal.SIGINT: (130, "parastudio: interrupted; what it was writing was not kept"),
        signal.SIGTERM: (143, "parastudio: terminated (SIGTERM); what it was writing was not kept")}


def _read_until(terminal: int, marker: bytes) -> bytes:
    seen = b""
    while marker not in seen:
        ready, _, _ = select.select([terminal], [], [], HANG)
        assert ready, f"no {marker!r} on standard error within {HANG} s: {seen[-300:]!r}"
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the command ended: the pseudo-terminal is gone
            chunk = b""
        assert chunk, f"the command ended before {marker!r}: {seen[-300:]!r}"
        seen += chunk
    return seen


def _rest(terminal: int) -> str:
    text = b""
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # EIO: every writer has closed it
            break
        if not chunk:
            break
        text += chunk
    return text.decode("utf-8", "replace")


def _lines_after_the_bar(text: str) -> list[str]:
    """What standard error said besides the progress bar (tqdm redraws it behind carriage returns)."""
    lines = []
    for line in text.replace("\r\n", "\n").split("\n"):
        shown = line.split("\r")[-1].strip()
        if shown:
            lines.append(shown)
    return lines


def signal_mid_run(argv: list[str], stdin: Path, marker: bytes, sent: signal.Signals, group: bool,
                   ) -> tuple[int, list[str]]:
    """Run ``parastudio argv``; send ``sent`` once ``marker`` shows on its standard error (to its process group
    when ``group``, as a terminal's Ctrl+C does; else to it alone, as ``kill PID`` does)."""
    terminal, child_side = pty.openpty()
    with open(stdin, "rb") as source:
        process = subprocess.Popen([sys.executable, "-m", "parastudio", *argv], cwd=ROOT, stdin=source,
                                   stdout=subprocess.DEVNULL, stderr=child_side, start_new_session=True)
    os.close(child_side)
    try:
        _read_until(terminal, marker)
        (os.killpg if group else os.kill)(process.pid, sent)
        status = process.wait(timeout=HANG)
        return status, _lines_after_the_bar(_rest(terminal))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        os.close(terminal)


@pytest.fixture(scope="module")
def many_sentences(tmp_path_factory) -> Path:
    words = "in the beginning god created the heavens and the earth was without form".split()
    rng = random.Random(39)
    path = tmp_path_factory.mktemp("signals") / "sentences.txt"
    path.write_text("".join(" ".join(rng.choice(words) for _ in range(12)) + "\n" for _ in range(20_000)),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("sent, group", [(signal.SIGINT, True), (signal.SIGTERM, False)], ids=["ctrl-c", "sigterm"])
def test_generate_with_workers_ends_at_once_in_one_line(tmp_path, many_sentences, sent, group):
    output = tmp_path / "out" / "candidates.jsonl"
    output.parent.mkdir()
    argv = ["generate", "--system", "beam", "--table", str(DEMO / "paraphrase-table.gz"), "--lm",
            str(DEMO / "lm.bin"), "--processes", "2", "--json", "-o", str(output)]
    status_said = SAID[sent]
    for _attempt in range(5 if sent == signal.SIGINT else 2):  # the hang came about one time in five
        status, lines = signal_mid_run(argv, many_sentences, b"sentence", sent, group)
        assert (status, lines) == (status_said[0], [status_said[1]])  # no worker's traceback either
        assert list(output.parent.iterdir()) == []  # no temporary, no half output


@pytest.fixture(scope="module")
def big_phrase_table(tmp_path_factory) -> Path:
    rng = random.Random(39)
    path = tmp_path_factory.mktemp("pivot") / "phrases.txt"
    words, pivots = [f"w{i}" for i in range(3000)], [f"p{i}" for i in range(20_000)]
    with open(path, "w", encoding="utf-8") as handle:
        for _ in range(400_000):
            handle.write(f"{rng.choice(words)} {rng.choice(words)} ||| {rng.choice(pivots)} ||| "
                         + " ".join(f"{rng.uniform(0.01, 1):.4f}" for _ in range(4)) + "\n")
    return path


@pytest.mark.parametrize("sent, group", [(signal.SIGINT, True), (signal.SIGTERM, False)], ids=["ctrl-c", "sigterm"])
def test_pivot_interrupted_inside_duckdb_ends_cleanly(tmp_path, big_phrase_table, sent, group):
    """DuckDB catches the signal itself and raises ``RuntimeError: Query interrupted``: said as the interruption."""
    output = tmp_path / "out" / "paraphrases.txt"
    output.parent.mkdir()
    status, lines = signal_mid_run(["pivot", str(big_phrase_table), "-o", str(output), "--top", "50"],
                                   big_phrase_table, b"load", sent, group)  # the bar shown as DuckDB starts loading
    assert (status, lines) == (SAID[sent][0], [SAID[sent][1]])
    assert list(output.parent.iterdir()) == []  # no output, no DuckDB work folder


def test_an_error_a_library_makes_of_ctrl_c_is_raised_as_the_interruption():
    for sent, raised in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)):
        with pytest.raises(raised):
            with signals_noted():  # pytest's SIGTERM is SIG_DFL: noted, then Terminated as end_cleanly_on_sigterm's
                try:  # what DuckDB does: the signal's exception caught, its own raised
                    os.kill(os.getpid(), sent)
                    signal.pthread_sigmask(signal.SIG_BLOCK, [])  # a call: the handler has run when it returns
                except KeyboardInterrupt:
                    raise RuntimeError("Query interrupted") from None
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(RuntimeError, match="no signal"):  # without a signal an error stays itself
        with signals_noted():
            raise RuntimeError("no signal")


def _square(value: int) -> int:
    if value < 0:
        raise InputFormatError("numbers.txt", -value, "a number of at least 0", str(value))
    return value * value


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 10_000), max_size=40), st.integers(1, 3))
def test_the_workers_map_gives_every_result_in_order(values, workers):
    assert list(ordered_map(_square, values, workers)) == [v * v for v in values]
    assert multiprocessing.active_children() == []  # every worker was reaped


def test_a_workers_error_is_raised_in_the_parent_with_its_message():
    with pytest.raises(InputFormatError, match=re.escape("numbers.txt:7: expected a number of at least 0")):
        list(ordered_map(_square, [1, 2, -7, 4], 2))
    assert multiprocessing.active_children() == []


def test_stopping_early_kills_the_workers_at_once():
    results = ordered_map(_square, range(10_000), 2)
    assert next(results) == 0
    results.close()
    assert multiprocessing.active_children() == []


def _wait_for(path: str) -> str:
    """A call that never ends by itself: it blocks reading a named pipe nobody writes."""
    with open(path, encoding="utf-8") as pipe:
        return pipe.read()


def test_a_background_call_gives_its_result_or_its_error():
    with BackgroundCall(_square, 12) as call:
        assert call.result() == 144
    with BackgroundCall(_square, -3) as call, pytest.raises(InputFormatError, match="numbers.txt:3: expected"):
        call.result()
    assert multiprocessing.active_children() == []


def test_leaving_a_background_call_early_kills_it_at_once(tmp_path):
    """Ctrl+C in the caller's own work (the data build's first chain): the second chain's process is killed, not
    waited on as ProcessPoolExecutor's shutdown waits on a running task."""
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    with pytest.raises(KeyboardInterrupt):
        with BackgroundCall(_wait_for, str(fifo)):
            raise KeyboardInterrupt
    assert multiprocessing.active_children() == []


def test_a_progress_bar_cut_short_while_it_is_made_says_nothing_when_dropped():
    """SIGTERM inside tqdm's __init__ left a bar without its position; tqdm's __del__ then printed a traceback
    after the command's one line."""
    from tqdm import tqdm

    from parastudio.core.terminal_bar import terminal_bar

    def half_made(kind):  # as a signal leaves it: __init__ set `disable` and stopped before `pos`
        bar = kind.__new__(kind)
        bar.disable = False
        return bar

    with pytest.raises(AttributeError, match="pos"):  # what the plain bar does
        half_made(tqdm).__del__()
    made = terminal_bar(total=1, disable=True)
    half_made(type(made)).__del__()
    made.close()


def _grown(text: str) -> str:
    return text + "y"


def test_items_larger_than_the_pipe_do_not_deadlock_the_workers():
    """A task bigger than the pipe sent ahead of an answer as big: the parent blocked sending while the worker
    blocked answering (a data build's 860 KB chunks hung for ever). Run in a child, so a hang fails the test."""
    code = ("from parastudio.core.worker_processes import ordered_map\n"
            "from test_interrupts import _grown\n"
            "for workers in (1, 2):\n"
            "    out = list(ordered_map(_grown, ['x' * 1_000_000, 'ab', 'z' * 300_000, 'c' * 40_000] * 2, workers))\n"
            "    assert out == [t + 'y' for t in ['x' * 1_000_000, 'ab', 'z' * 300_000, 'c' * 40_000] * 2], workers\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
