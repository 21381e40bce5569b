"""A job on a standalone cluster that waits mid-task until its worker is killed (tests/test_spark_unreachable.py).

``python -m tests.spark_waiting_job MASTER TIMEOUT STARTED``: opens a session as the commands do
(:func:`core.tablebuild.spark_session.spark_session`), waits until an executor has registered (so the watch's
clock can only start when the worker dies, never while the executor is still starting), then runs a job whose
task creates the file STARTED and waits for ever. What ends the job is printed to standard error as the command
line prints it; exit 1. Run in its own process: pytest's own process may hold another SparkSession, which
``getOrCreate`` would hand back.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

EXECUTOR_START_LIMIT_SECONDS = 180  # an executor slower than this is a broken set-up, not a slow machine


def _wait_in_task(started: str):
    def run(rows):
        import time as clock

        Path(started).touch()
        while True:  # the task's worker is killed under it; only the driver's watch ends the job
            clock.sleep(1)
        yield from rows
    return run


def main(master: str, timeout: str, started: str) -> int:
    from parastudio.core.cli.spark_failure import spark_failure_line
    from parastudio.core.tablebuild.spark_session import SparkSettings, spark_session

    session = spark_session(SparkSettings(master=master, timeout=float(timeout)), app_name="parastudio-waiting-job")
    try:
        context = session.sparkContext
        tracker = context._jsc.sc().statusTracker()
        deadline = time.monotonic() + EXECUTOR_START_LIMIT_SECONDS
        while len(tracker.getExecutorInfos()) < 2:  # the driver and one executor
            if time.monotonic() > deadline:
                print("no executor registered", file=sys.stderr)
                return 3
            time.sleep(0.2)
        try:
            context.parallelize(range(2), 1).mapPartitions(_wait_in_task(started)).collect()
        except Exception as error:  # noqa: BLE001 - told as the command line tells it
            print(f"parastudio: error: {spark_failure_line(error)}", file=sys.stderr)
            return 1
        print("the job ended without its worker", file=sys.stderr)
        return 0
    finally:
        session.stop()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
