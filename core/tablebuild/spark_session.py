"""A Spark session for the table builds: local threads, a standalone cluster, or Spark Connect.

``--master local[N]`` runs Spark inside this machine's JVM with N threads, ``--master spark://HOST:PORT``
submits to a standalone cluster, ``--remote sc://HOST:PORT`` talks to a Spark Connect server (SQL and
DataFrames only: no RDDs). pyspark is imported only here and only when a session is asked for, so the
library works without it (``pip install 'paraphrase-studio[spark]'`` and a Java 17 runtime add it).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

MASTER_PATTERN = re.compile(r"local(\[([1-9][0-9]*|\*)\])?|spark://[^\s:/]+:[0-9]+")
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

    def __post_init__(self) -> None:
        if (self.master is None) == (self.remote is None):
            raise SparkUnavailable("give exactly one of --master (local[N], spark://HOST:PORT) and --remote (sc://HOST:PORT)")
        if self.master is not None and not MASTER_PATTERN.fullmatch(self.master):
            raise SparkUnavailable(f"--master expects local, local[N], local[*] or spark://HOST:PORT; got {self.master!r}")
        if self.remote is not None and not REMOTE_PATTERN.fullmatch(self.remote):
            raise SparkUnavailable(f"--remote expects sc://HOST:PORT; got {self.remote!r}")
        for flag, value in (("--driver-memory", self.driver_memory), ("--executor-memory", self.executor_memory)):
            if value is None:
                continue
            if not MEMORY_PATTERN.fullmatch(value):
                raise SparkUnavailable(f"{flag} expects a size such as 512m or 4g; got {value!r}")
            if self.is_connect:
                raise SparkUnavailable(f"{flag} needs --master: a Spark Connect server sets its own memory")

    @property
    def is_connect(self) -> bool:
        return self.remote is not None


def java_available() -> bool:
    java_home = os.environ.get("JAVA_HOME")
    return bool(java_home and Path(java_home, "bin", "java").exists()) or shutil.which("java") is not None


def _local_threads(master: str) -> int:
    inside = master[len("local[") : -1] if master.startswith("local[") else "1"
    return (os.cpu_count() or 1) if inside == "*" else int(inside)


def _classic_config(settings: SparkSettings) -> dict[str, str]:
    config = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        # Python workers run this interpreter and import this checkout's `core`, as the driver does (on a
        # cluster of other machines the same path must hold the same code).
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        "spark.executorEnv.PYTHONPATH": os.pathsep.join(
            part for part in (str(CHECKOUT), os.environ.get("PYTHONPATH", "")) if part),
        **NO_BROADCAST_JOINS,
    }
    partitions = settings.shuffle_partitions
    if partitions is None and settings.master.startswith("local"):
        partitions = 2 * _local_threads(settings.master)
    if partitions is not None:
        config["spark.sql.shuffle.partitions"] = str(partitions)
        config["spark.default.parallelism"] = str(partitions)
    if settings.local_dir is not None:
        config["spark.local.dir"] = settings.local_dir
    driver_memory = settings.driver_memory
    if driver_memory is None and settings.master.startswith("local"):
        driver_memory = LOCAL_DRIVER_MEMORY
    if driver_memory is not None:  # read when the JVM starts: pyspark passes it to spark-submit
        config["spark.driver.memory"] = driver_memory
    if settings.executor_memory is not None:
        config["spark.executor.memory"] = settings.executor_memory
    return config


def spark_session(settings: SparkSettings, *, app_name: str = "parastudio"):
    """A new (or the running) SparkSession for ``settings``; the caller stops it when done."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable("pyspark is not installed: pip install 'paraphrase-studio[spark]'") from None
    if settings.is_connect:
        session = SparkSession.builder.remote(settings.remote).appName(app_name).getOrCreate()
        for key, value in NO_BROADCAST_JOINS.items():  # this client's session only: the server keeps its own
            session.conf.set(key, value)
        return session
    if not java_available():
        raise SparkUnavailable("Spark needs a Java 17+ runtime: apt-get install openjdk-17-jre-headless "
                               "(or set JAVA_HOME)")
    builder = SparkSession.builder.master(settings.master).appName(app_name)
    for key, value in _classic_config(settings).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def session_summary(session) -> str:
    """Where a classic session runs and with what driver heap, for a note: ``local[2], 4 partitions at a time,
    driver memory 512m``."""
    context = session.sparkContext
    conf = context.getConf()
    return (f"{context.master}, {context.defaultParallelism} partitions at a time, driver memory "
            f"{conf.get('spark.driver.memory', 'Spark default')}")
