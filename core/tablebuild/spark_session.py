"""A Spark session for the table builds: local threads, a standalone cluster, or Spark Connect.

``--master local[N]`` runs Spark inside this machine's JVM with N threads, ``--master spark://HOST:PORT``
submits to a standalone cluster, ``--remote sc://HOST:PORT`` talks to a Spark Connect server (SQL and
DataFrames only: no RDDs). pyspark is imported only here and only when a session is asked for, so the
library works without it (``pip install 'paraphrase-studio[spark]'`` and a Java 17 runtime add it).

A server that does not answer fails within ``SparkSettings.timeout`` (:mod:`core.tablebuild.spark_reach`), and a
job on a standalone cluster with no worker left fails after as long (:mod:`core.tablebuild.spark_worker_watch`).
Spark's own log shows only what our one-line messages do not say (:mod:`core.tablebuild.spark_log`).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from parastudio.core.tablebuild.spark_environment import ArchiveError, archive_config, packed_environment
from parastudio.core.tablebuild.spark_log import quiet_driver_log
from parastudio.core.tablebuild.spark_reach import (
    DEFAULT_TIMEOUT_SECONDS,
    SparkUnreachable,
    check_reachable,
    connect_retry_policy,
    first_answer,
    shown_server,
    unreachable,
)
from parastudio.core.tablebuild.spark_worker_watch import watch_workers

# Every master Spark takes, passed through (issue 41): local threads (with a retry count), a standalone cluster
# (one master or several), YARN, Kubernetes; only local[N] and spark:// are tested here (docs/SCALE.md).
_THREADS = r"([1-9][0-9]*|\*)"
MASTER_PATTERN = re.compile(rf"local(\[{_THREADS}(,[1-9][0-9]*)?\])?|local-cluster\[[0-9]+, *[0-9]+, *[0-9]+\]"
                            r"|spark://[^\s:/,]+:[0-9]+(,[^\s:/,]+:[0-9]+)*|yarn|k8s://\S+")
REMOTE_PATTERN = re.compile(r"sc://[^\s:/]+:[0-9]+(/\S*)?")
MEMORY_PATTERN = re.compile(r"[1-9][0-9]*[kmgt]", re.IGNORECASE)  # a JVM size, as spark-submit takes it
# Local mode runs the executor's tasks (sorts, aggregates, their spills) in the driver's JVM: Spark's own 1g
# default spills a lot; more than this buys little (rows never travel whole to the driver: spark_pivot.py).
LOCAL_DRIVER_MEMORY = "2g"
# No broadcast joins: a broadcast relation is collected into the driver (whatever size the optimizer guessed) before
# it is sent out, so with them the driver's memory would follow the data. Without them every join shuffles and no
# rows pass through the driver (issue 25; tests/test_spark_phrase_table.py runs a build with a 1 MiB result limit).
NO_BROADCAST_JOINS = {"spark.sql.autoBroadcastJoinThreshold": "-1"}
# Where `core` was imported from: executors on this machine import the same code (see _classic_config).
CHECKOUT = Path(__file__).resolve().parents[2]


class SparkUnavailable(RuntimeError):
    """pyspark or a Java runtime is missing, or the settings name no Spark; the message says which."""


@dataclass(frozen=True)
class SparkSettings:
    """Where the Spark work runs: exactly one of ``master`` and ``remote``."""

    master: str | None = "local[*]"
    remote: str | None = None
    shuffle_partitions: int | None = None  # None: twice the threads of local[N], else Spark's default
    local_dir: str | None = None  # scratch space for shuffles and spills (spark.local.dir)
    # JVM heaps (spark.driver.memory, spark.executor.memory), e.g. "4g". driver_memory None: LOCAL_DRIVER_MEMORY
    # in local mode (the driver's JVM is also the executor), else Spark's default. Not for --remote: the server
    # owns its JVMs.
    driver_memory: str | None = None
    executor_memory: str | None = None
    # Seconds a Spark server may take to answer (each step: the connection, then its first answer), and a job
    # on a standalone cluster may wait with no executor, before the command fails saying which.
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    # The packed environment shipped to a cluster's executors (a file or a URI Spark reads); None: build it
    # (core/tablebuild/spark_environment.py). Not used by local[N], whose executors are this process's JVM.
    archive: str | None = None

    def __post_init__(self) -> None:
        if (self.master is None) == (self.remote is None):
            raise SparkUnavailable("give exactly one of --master (local[N], spark://HOST:PORT) and --remote (sc://HOST:PORT)")
        if self.master is not None and not MASTER_PATTERN.fullmatch(self.master):
            raise SparkUnavailable("--master expects local[N], spark://HOST:PORT, yarn or k8s://URL (what spark-submit "
                                   f"takes); got {self.master!r}")
        if self.remote is not None and not REMOTE_PATTERN.fullmatch(self.remote):
            raise SparkUnavailable(f"--remote expects sc://HOST:PORT; got {self.remote!r}")
        for flag, value in (("--driver-memory", self.driver_memory), ("--executor-memory", self.executor_memory)):
            if value is None:
                continue
            if not MEMORY_PATTERN.fullmatch(value):
                raise SparkUnavailable(f"{flag} expects a size such as 512m or 4g; got {value!r}")
            if self.is_connect:
                raise SparkUnavailable(f"{flag} needs --master: a Spark Connect server sets its own memory")
        if self.archive is not None:
            if self.is_connect or self.is_local:
                raise SparkUnavailable("--spark-archive needs a cluster --master (spark://, yarn, k8s://): local[N] "
                                       "runs this interpreter and a Spark Connect server its own")
            if "://" not in self.archive and not Path(self.archive).is_file():
                raise SparkUnavailable(f"--spark-archive: no such file: {self.archive}")
        if not (isinstance(self.timeout, (int, float)) and 0 < self.timeout and math.isfinite(self.timeout)):
            raise SparkUnavailable(f"--spark-timeout expects a number of seconds above 0; got {self.timeout!r}")

    @property
    def is_connect(self) -> bool:
        return self.remote is not None

    @property
    def is_local(self) -> bool:
        return self.master is not None and self.master.startswith("local")

    @property
    def is_standalone(self) -> bool:
        return self.master is not None and self.master.startswith("spark://")


def java_available() -> bool:
    java_home = os.environ.get("JAVA_HOME")
    return bool(java_home and Path(java_home, "bin", "java").exists()) or shutil.which("java") is not None


def _local_threads(master: str) -> int:
    inside = master[len("local[") : -1].split(",")[0] if master.startswith("local[") else "1"
    return (os.cpu_count() or 1) if inside == "*" else int(inside)


def _classic_config(settings: SparkSettings) -> dict[str, str]:
    config = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.pyspark.driver.python": sys.executable,
        **NO_BROADCAST_JOINS,
    }
    if settings.is_local:  # the executors are this machine's: this interpreter, this checkout's `core`
        config["spark.pyspark.python"] = sys.executable
        config["spark.executorEnv.PYTHONPATH"] = os.pathsep.join(
            part for part in (str(CHECKOUT), os.environ.get("PYTHONPATH", "")) if part)
    else:  # a cluster's executors run the packed environment, shipped with the job (issue 41)
        try:
            config.update(archive_config(settings.archive or packed_environment()))
        except ArchiveError as error:
            raise SparkUnavailable(str(error)) from None
    partitions = settings.shuffle_partitions
    if partitions is None and settings.is_local:
        partitions = 2 * _local_threads(settings.master)
    if partitions is not None:
        config["spark.sql.shuffle.partitions"] = str(partitions)
        config["spark.default.parallelism"] = str(partitions)
    if settings.local_dir is not None:
        config["spark.local.dir"] = settings.local_dir
    driver_memory = settings.driver_memory
    if driver_memory is None and settings.is_local:
        driver_memory = LOCAL_DRIVER_MEMORY
    if driver_memory is not None:  # read when the JVM starts: pyspark passes it to spark-submit
        config["spark.driver.memory"] = driver_memory
    if settings.executor_memory is not None:
        config["spark.executor.memory"] = settings.executor_memory
    return config


def spark_session(settings: SparkSettings, *, app_name: str = "parastudio"):
    """A new (or the running) SparkSession for ``settings``; the caller stops it when done.

    Raises :class:`core.tablebuild.spark_reach.SparkUnreachable` when the master or the Connect server does not
    answer within ``settings.timeout`` (a master that takes the connection but never registers the application:
    after Spark's own limit, about a minute), :class:`SparkUnavailable` when pyspark or Java is missing."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable("pyspark is not installed: pip install 'paraphrase-studio[spark]'") from None
    # pyspark warns on every import that it has not been tried with this pandas; our paths use pyarrow only.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    if settings.is_connect:
        return _connect_session(SparkSession, settings, app_name)
    if not java_available():
        raise SparkUnavailable("Spark needs a Java 17+ runtime: apt-get install openjdk-17-jre-headless "
                               "(or set JAVA_HOME)")
    return _classic_session(SparkSession, settings, app_name)


MASTER = "Spark master"
CONNECT_SERVER = "Spark Connect server"


def _connect_session(SparkSession, settings: SparkSettings, app_name: str):
    check_reachable(CONNECT_SERVER, settings.remote, settings.timeout)
    # [RETRIES_EXCEEDED]: the one line we print says it better.
    warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")
    # No call reaches the server until the session has options to set: the retries are bounded first.
    session = SparkSession.builder.remote(settings.remote).getOrCreate()
    # The client's own retries tolerate ten minutes of a server gone; ours give up after about the timeout.
    session.client.set_retry_policies([connect_retry_policy(settings.timeout)])

    def first_call() -> None:
        SparkSession.builder.remote(settings.remote).appName(app_name).getOrCreate()  # the same session, named
        for key, value in NO_BROADCAST_JOINS.items():  # this client's session only: the server keeps its own
            session.conf.set(key, value)

    try:
        first_answer(CONNECT_SERVER, settings.remote, settings.timeout, first_call,
                     expected="a Spark Connect server")
    except Exception as error:
        # Closed, the client makes no more calls: its exit hook would otherwise call the silent server again
        # (each retry waiting out gRPC's handshake), and the abandoned first call ends with the channel.
        session.client.close()
        if not type(error).__module__.startswith(("pyspark", "grpc")):
            raise
        cause = next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)
        raise unreachable(CONNECT_SERVER, settings.remote, settings.timeout, cause[:300]) from None
    return session


