"""A job on a standalone cluster whose last worker died fails, instead of waiting for ever.

When every executor is gone Spark does not fail the job: a task lost with its worker does not count as the
task's failure, and the scheduler waits for new executors that no worker will start ("Initial job has not
accepted any resources"), with no limit and no setting that adds one. So a daemon thread watches the driver's
own view of the cluster, once a second: while a job is running and no executor is registered (the status
tracker lists the driver alone), a clock runs; past the settings' ``timeout`` every running job is cancelled
with :data:`NO_WORKER` as its reason, and so is any later job while there is still no executor. The caller's
blocked action then raises Spark's own "job cancelled" error, whose text carries the reason, and
:func:`core.cli.spark_failure.spark_failure_line` shows the reason alone.

The driver learns of a worker killed or stopped at once (its connection drops); of a machine cut off from
the network, after ``spark.network.timeout`` (120 s by default) without heartbeats. Both then wait the
``timeout`` more. Not for local mode, where the driver's JVM is the executor.
"""

from __future__ import annotations

import threading
import time

NO_WORKER = "no Spark worker left to run the job"
POLL_SECONDS = 1.0  # how often the cluster is looked at: a py4j call or two, negligible beside a job


def no_worker_reason(master: str, seconds: float) -> str:
    return (f"{NO_WORKER}: {master} had no executor for {seconds:g} s (its last worker died, or none is "
            "running; --spark-timeout SECONDS or PARASTUDIO_SPARK_TIMEOUT sets the wait)")


class WorkerWatch(threading.Thread):
    """Cancels the jobs of ``context`` (a classic SparkContext) once it has had no executor for ``seconds``
    while a job was running. Ends by itself when the context stops (or its JVM is gone)."""

    def __init__(self, context, master: str, seconds: float) -> None:
        super().__init__(name="parastudio-spark-worker-watch", daemon=True)
        self._scala_context = context._jsc.sc()
        self._jobs = context._jsc.statusTracker()
        self._reason = no_worker_reason(master, seconds)
        self._seconds = seconds
        self._stopped = threading.Event()
        self.gave_up = False  # a job was cancelled for want of a worker (then later ones are at once)

    def stop(self) -> None:
        self._stopped.set()

    def run(self) -> None:
        idle_since = None  # monotonic time since which a job has waited with no executor
        while not self._stopped.wait(POLL_SECONDS):
            try:
                if self._scala_context.isStopped():
                    return
                jobs = list(self._jobs.getActiveJobIds())
                # The status tracker lists the driver too: one entry is no executor at all.
                executors = len(self._scala_context.statusTracker().getExecutorInfos()) - 1
                if not jobs or executors > 0:
                    idle_since = None
                    continue
                now = time.monotonic()
                idle_since = idle_since if idle_since is not None else now
                if self.gave_up or now - idle_since >= self._seconds:
                    self.gave_up = True
                    for job in jobs:
                        self._scala_context.cancelJob(job, self._reason)
            except Exception:  # noqa: BLE001 - the JVM went away with the session: nothing left to watch
                return


def watch_workers(context, master: str, seconds: float) -> WorkerWatch:
    """Start a :class:`WorkerWatch` on ``context`` and return it."""
    watch = WorkerWatch(context, master, seconds)
    watch.start()
    return watch
