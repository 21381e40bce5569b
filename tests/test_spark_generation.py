"""`parastudio generate --engine spark` writes the local run's bytes (issue 25, Deliver 4): the beam and MCPG
with a seed on demo verses, through the command line in local mode and on a real standalone cluster, and in
many small partitions and in one on the shared session; with a driver that refuses any job result over 1 MiB
(the candidates come back a wave of partitions at a time); an executor that sees other inputs refuses; flags
that cannot run distributed, and Spark settings that cannot be used, are refused with exit 2."""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import subprocess
import sys

import pytest

from parastudio.core.cli.spark_failure import spark_failure_line
from parastudio.core.demo import demo_files
from parastudio.core.engine.candidates.generation import generate_batches
from parastudio.core.engine.candidates.generation_options import options_for
from parastudio.core.engine.candidates.generation_resources import load_resources
from parastudio.core.spark_generation import engine_spec, generate_on_spark, loads_here
from tests.conftest import ROOT
from tests.spark_fixtures import spark_failure

spark_test = pytest.mark.spark

VERSES = 12
LONGEST_PHRASE = 3


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """The first demo verses, the demo table's rules whose source occurs in them (binarized), the demo LM."""
    demo = demo_files()
    directory = tmp_path_factory.mktemp("spark-generate")
    verses = demo.test_sentences.read_text(encoding="utf-8").splitlines(keepends=True)[:VERSES]
    rules = _rules_for(demo.table, verses)
    table = directory / "table.txt"
    table.write_text("".join(rules), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "parastudio", "table", "binarize", str(table)], check=True, env=_environment(),
                   capture_output=True)
    assert (directory / "table.txt.pstable").is_file() and len(rules) > 100
    sentences = directory / "in.txt"
    sentences.write_text("".join(verses), encoding="utf-8")
    return {"table": table, "lm": demo.lm, "sentences": sentences}


def _rules_for(table, verses: list[str]) -> list[str]:
    """The lines of ``table`` whose source phrase (up to LONGEST_PHRASE words) occurs in one of ``verses``."""
    phrases = set()
    for verse in verses:
        words = verse.split()
        phrases.update(" ".join(words[i:j]) for i in range(len(words))
                       for j in range(i + 1, min(len(words), i + LONGEST_PHRASE) + 1))
    with gzip.open(table, "rt", encoding="utf-8") as handle:
        return [line for line in handle if line.split(" ||| ", 1)[0] in phrases]


