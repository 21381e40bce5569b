"""Judgments per second with 20 annotators judging one study at once (issue 18), on PostgreSQL or SQLite.

Each annotator is a process of its own (or a thread, ``--threads``) with its
own connection, going through the store's public operations as the app does
(:mod:`tests.annotator_simulation`: session lock, AnnotationSession,
record_judgment, an undo now and then, heartbeats); a second batch of
candidates is imported and assigned a third of the way in. Prints
judgments/s, the latency of a judgment's commit (median, 95th and 99th
percentile), and the audit of the database against what the annotators did
(empty when nothing was lost or doubled). Asserts nothing.

    PARASTUDIO_TEST_POSTGRES_URL=postgresql+psycopg://parastudio:parastudio@localhost/postgres \\
        python benchmarks/bench_store_concurrency.py            # a fresh database on that server
    python benchmarks/bench_store_concurrency.py --sqlite       # the same on a SQLite file
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from annotator_simulation import add_candidates, annotator_names, audit, judge, make_study  # noqa: E402


class StartAt:
    """A start line every process can wait for: a moment on the wall clock (picklable, unlike a barrier)."""

    def __init__(self, moment: float):
        self.moment = moment

    def wait(self) -> None:
        time.sleep(max(0.0, self.moment - time.time()))


def _fresh_postgres_database(base: str):
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"parastudio_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return make_url(base).set(database=name).render_as_string(hide_password=False), drop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("PARASTUDIO_TEST_POSTGRES_URL"),
                        help="a PostgreSQL URL whose account may create databases (default: "
                        "$PARASTUDIO_TEST_POSTGRES_URL)")
    parser.add_argument("--sqlite", action="store_true", help="run on a SQLite file instead")
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15.0, help="judging time (default 15)")
    parser.add_argument("--sentences", type=int, default=1500, help="first batch: 2 candidates each")
    parser.add_argument("--threads", action="store_true", help="annotators as threads of one process")
    args = parser.parse_args()

    drop = None
    if args.sqlite:
        directory = tempfile.TemporaryDirectory()
        url, backend = str(Path(directory.name) / "load.sqlite"), "SQLite (WAL)"
    elif args.url:
        url, drop = _fresh_postgres_database(args.url)
        backend = "PostgreSQL"
    else:
        print("no PostgreSQL: set PARASTUDIO_TEST_POSTGRES_URL (packaging/setup.sh test does) or pass --url; "
              "--sqlite runs on SQLite", file=sys.stderr)
        return 2
    try:
        names = annotator_names(args.annotators)
        study = make_study(url, args.annotators, args.sentences)
        start = StartAt(time.time() + 2.0)  # every annotator connected and ready before it
        if args.threads:
            pool = concurrent.futures.ThreadPoolExecutor(args.annotators)
        else:
            pool = concurrent.futures.ProcessPoolExecutor(
                args.annotators, mp_context=multiprocessing.get_context("fork"))
        with pool:
            futures = [pool.submit(judge, url, study, name, args.seconds, index, start)
                       for index, name in enumerate(names)]
            second_batch = threading.Timer(max(0.0, start.moment - time.time()) + args.seconds / 3, add_candidates,
                                           (url, study, args.annotators, args.sentences, args.sentences // 3))
            second_batch.start()
            logs = [future.result() for future in futures]
            second_batch.join()
        problems = audit(url, study, logs)
    finally:
        if drop:
            drop()
    answers = sum(len(log.answers) for log in logs)
    latencies = sorted(latency * 1000 for log in logs for latency in log.latencies)
    per_annotator = [len(log.answers) / args.seconds for log in logs]
    cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [float("nan")] * 99
    print(f"{backend}, {args.annotators} annotators as {'threads' if args.threads else 'processes'}, "
          f"{args.seconds:g} s, {os.cpu_count()} CPUs")
    print(f"  judgments: {answers} ({sum(len(log.undone) for log in logs)} undone), "
          f"{answers / args.seconds:.0f} judgments/s in all, {statistics.mean(per_annotator):.1f}/s per annotator "
          f"(slowest {min(per_annotator):.1f}/s)")
    print(f"  record_judgment latency: median {statistics.median(latencies):.1f} ms, 95th percentile "
          f"{cuts[94]:.1f} ms, 99th {cuts[98]:.1f} ms")
    print(f"  audit: {'nothing lost, doubled or served twice beyond the design' if not problems else problems}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
