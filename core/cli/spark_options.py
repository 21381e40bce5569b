"""The Spark flags of every ``--engine spark`` command (pivot, generate, data build): one parser, one set of messages.

``--master``, ``--remote``, ``--driver-memory`` and ``--executor-memory`` (issue 25) and ``--spark-timeout``
(issue 39; else ``PARASTUDIO_SPARK_TIMEOUT``, else 30 s) are read into one
:class:`core.tablebuild.spark_session.SparkSettings`, which checks them before Spark starts, so a bad value is a
one-line message and exit 2 on every command alike.
"""

from __future__ import annotations

import argparse
import os


def add_spark_options(parser: argparse.ArgumentParser) -> None:
    """The Spark flags; the command adds its own ``--engine`` (with ``spark`` among its choices)."""
    parser.add_argument("--master", metavar="URL",
                        help="with --engine spark: what spark-submit takes: local[N] (default local[*]), "
                        "spark://HOST:PORT (a standalone cluster), yarn, k8s://URL; a cluster's executors run the "
                        "packed environment (--spark-archive)")
    parser.add_argument("--remote", metavar="URL", help="with --engine spark: a Spark Connect server, sc://HOST:PORT")
    parser.add_argument("--driver-memory", metavar="SIZE",
                        help="with --engine spark --master: the driver's JVM heap, e.g. 4g (default: 2g in local mode, "
                        "where the driver also runs the tasks; Spark's own default on a cluster)")
    parser.add_argument("--executor-memory", metavar="SIZE",
                        help="with --engine spark --master spark://...: each executor's JVM heap, e.g. 8g (default: "
                        "Spark's)")
    parser.add_argument("--spark-archive", metavar="FILE",
                        help="with --engine spark and a cluster --master: the packed environment to ship to the "
                        "executors (a file, or a URI such as hdfs://...; default: packed from this interpreter and "
                        "cached under ~/.cache/paraphrase-studio/spark-env)")
    parser.add_argument("--spark-timeout", metavar="SECONDS",
                        help="with --engine spark: how long the master or the Spark Connect server may take to answer, "
                        "and a job on a cluster may wait with no worker, before the command fails saying which "
                        "(default: $PARASTUDIO_SPARK_TIMEOUT, else 30)")


def spark_settings(args: argparse.Namespace, *, without_connect: str | None = None):
    """The :class:`SparkSettings` of ``args`` (None for another engine).

    ``without_connect``: why this command cannot run on Spark Connect (then ``--remote`` is refused with it).
    Raises :class:`core.tablebuild.spark_session.SparkUnavailable` with the one-line reason.
    """
    from parastudio.core.tablebuild.spark_reach import DEFAULT_TIMEOUT_SECONDS, TIMEOUT_ENVIRONMENT, parse_timeout
    from parastudio.core.tablebuild.spark_session import SparkSettings, SparkUnavailable

    if args.engine != "spark":
        if args.master is not None or args.remote is not None:
            raise SparkUnavailable("--master and --remote need --engine spark")
        if args.driver_memory is not None or args.executor_memory is not None:
            raise SparkUnavailable("--driver-memory and --executor-memory need --engine spark")
        if args.spark_timeout is not None:
            raise SparkUnavailable("--spark-timeout needs --engine spark")
        if args.spark_archive is not None:
            raise SparkUnavailable("--spark-archive needs --engine spark")
        return None
    try:
        if args.spark_timeout is not None:
            timeout = parse_timeout(args.spark_timeout, "--spark-timeout")
        elif os.environ.get(TIMEOUT_ENVIRONMENT, "").strip():
            timeout = parse_timeout(os.environ[TIMEOUT_ENVIRONMENT], TIMEOUT_ENVIRONMENT)
        else:
            timeout = DEFAULT_TIMEOUT_SECONDS
    except ValueError as error:
        raise SparkUnavailable(str(error)) from None
    master = args.master if args.master or args.remote else "local[*]"
    settings = SparkSettings(master=master, remote=args.remote, driver_memory=args.driver_memory,
                             executor_memory=args.executor_memory, timeout=timeout, archive=args.spark_archive)
    if settings.is_connect and without_connect is not None:
        raise SparkUnavailable(f"--remote: {without_connect}; use --master local[N] or spark://HOST:PORT")
    return settings
