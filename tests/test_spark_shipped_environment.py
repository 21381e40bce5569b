"""Our code shipped to a cluster's executors, not assumed there (issue 41): the packed environment.

The standalone cluster of tests/spark_fixtures.py runs its worker as a machine without this project would
(another working directory, no PYTHONPATH, no PYSPARK_PYTHON, a PATH without this interpreter); the pivot and
``generate`` on it (tests/test_spark_pivot.py, tests/test_spark_generation.py) write the local bytes only if
the shipped environment works. Here: that the executors' Python and ``core`` are the shipped ones, and that
the masters and archives a user passes are taken or refused in one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from parastudio.core.tablebuild.spark_session import SparkSettings, SparkUnavailable
from tests.conftest import ROOT

spark_test = pytest.mark.spark


# The driver runs in a process of its own: a SparkContext other tests of this session left in this process
# (the local session) would answer instead of a new one on the cluster.
_DRIVER = """
import json, sys
from parastudio.core.tablebuild.spark_session import SparkSettings, spark_session

def where(_):
    import os, sys as executor_sys
    import numpy
    import parastudio.core
    return executor_sys.executable, parastudio.core.__file__, numpy.__file__, os.getcwd()

session = spark_session(SparkSettings(master=sys.argv[1], driver_memory="768m", executor_memory="512m"),
                        app_name="parastudio-shipped")
try:
    print(json.dumps(session.sparkContext.parallelize([0], 1).map(where).collect()[0]))
finally:
    session.stop()
"""


@spark_test
def test_a_cluster_executor_runs_python_and_core_from_the_shipped_environment(spark_cluster, tmp_path):
    from parastudio.core.tablebuild.spark_environment import ALIAS

    done = subprocess.run([sys.executable, "-c", _DRIVER, spark_cluster.master], capture_output=True, text=True,
                          cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    executable, core_file, numpy_file, directory = json.loads(done.stdout.strip().splitlines()[-1])
    shipped = Path(directory) / ALIAS
    assert spark_cluster.worker_directory.resolve() in Path(directory).resolve().parents
    for file in (executable, core_file, numpy_file):
        assert shipped in Path(file).parents, file
    assert Path(ROOT) not in Path(core_file).parents


@pytest.mark.parametrize("master", ["yarn", "k8s://https://10.0.0.1:6443", "spark://a:7077,b:7077", "local[4,2]"])
def test_every_master_spark_submit_takes_is_passed_through(master):
    assert SparkSettings(master=master).master == master


@pytest.mark.parametrize("master", ["yarn-cluster", "spark://host", "mesos://host:5050", "local[0]"])
def test_a_master_spark_does_not_take_is_refused(master):
    with pytest.raises(SparkUnavailable, match="--master expects"):
        SparkSettings(master=master)


@pytest.mark.parametrize("flags, message", [
    (["--engine", "spark", "--master", "spark://127.0.0.1:7077", "--spark-archive", "no-such.tar.gz"],
     "--spark-archive: no such file: no-such.tar.gz"),
    (["--engine", "spark", "--master", "local[2]", "--spark-archive", "pyproject.toml"],
     "--spark-archive needs a cluster --master"),
    (["--spark-archive", "pyproject.toml"], "--spark-archive needs --engine spark"),
])
def test_a_bad_archive_flag_is_one_line_and_exit_2(flags, message, tmp_path):
    done = subprocess.run([sys.executable, "-m", "parastudio", "pivot", str(tmp_path / "in.txt"), "-o",
                           str(tmp_path / "out.txt"), *flags], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
