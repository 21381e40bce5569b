"""Spark's driver log on our standard error: only what our one-line messages do not already say.

By default the driver's JVM logs warnings from its first line (a loopback host name, no native Hadoop) and, when a
job fails, the same failure again with its Java stack ("Lost executor", "Aborting job", a master that does
not answer), around the one line the command prints. Unless the user configured log4j themselves
(``log4j2.properties`` in ``SPARK_CONF_DIR``), the JVM starts with :data:`DRIVER_LOG4J2`: errors only, and none
from the loggers whose errors restate a failure our messages name (core/cli/spark_failure.py,
core/tablebuild/spark_reach.py, core/tablebuild/spark_worker_watch.py).
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

# Loggers whose ERRORs restate, with a Java stack, what our one line says.
RESTATING_LOGGERS = (
    "org.apache.spark.scheduler.TaskSchedulerImpl",  # "Lost executor ...: worker lost"
    "org.apache.spark.sql.execution.datasources.FileFormatWriter",  # "Aborting job", the cancelled job's stack
    "org.apache.spark.deploy.client.StandaloneAppClient$ClientEndpoint",  # a master that does not answer
    "org.apache.spark.scheduler.cluster.StandaloneSchedulerBackend",  # "All masters are unresponsive"
    "org.apache.spark.network.client.TransportResponseHandler",  # "requests outstanding" to a silent master
)

DRIVER_LOG4J2 = "\n".join([
    "rootLogger.level = error",
    "rootLogger.appenderRef.stderr.ref = console",
    "appender.console.type = Console",
    "appender.console.name = console",
    "appender.console.target = SYSTEM_ERR",
    "appender.console.layout.type = PatternLayout",
    "appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex",
    # The level pyspark's JVM (a "shell" to Spark) shows: the same, so it does not announce a change to WARN.
    "logger.shell.name = org.apache.spark.api.python.PythonGatewayServer",
    "logger.shell.level = error",
    *(line for number, name in enumerate(RESTATING_LOGGERS)
      for line in (f"logger.restating{number}.name = {name}", f"logger.restating{number}.level = off")),
]) + "\n"


def user_log_config() -> Path | None:
    """The user's own log4j2 configuration, which Spark reads and we leave alone, if there is one."""
    folders = [os.environ.get("SPARK_CONF_DIR")]
    if os.environ.get("SPARK_HOME"):
        folders.append(os.path.join(os.environ["SPARK_HOME"], "conf"))
    return next((Path(folder, "log4j2.properties") for folder in folders
                 if folder and Path(folder, "log4j2.properties").is_file()), None)


@contextmanager
def quiet_driver_log(conf) -> Iterator[None]:
    """Inside the block, ``conf`` (a pyspark SparkConf for a JVM about to start) starts it with
    :data:`DRIVER_LOG4J2`; the file holding it is removed when the block ends (log4j has read it by then: the
    JVM logs before it answers pyspark)."""
    if user_log_config() is not None:
        yield
        return
    handle, path = tempfile.mkstemp(prefix="parastudio-spark-log4j2-", suffix=".properties")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(DRIVER_LOG4J2)
        # defaultJavaOptions, not extraJavaOptions: a user's -D options (given as extraJavaOptions) still apply.
        options = conf.get("spark.driver.defaultJavaOptions")
        conf.set("spark.driver.defaultJavaOptions",
                 " ".join(filter(None, (options, f"-Dlog4j2.configurationFile=file:{path}"))))
        yield
    finally:
        os.unlink(path)
