"""The full data build's bilingual phrase table rebuilt on Spark from the same corpus and alignment: same bytes?

Issue 25, Deliver 3 on the whole demo corpus (the data build's ``corpus/train.web``, ``corpus/train.rv`` and
``alignment/web-rv.align.gz``): Spark local[N] runs our extractor per partition and the scoring in Spark SQL,
the rows come back as ordered part files, and the sha256 of the decompressed table is compared with the
local build's ``tables/web-rv.phrase-table.gz``. Prints one JSON object; no asserts.

    python benchmarks/check_spark_phrase_table.py [--build evaldata/build] [--master local[2]]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from parastudio.core.tablebuild.spark_phrase_table import build_phrase_table_spark, corpus_from_files  # noqa: E402
from parastudio.core.tablebuild.spark_session import SparkSettings, spark_session  # noqa: E402


def table_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with gzip.open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=ROOT / "evaldata" / "build", help="the full data build")
    parser.add_argument("--master", default="local[2]", help="Spark master (local[2])")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="spark-phrase-table-") as directory:
        output = Path(directory) / "web-rv.phrase-table.gz"
        started = time.perf_counter()
        spark = spark_session(SparkSettings(master=args.master, local_dir=directory), app_name="check-phrase-table")
        try:
            corpus = corpus_from_files(spark, args.build / "corpus/train.web", args.build / "corpus/train.rv",
                                       args.build / "alignment/web-rv.align.gz")
            stats = build_phrase_table_spark(spark, corpus, output, max_length=7)
        finally:
            spark.stop()
        stats["seconds"] = time.perf_counter() - started
        stats["spark_sha256"] = table_sha256(output)
    stats["local_sha256"] = table_sha256(args.build / "tables/web-rv.phrase-table.gz")
    stats["identical"] = stats["spark_sha256"] == stats["local_sha256"]
    print(json.dumps(stats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
