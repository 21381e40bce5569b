"""Spark servers that cannot hang us (issue 39): a master or a Spark Connect server that refuses, does not
exist, does not answer, or answers as something else ends the command with one line naming the server and the
cause, exit 1; a job on a standalone cluster with no worker left (none started, or the last one killed
mid-task) is cancelled and told in one line, instead of waiting for ever. Real Spark throughout: a standalone
master and worker on 127.0.0.1, and sockets that refuse, never answer, or answer nothing."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parastudio.core.tablebuild.spark_reach import parse_timeout, shown_server
from parastudio.core.tablebuild.spark_worker_watch import NO_WORKER
from tests.conftest import ROOT
from tests.spark_fixtures import (
    CLUSTER_START_LIMIT_SECONDS,
    Cluster,
    _registered_workers,
    _spark_class,
    _stop,
    free_port,
    require_spark,
)

spark_test = pytest.mark.spark

# Generous outer bounds for a subprocess (a loaded machine starts JVMs slowly); no test asserts a duration.
COMMAND_LIMIT_SECONDS = 300
SHORT_WAIT = "3"  # --spark-timeout for the cases that must run out of time

TABLE = "a ||| x ||| 0.5 0.25 0.5 0.5 ||| 0-0 ||| 1 1 1\nb ||| x ||| 0.5 0.25 0.5 0.5 ||| 0-0 ||| 1 1 1\n"


def _environment(extra: dict | None = None) -> dict:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    environment.pop("PARASTUDIO_SPARK_TIMEOUT", None)
    return {**environment, **(extra or {})}


def _parastudio(*arguments: str, environment: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "parastudio", *arguments], capture_output=True, cwd=ROOT,
                          env=_environment(environment), timeout=COMMAND_LIMIT_SECONDS, stdin=subprocess.DEVNULL)


def _pivot(tmp_path: Path, *spark_flags: str, environment: dict | None = None) -> subprocess.CompletedProcess:
    table = tmp_path / "table.txt"
    table.write_text(TABLE, encoding="utf-8")
    return _parastudio("pivot", str(table), "-o", str(tmp_path / "out.txt"), "--engine", "spark", *spark_flags,
                       environment=environment)


def _the_one_line(done: subprocess.CompletedProcess) -> str:
    """The command's one error line, after checking that it is the only thing said that is not a JVM start-up
    notice, and that no Python or Java stack came with it."""
    stderr = done.stderr.decode(errors="replace")
    said = [line for line in stderr.splitlines() if line.strip() and not line.startswith("WARNING: Using incubator")]
    assert done.returncode == 1, stderr[-3000:]
    assert len(said) == 1 and said[0].startswith("parastudio: error: "), stderr[-3000:]
    assert "Traceback" not in stderr and "\tat " not in stderr and "Py4J" not in stderr
    return said[0][len("parastudio: error: "):]


@contextmanager
def _listening(*, answer_syn: bool) -> Iterator[int]:
    """A port on 127.0.0.1 that takes connections and never says a word (``answer_syn``), or whose queue of
    connections is full, so a new connection's SYN is dropped and it never opens (no answer at all)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    port = server.getsockname()[1]
    fillers = []
    if answer_syn:
        server.listen(16)
    else:
        server.listen(0)  # Linux queues backlog + 1 connections; past that it drops the SYN
        for _ in range(4):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            fillers.append(filler)
    try:
        yield port
    finally:
        for filler in fillers:
            filler.close()
        server.close()


@spark_test
@pytest.mark.parametrize("flag, kind", [("--master", "Spark master"), ("--remote", "Spark Connect server")])
def test_a_server_that_refuses_is_named_in_one_line(tmp_path, flag, kind):
    require_spark()
    url = f"{'spark' if flag == '--master' else 'sc'}://127.0.0.1:{free_port()}"  # nothing listens there
    done = _pivot(tmp_path, flag, url)
    assert _the_one_line(done) == (f"the {kind} {url} could not be reached within 30 s: connection refused "
                                   "(nothing listens on that port)")
    assert not (tmp_path / "out.txt").exists()


@spark_test
def test_generate_names_a_refused_master_the_same_way(tmp_path, tiny_lm, example1_table_path):
    require_spark()
    url = f"spark://127.0.0.1:{free_port()}"
    done = _parastudio("generate", "--system", "beam", "--table", str(example1_table_path), "--lm",
                       str(tiny_lm["binary"]), "--engine", "spark", "--master", url, "--spark-timeout", "12.5")
    assert _the_one_line(done) == (f"the Spark master {url} could not be reached within 12.5 s: connection "
                                   "refused (nothing listens on that port)")