def _classic_session(SparkSession, settings: SparkSettings, app_name: str):
    from pyspark import SparkConf

    on_cluster = settings.is_standalone
    if on_cluster:
        check_reachable(MASTER, settings.master, settings.timeout)
    conf = SparkConf()
    for key, value in {"spark.master": settings.master, "spark.app.name": app_name,
                       **_classic_config(settings)}.items():
        conf.set(key, value)
    with quiet_driver_log(conf):
        # Not bounded by our timeout: most of SparkContext() is this machine's work (the JVM, the block
        # manager), which a loaded machine slows, and the wait for the master's registration inside it is
        # bounded by Spark itself (three tries 20 s apart; then Spark stops the context it hands back).
        try:
            session = SparkSession.builder.config(conf=conf).getOrCreate()
        except Exception as error:  # the session's first call into the context Spark has just stopped
            if on_cluster and "stopped SparkContext" in str(error):
                raise _not_registered(settings.master) from None
            raise
    context = session.sparkContext
    # pyspark names the executors' Python from $PYSPARK_PYTHON (else "python3" on their PATH), not from
    # spark.pyspark.python, which only spark-submit reads: this context's functions carry the one we chose.
    context.pythonExec = conf.get("spark.pyspark.python")
    if on_cluster and not _registered(context):
        raise _not_registered(settings.master)
    context.setLogLevel("ERROR")
    if on_cluster:
        watch_workers(context, shown_server(settings.master), settings.timeout)
    return session


def _not_registered(master: str) -> SparkUnreachable:
    return SparkUnreachable(f"the {MASTER} {shown_server(master)} took the connection but did not register the "
                            "application (is it a Spark master? Spark gives up after three tries 20 s apart)")


def _registered(context) -> bool:
    """Whether a standalone master registered ``context``'s application. Spark stops a context whose master never
    answered, but in a thread of its own, maybe after SparkContext() has returned; its application id is then
    Spark's placeholder ``spark-application-...``, where a master's is ``app-...``."""
    java = context._jsc
    return java is not None and not java.sc().isStopped() and context.applicationId.startswith("app-")


def session_summary(session) -> str:
    """Where a classic session runs and with what driver heap, for a note: ``local[2], 4 partitions at a time,
    driver memory 512m``."""
    context = session.sparkContext
    conf = context.getConf()
    return (f"{context.master}, {context.defaultParallelism} partitions at a time, driver memory "
            f"{conf.get('spark.driver.memory', 'Spark default')}")
