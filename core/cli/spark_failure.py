"""A Spark job that fails midway, told in one line: the cause, not the Java and Python stacks around it.

A failed job reaches the driver as py4j's ``Py4JJavaError`` (RDD jobs: ``generate`` and the table build)
or as one of pyspark's captured exceptions (DataFrame jobs: the pivot), whose text holds the JVM's stack and,
when an executor's Python raised, that Python traceback as text. The cause a user can act on is the executor's
Python exception (its traceback's last line), else the JVM's innermost ``Caused by:``, else the first line.
A job we cancelled ourselves because no worker was left (core/tablebuild/spark_worker_watch.py) is told by the
reason we gave, alone.
"""

from __future__ import annotations

import re

from parastudio.core.tablebuild.spark_worker_watch import NO_WORKER

# Spark quotes a cancelled job's reason inside its own message: "[SPARK_JOB_CANCELLED] Job 3 cancelled
# <reason> SQLSTATE: XXKDA".
_OUR_REASON = re.compile(re.escape(NO_WORKER) + r"[^\n]*?(?= SQLSTATE: |\n|$)")
_LONGEST = 400  # characters of the cause shown; a cause longer than this is an exception's dump, not a reason


def spark_failure_line(error: BaseException) -> str | None:
    """``Spark failed: <cause>`` for an exception raised by pyspark or py4j, else None (not Spark's)."""
    module = type(error).__module__ or ""
    if not module.startswith(("pyspark", "py4j")):
        return None
    text = _text(error)
    ours = _OUR_REASON.search(text)
    if ours:
        return ours.group(0)
    cause = _cause(text) or type(error).__name__
    if len(cause) > _LONGEST:
        cause = cause[:_LONGEST] + " ..."
    line = f"Spark failed: {cause}"
    if "OutOfMemoryError" in cause or "maxResultSize" in cause:
        line += " (give Spark more memory: --driver-memory SIZE, --executor-memory SIZE)"
    return line


def _text(error: BaseException) -> str:
    java = getattr(error, "java_exception", None)  # Py4JJavaError: str() would call into a JVM that may be gone
    if java is not None:
        try:
            return str(java.toString()) + "\n" + _java_causes(java)
        except Exception:  # noqa: BLE001 - the JVM died with the job: its Python-side text is all there is
            pass
    return str(error)


def _java_causes(java) -> str:
    lines, seen = [], 0
    cause = java.getCause()
    while cause is not None and seen < 20:  # a cause chain that loops back stops here
        lines.append(f"Caused by: {cause.toString()}")
        cause, seen = cause.getCause(), seen + 1
    return "\n".join(lines)


def _cause(text: str) -> str:
    lines = text.splitlines()
    starts = [number for number, line in enumerate(lines) if "Traceback (most recent call last)" in line]
    if starts:  # an executor's Python raised: its exception is the first unindented line after the traceback
        for line in lines[starts[-1] + 1:]:
            if line.strip() and not line[0].isspace():
                return line.strip()
    causes = [line for line in lines if line.startswith("Caused by: ")]
    if causes:
        return causes[-1][len("Caused by: "):].strip()
    return next((line.strip() for line in lines if line.strip()), "")