def _environment(extra: dict | None = None) -> dict:
    return {**os.environ, **(extra or {}),
            "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}


def _generate(run: dict, *flags: str, environment: dict | None = None) -> subprocess.CompletedProcess:
    with open(run["sentences"], "rb") as stdin:
        return subprocess.run([sys.executable, "-m", "parastudio", "generate", "--table", str(run["table"]), "--lm",
                               str(run["lm"]), "--json", *flags], stdin=stdin, capture_output=True,
                              env=_environment(environment), cwd=ROOT)


BEAM = ("--system", "beam", "--nbest", "3")
MCPG = ("--system", "mcpg-true", "--nbest", "2", "--seed", "11", "--max-episodes", "200")


@spark_test
@pytest.mark.parametrize("flags", [BEAM, MCPG], ids=["beam", "mcpg-true"])
def test_spark_local_writes_the_local_runs_bytes(demo_run, flags):
    local = _generate(demo_run, *flags)
    assert local.returncode == 0, local.stderr.decode()
    on_spark = _generate(demo_run, *flags, "--engine", "spark", "--master", "local[2]")
    assert on_spark.returncode == 0, on_spark.stderr.decode()
    lines = local.stdout.decode().splitlines()
    assert {json.loads(line)["sentence_id"] for line in lines} == set(range(VERSES))
    assert on_spark.stdout == local.stdout
    assert b"generating on Spark (local[2]" in on_spark.stderr


@spark_test
def test_a_standalone_cluster_writes_the_local_runs_bytes(demo_run, spark_cluster):
    local = _generate(demo_run, *MCPG)
    on_cluster = _generate(demo_run, *MCPG, "--engine", "spark", "--master", spark_cluster.master)
    assert on_cluster.returncode == 0, on_cluster.stderr.decode()
    assert local.stdout.count(b"\n") >= VERSES and on_cluster.stdout == local.stdout
    assert "parastudio-generate" in spark_cluster.application_names()


def _loaded(run: dict, system: str, **values):
    options = options_for(system, **values)
    resources = load_resources(options, [str(run["table"])], str(run["lm"]))
    sentences = [line.split() for line in run["sentences"].read_text(encoding="utf-8").splitlines()]
    return options, resources, sentences


@spark_test
def test_one_sentence_per_partition_over_many_waves_keeps_sentence_order(spark, demo_run):
    options, resources, sentences = _loaded(demo_run, "beam", nbest=2)
    spec = engine_spec(options, [str(demo_run["table"])], str(demo_run["lm"]), resources)
    local = [(index, [c.to_json() for c in candidates])
             for index, candidates, _ in generate_batches(options, sentences, resources, processes=1)]
    # 12 partitions, 3 at a time on the shared local[2] session: 4 waves.
    distributed = [(index, [c.to_json() for c in candidates])
                   for index, candidates, _ in generate_on_spark(spark, spec, sentences, sentences_per_partition=1)]
    assert [index for index, _ in distributed] == list(range(VERSES))
    assert distributed == local
    # Each Python worker loaded the engine once for its partitions (12 partitions, at most 3 workers).
    loads = spark.sparkContext.parallelize(range(VERSES), VERSES).mapPartitions(
        lambda _: [(os.getpid(), loads_here(spec))]).collect()
    assert max(count for _, count in loads) == 1, loads


@spark_test
def test_all_sentences_in_one_partition_keep_the_local_bytes(spark, demo_run):
    options, resources, sentences = _loaded(demo_run, "mcpg-true", nbest=2, seed=3, max_episodes=100)
    spec = engine_spec(options, [str(demo_run["table"])], str(demo_run["lm"]), resources)
    local = [(index, [c.to_json() for c in candidates])
             for index, candidates, _ in generate_batches(options, sentences, resources, processes=1)]
    distributed = [(index, [c.to_json() for c in candidates])
                   for index, candidates, _ in generate_on_spark(spark, spec, sentences, partitions=1)]
    assert len(local) == VERSES and distributed == local


# Spark's floor for spark.driver.maxResultSize ("at least 1M"), read from SPARK_CONF_DIR by the command's JVM.
DRIVER_RESULT_LIMIT = 2**20


@pytest.fixture(scope="module")
def all_demo_verses(tmp_path_factory):
    """Every demo test verse twice (200 sentences) and the demo rules whose source occurs in them, binarized."""
    demo = demo_files()
    directory = tmp_path_factory.mktemp("spark-generate-all")
    verses = demo.test_sentences.read_text(encoding="utf-8").splitlines(keepends=True)
    table = directory / "table.txt"
    table.write_text("".join(_rules_for(demo.table, verses)), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "parastudio", "table", "binarize", str(table)], check=True, env=_environment(),
                   capture_output=True)
    sentences = directory / "in.txt"
    sentences.write_text("".join(verses * 2), encoding="utf-8")
    return {"table": table, "lm": demo.lm, "sentences": sentences}