@spark_test
def test_a_host_that_does_not_exist_is_named(tmp_path):
    require_spark()
    # .invalid never resolves (RFC 2606); a resolver that does not answer at all runs out the time instead.
    done = _pivot(tmp_path, "--master", "spark://no-such-host.invalid:7077", "--spark-timeout", "20")
    line = _the_one_line(done)
    assert line.startswith("the Spark master spark://no-such-host.invalid:7077 could not be reached within 20 s: ")
    assert line.endswith(("no host named 'no-such-host.invalid' is known here", "sets the wait)"))


@spark_test
@pytest.mark.parametrize("flag", ["--master", "--remote"])
def test_a_server_that_never_answers_fails_after_the_timeout_from_the_environment(tmp_path, flag):
    require_spark()
    kind = "Spark master" if flag == "--master" else "Spark Connect server"
    with _listening(answer_syn=False) as port:
        url = f"{'spark' if flag == '--master' else 'sc'}://127.0.0.1:{port}"
        done = _pivot(tmp_path, flag, url, environment={"PARASTUDIO_SPARK_TIMEOUT": SHORT_WAIT})
    assert _the_one_line(done) == (f"the {kind} {url} could not be reached within {SHORT_WAIT} s: no answer "
                                   "(--spark-timeout SECONDS or PARASTUDIO_SPARK_TIMEOUT sets the wait)")


@spark_test
def test_a_port_that_takes_the_connection_but_is_no_connect_server_fails_after_the_timeout(tmp_path):
    """The Connect client would wait a ten-minute deadline on its first call, and again at exit."""
    require_spark()
    with _listening(answer_syn=True) as port:
        url = f"sc://127.0.0.1:{port}"
        done = _pivot(tmp_path, "--remote", url, "--spark-timeout", SHORT_WAIT)
    assert _the_one_line(done) == (f"the Spark Connect server {url} could not be reached within {SHORT_WAIT} s: it "
                                   "took the connection but did not answer (is it a Spark Connect server? "
                                   "--spark-timeout SECONDS or PARASTUDIO_SPARK_TIMEOUT sets the wait)")


@spark_test
@pytest.mark.slow
def test_a_port_that_takes_the_connection_but_is_no_master_is_named_when_spark_gives_up(tmp_path):
    """Spark's own bound on the registration (three tries 20 s apart, about a minute): then one line, not
    "Cannot call methods on a stopped SparkContext" at the first job."""
    require_spark()
    with _listening(answer_syn=True) as port:
        url = f"spark://127.0.0.1:{port}"
        done = _pivot(tmp_path, "--master", url)
    assert _the_one_line(done) == (f"the Spark master {url} took the connection but did not register the "
                                   "application (is it a Spark master? Spark gives up after three tries 20 s apart)")


@pytest.mark.parametrize("flags, environment, message", [
    (("--spark-timeout", "0"), {}, "--spark-timeout expects a number of seconds above 0; got '0'"),
    (("--spark-timeout", "soon"), {}, "--spark-timeout expects a number of seconds above 0; got 'soon'"),
    ((), {"PARASTUDIO_SPARK_TIMEOUT": "-5"}, "PARASTUDIO_SPARK_TIMEOUT expects a number of seconds above 0; got '-5'"),
])
def test_a_bad_timeout_is_refused_before_spark_starts(tmp_path, flags, environment, message):
    done = _pivot(tmp_path, "--master", "local[1]", *flags, environment=environment)
    assert done.returncode == 2
    assert done.stderr.decode().strip() == f"parastudio pivot: error: {message}"


def test_the_timeout_needs_the_spark_engine(tmp_path):
    table = tmp_path / "table.txt"
    table.write_text(TABLE, encoding="utf-8")
    done = _parastudio("pivot", str(table), "-o", str(tmp_path / "out.txt"), "--spark-timeout", "5")
    assert done.returncode == 2
    assert done.stderr.decode().strip() == "parastudio pivot: error: --spark-timeout needs --engine spark"


@given(user=st.text("abc:._-", min_size=1, max_size=8), host=st.from_regex(r"[a-z][a-z0-9.-]{0,20}", fullmatch=True),
       port=st.integers(1, 65535), token=st.text("abcdef0123456789", min_size=6, max_size=20),
       scheme=st.sampled_from(["spark", "sc"]))
