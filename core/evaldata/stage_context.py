"""What every build stage shares: the output folder, the report, file helpers."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from parastudio.core.file_fingerprint import sha256_of
from parastudio.core.progress import Progress, no_progress
from parastudio.core.tablebuild.spark_session import SparkSettings
from parastudio.core.textio import atomic_output, open_text_maybe_gzip


class StageSkipped(Exception):
    """A stage cannot run here (a missing component); the build goes on and says why."""


def default_out_dir() -> Path:
    """The repository's ``evaldata`` when running from a checkout, else ``./evaldata``."""
    checkout = Path(__file__).resolve().parents[2] / "evaldata"
    return checkout if checkout.parent.joinpath("pyproject.toml").exists() else Path("evaldata")


@dataclass
class BuildContext:
    out: Path
    say: Callable[[str], None] = lambda message: print(message, file=sys.stderr, flush=True)
    progress: Progress = no_progress
    report: dict = field(default_factory=dict)
    install: bool = True  # apt-get the missing SWORD packages when root; else only say what to install
    jobs: int = 2  # processes for the stages that can use two
    spark_settings: SparkSettings | None = None  # --engine spark: the phrase tables are extracted and scored there
    align_chunk: int = 0  # --align-chunk: sentence pairs per eflomal run (0: the whole corpus at once)
    _spark_session: object = field(default=None, repr=False)

    def spark(self):
        """The build's one SparkSession (started on first use), or None for the local engine."""
        if self.spark_settings is None:
            return None
        if self._spark_session is None:
            from parastudio.core.tablebuild.spark_session import session_summary, spark_session

            self._spark_session = spark_session(self.spark_settings, app_name="parastudio-data-build")
            self.say(f"  on Spark: {session_summary(self._spark_session)}")
        return self._spark_session

    def stop_spark(self) -> None:
        if self._spark_session is not None:
            self._spark_session.stop()
            self._spark_session = None

    @property
    def build(self) -> Path:
        return self.out / "build"

    @property
    def demo(self) -> Path:
        return self.out / "demo"

    @property
    def split_record(self) -> Path:
        """``OUT/split``: the small, committed record of the split that lets CI check disjointness."""
        return self.out / "split"

    def path(self, *parts: str) -> Path:
        return self.build.joinpath(*parts)


def write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    with atomic_output(path) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        raise StageSkipped(f"{path} is missing: run the earlier stages first")
    with open_text_maybe_gzip(path) as handle:
        return [json.loads(line) for line in handle]


def write_lines(path: Path, lines: Iterable[str]) -> None:
    with atomic_output(path) as handle:
        for line in lines:
            handle.write(line + "\n")


def read_lines(path: Path) -> list[str]:
    if not path.exists():
        raise StageSkipped(f"{path} is missing: run the earlier stages first")
    with open_text_maybe_gzip(path) as handle:
        return [line.rstrip("\n") for line in handle]


def sha256_of_inputs(context: BuildContext, *names: str) -> dict[str, str]:
    # Taken when a stage reads its inputs, so the report says what each artifact was built from.
    return {name: sha256_of(context.path(*name.split("/"))) for name in names}