@spark_test
def test_a_driver_that_refuses_job_results_over_1mb_still_gets_the_local_bytes(all_demo_verses, tmp_path):
    """Issue 25: the candidates reach the driver a wave of partitions at a time, never as one result. The
    driver's JVM refuses any job whose task results pass 1 MiB; the output is several times that, and the bytes
    are the local run's. --driver-memory reaches the session (the note names it)."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(f"spark.driver.maxResultSize {DRIVER_RESULT_LIMIT}b\n")
    flags = ("--system", "beam", "--nbest", "10")
    local = _generate(all_demo_verses, *flags)
    assert local.returncode == 0, local.stderr.decode()
    assert len(local.stdout) > 4 * DRIVER_RESULT_LIMIT
    # local[1]: waves of 2 partitions of at most 16 sentences, far below the limit.
    on_spark = _generate(all_demo_verses, *flags, "--engine", "spark", "--master", "local[1]", "--driver-memory",
                         "512m", environment={"SPARK_CONF_DIR": str(conf)})
    assert on_spark.returncode == 0, spark_failure(on_spark.stderr)
    assert b"driver memory 512m" in on_spark.stderr
    assert on_spark.stdout == local.stdout


@spark_test
def test_an_executor_that_sees_other_inputs_refuses(spark, demo_run):
    options, resources, sentences = _loaded(demo_run, "beam")
    spec = engine_spec(options, [str(demo_run["table"])], str(demo_run["lm"]), resources)
    inputs = spec.params["inputs"]
    other_lm = {**inputs, "lm": {**inputs["lm"], "sha256": "0" * 64}}
    tampered = dataclasses.replace(spec, params={**spec.params, "inputs": other_lm})
    with pytest.raises(Exception, match="sees other inputs or code than the driver") as raised:
        list(generate_on_spark(spark, tampered, sentences[:2]))
    # What the command line prints for it: the executor's Python exception, one line, no stacks.
    told = spark_failure_line(raised.value)
    assert told.startswith("Spark failed: ") and "sees other inputs or code than the driver" in told
    assert "\n" not in told and "Traceback" not in told and "\tat " not in told


@spark_test
def test_a_job_that_fails_midway_is_one_line_and_leaves_the_output_file_as_it_was(all_demo_verses, tmp_path):
    """A Spark job that fails on the cluster (here: a wave of candidates over the driver's 1 MiB result limit)
    ends with one line naming the cause and exit 1, no Java or Python stack; the file named by -o is untouched."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(f"spark.driver.maxResultSize {DRIVER_RESULT_LIMIT}b\n")
    output = tmp_path / "out.jsonl"
    output.write_bytes(b"an earlier run's candidates\n")
    failed = _generate(all_demo_verses, "--system", "beam", "--nbest", "50", "-o", str(output), "--engine",
                       "spark", "--master", "local[2]", environment={"SPARK_CONF_DIR": str(conf)})
    errors = [line for line in failed.stderr.decode(errors="replace").splitlines()
              if line.startswith("parastudio: error:")]
    assert failed.returncode == 1, spark_failure(failed.stderr)
    assert len(errors) == 1 and errors[0].startswith("parastudio: error: Spark failed: ")
    assert "maxResultSize" in errors[0] and "--driver-memory" in errors[0]
    # Spark's own Python daemons may print their broken pipes as the job is torn down; ours prints no stack.
    assert b"Py4JJavaError" not in failed.stderr and b"core/cli" not in failed.stderr
    assert failed.stderr.decode(errors="replace").rstrip().splitlines()[-1] == errors[0]
    assert output.read_bytes() == b"an earlier run's candidates\n"


@pytest.mark.parametrize("flags, message", [
    (("--master", "local[2]"), "--master and --remote need --engine spark"),
    (("--engine", "spark", "--master", "mesos://host:5050"), "--master expects local[N], spark://HOST:PORT, yarn"),
    (("--engine", "spark", "--search-graph", "g.txt"), "--engine spark cannot take --search-graph"),
    (("--engine", "spark", "--processes", "2"), "--engine spark cannot take --processes"),
    (("--driver-memory", "512m"), "--driver-memory and --executor-memory need --engine spark"),
    (("--engine", "spark", "--driver-memory", "2XB"), "--driver-memory expects a size such as 512m or 4g; got '2XB'"),
    (("--engine", "spark", "--executor-memory", "1.5g"), "--executor-memory expects a size such as 512m or 4g"),
    (("--engine", "spark", "--remote", "sc://127.0.0.1:15002"),
     "--remote: batch generation runs the engine on each partition (RDDs), which Spark Connect does not offer"),
])
def test_flags_that_cannot_run_distributed_are_refused(demo_run, flags, message):
    done = _generate(demo_run, *BEAM, *flags)
    assert done.returncode == 2 and done.stdout == b""
    stderr = done.stderr.decode()
    assert f"parastudio: error: {message}" in stderr and "Traceback" not in stderr
    assert "generating on Spark" not in stderr  # refused before a session starts