def test_a_server_is_shown_without_its_credentials(user, host, port, token, scheme):
    shown = shown_server(f"{scheme}://{user}@{host}:{port}/;token={token};user_id={user}")
    assert shown == f"{scheme}://{host}:{port}"


@given(text=st.text(max_size=12))
def test_a_timeout_is_a_positive_number_of_seconds_or_refused(text):
    try:
        seconds = float(text)
    except ValueError:
        seconds = None
    if seconds is not None and 0 < seconds < float("inf"):
        assert parse_timeout(text, "--spark-timeout") == seconds
    else:
        with pytest.raises(ValueError, match=r"^--spark-timeout expects a number of seconds above 0; got "):
            parse_timeout(text, "--spark-timeout")


# A standalone master of our own: the tests start and kill its workers themselves.

def _daemon(scratch: Path, name: str, arguments: list[str]) -> subprocess.Popen:
    environment = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_WORKER_DIR": str(scratch / "work"),
                   "SPARK_LOCAL_DIRS": str(scratch / "local"), "PYSPARK_PYTHON": sys.executable}
    with open(scratch / f"{name}.log", "ab") as log:
        return subprocess.Popen([str(_spark_class()), *arguments], env=environment, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)


def _wait_for(condition, what: str, scratch: Path, processes: list[subprocess.Popen]) -> None:
    deadline = time.monotonic() + CLUSTER_START_LIMIT_SECONDS
    while not condition():
        if any(process.poll() is not None for process in processes) or time.monotonic() > deadline:
            logs = "\n".join(path.read_text(errors="replace")[-2000:] for path in scratch.glob("*.log"))
            raise RuntimeError(f"{what} did not happen:\n{logs}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def bare_master(tmp_path_factory) -> Iterator[tuple[Cluster, Path]]:
    """A standalone master on 127.0.0.1 with no worker, and its scratch folder."""
    require_spark()
    scratch = tmp_path_factory.mktemp("spark-bare-master")
    port, web = free_port(), free_port()
    cluster = Cluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{web}/json/")
    master = _daemon(scratch, "master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                                         str(port), "--webui-port", str(web)])
    try:
        _wait_for(lambda: _answers(cluster), "the master's start", scratch, [master])
        yield cluster, scratch
    finally:
        _stop(master)


def _answers(cluster: Cluster) -> bool:
    try:
        cluster.status()
        return True
    except OSError:
        return False


@spark_test
def test_a_job_on_a_cluster_with_no_worker_fails_in_one_line(bare_master, tmp_path):
    cluster, _ = bare_master
    assert _registered_workers(cluster) == 0
    done = _pivot(tmp_path, "--master", cluster.master, "--spark-timeout", SHORT_WAIT)
    assert _the_one_line(done) == (f"{NO_WORKER}: {cluster.master} had no executor for {SHORT_WAIT} s (its last "
                                   "worker died, or none is running; --spark-timeout SECONDS or "
                                   "PARASTUDIO_SPARK_TIMEOUT sets the wait)")
    assert "parastudio-pivot" in cluster.application_names()  # the master was reached: the job itself waited
    assert not (tmp_path / "out.txt").exists()


@spark_test
def test_a_job_whose_last_worker_is_killed_mid_task_fails_in_one_line(bare_master, tmp_path):
    cluster, scratch = bare_master
    worker = _daemon(scratch, "worker", ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores",
                                         "1", "--memory", "1g", "--webui-port", str(free_port()), cluster.master])
    started = tmp_path / "task-started"
    job = subprocess.Popen([sys.executable, "-m", "tests.spark_waiting_job", cluster.master, SHORT_WAIT,
                            str(started)], cwd=ROOT, env=_environment(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    try:
        _wait_for(started.exists, "the task's start", scratch, [worker, job])
        os.killpg(worker.pid, signal.SIGKILL)  # the worker, its executor and the executor's Python workers
        worker.wait()
        _, stderr = job.communicate(timeout=COMMAND_LIMIT_SECONDS)
    finally:
        _stop(worker)
        if job.poll() is None:
            job.kill()
            job.wait()
    done = subprocess.CompletedProcess(job.args, job.returncode, b"", stderr)
    assert _the_one_line(done) == (f"{NO_WORKER}: {cluster.master} had no executor for {SHORT_WAIT} s (its last "
                                   "worker died, or none is running; --spark-timeout SECONDS or "
                                   "PARASTUDIO_SPARK_TIMEOUT sets the wait)")
