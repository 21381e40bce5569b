"""Real Spark for the tests: one local session shared by every Spark test, and a standalone cluster on 127.0.0.1.

Tests that use them are marked ``spark`` (``pytest -m "not spark"`` skips them; CI runs them). They skip,
saying why, only when pyspark or a Java runtime is truly absent.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

# A worker that has not registered in this long is a broken set-up, not a slow machine.
CLUSTER_START_LIMIT_SECONDS = 180


def require_spark() -> None:
    """Skip the calling test when pyspark or Java is missing (the only reasons a Spark test may skip)."""
    from parastudio.core.tablebuild.spark_session import java_available

    try:
        import pyspark  # noqa: F401
    except ImportError:
        pytest.skip("pyspark is not installed (pip install -e '.[test]' installs it)")
    if not java_available():
        pytest.skip("no Java runtime (packaging/setup.sh test installs openjdk-17-jre-headless)")


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """One local SparkSession (local[2], no UI, 3 shuffle partitions, scratch in a temporary folder)."""
    require_spark()
    from parastudio.core.tablebuild.spark_session import SparkSettings, spark_session

    scratch = tmp_path_factory.mktemp("spark-local")
    session = spark_session(SparkSettings(master="local[2]", shuffle_partitions=3, local_dir=str(scratch)),
                            app_name="parastudio-tests")
    yield session
    session.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


@dataclass(frozen=True)
class Cluster:
    master: str  # spark://127.0.0.1:PORT
    status_url: str  # the master's JSON status page
    worker_directory: Path | None = None  # where the worker unpacks what each application ships (SPARK_WORKER_DIR)

    def status(self) -> dict:
        with urllib.request.urlopen(self.status_url, timeout=5) as response:
            return json.load(response)

    def application_names(self) -> list[str]:
        status = self.status()
        return sorted(app["name"] for app in status.get("activeapps", []) + status.get("completedapps", []))


def _registered_workers(cluster: Cluster) -> int:
    try:
        return sum(1 for worker in cluster.status().get("workers", []) if worker.get("state") == "ALIVE")
    except OSError:
        return 0


@contextmanager
def standalone_cluster(scratch: Path) -> Iterator[Cluster]:
    """A real standalone master and one worker (2 cores) on 127.0.0.1, as a :class:`Cluster`.

    Both run from pyspark's own ``spark-class``, are waited for until the worker registers (polling the
    master's JSON page), and are stopped when the block ends, also on failure. They run as on a machine that
    has Java and Spark but not this project (issue 41): another working directory, no ``PYTHONPATH``, no
    ``PYSPARK_PYTHON`` and a ``PATH`` without this interpreter, so an executor can run our code only from the
    environment the application ships.
    """
    import pyspark

    master_port, master_web, worker_web = free_port(), free_port(), free_port()
    url = f"spark://127.0.0.1:{master_port}"
    cluster = Cluster(url, f"http://127.0.0.1:{master_web}/json/", scratch / "work")
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    java = [f"{os.environ['JAVA_HOME']}/bin"] if os.environ.get("JAVA_HOME") else []
    interpreter = str(Path(sys.executable).parent)
    path = [part for part in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
            if part and part != interpreter and "pyenv" not in part and "venv" not in part]
    environment = {"PATH": os.pathsep.join(java + path), "HOME": str(home), "LANG": "C.UTF-8",
                   "SPARK_HOME": str(Path(pyspark.__file__).parent), "SPARK_LOCAL_IP": "127.0.0.1",
                   "SPARK_WORKER_DIR": str(scratch / "work"), "SPARK_LOCAL_DIRS": str(scratch / "local"),
                   **({"JAVA_HOME": os.environ["JAVA_HOME"]} if os.environ.get("JAVA_HOME") else {})}
    processes: list[subprocess.Popen] = []
    logs = []
    try:
        for name, arguments in (
            ("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(master_port),
                        "--webui-port", str(master_web)]),
            ("worker", ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "2",
                        "--memory", "1g", "--webui-port", str(worker_web), url]),
        ):
            log = open(scratch / f"{name}.log", "wb")
            logs.append(log)
            processes.append(subprocess.Popen([str(_spark_class()), *arguments], env=environment, stdout=log,
                                              stderr=subprocess.STDOUT, start_new_session=True, cwd=home))
        deadline = time.monotonic() + CLUSTER_START_LIMIT_SECONDS
        while _registered_workers(cluster) < 1:
            exited = [process for process in processes if process.poll() is not None]
            if exited or time.monotonic() > deadline:
                tails = "\n".join((scratch / f"{name}.log").read_text(errors="replace")[-2000:]
                                  for name in ("master", "worker"))
                raise RuntimeError(f"the standalone cluster did not start (worker not registered):\n{tails}")
            time.sleep(0.5)
        yield cluster
    finally:
        for process in reversed(processes):
            _stop(process)
        for log in logs:
            log.close()


def _stop(process: subprocess.Popen) -> None:
    """Stop one daemon we started and everything it spawned (its own process group), by its id."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, 15)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.wait()


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory) -> Iterator[Cluster]:
    """One standalone cluster on 127.0.0.1 for the whole session (started by the first test that asks)."""
    require_spark()
    with standalone_cluster(tmp_path_factory.mktemp("spark-cluster")) as cluster:
        yield cluster


def _port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def connect_server(scratch: Path) -> Iterator[str]:
    """A real Spark Connect server (local[2]) on 127.0.0.1, started with pyspark's own ``spark-submit``;
    yields ``sc://127.0.0.1:PORT`` and stops it when the block ends, also on failure."""
    import pyspark

    scratch.mkdir(parents=True, exist_ok=True)
    port = free_port()
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    root = str(Path(__file__).resolve().parents[1])
    # The server's Python workers run our loader: this interpreter, this checkout.
    environment = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
                   "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
    with open(scratch / "connect.log", "wb") as log:
        process = subprocess.Popen(
            [str(submit), "--master", "local[2]", "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
             "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
             "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=3",
             "--conf", f"spark.local.dir={scratch}", "spark-internal"],
            env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + CLUSTER_START_LIMIT_SECONDS
            while not _port_open(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    tail = (scratch / "connect.log").read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"the Spark Connect server did not start:\n{tail}")
                time.sleep(0.5)
            yield f"sc://127.0.0.1:{port}"
        finally:
            _stop(process)


@pytest.fixture(scope="session")
def spark_connect_server(tmp_path_factory) -> Iterator[str]:
    require_spark()
    try:
        import grpc  # noqa: F401
    except ImportError:
        pytest.skip("the Spark Connect client is not installed (pip install -e '.[test]' installs pyspark[connect])")
    with connect_server(tmp_path_factory.mktemp("spark-connect")) as url:
        yield url


def spark_failure(stderr: str | bytes) -> str:
    """The lines of a failed Spark command's standard error that say why (exceptions and our one-line errors),
    else its tail: for an assertion's message, where a Java stack's tail would hide the cause."""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
    reasons = [line for line in text.splitlines() if "Exception:" in line or "error:" in line]
    return "\n".join(reasons[:5]) or text[-3000:]
