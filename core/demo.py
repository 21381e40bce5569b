"""Where the bundled demo project lives.

The demo (``evaldata/demo/``) ships in the source tree, next to ``core/``; an
installed copy elsewhere is found through ``PARASTUDIO_DEMO``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DemoFiles:
    directory: Path

    @property
    def table(self) -> Path:
        return self.directory / "paraphrase-table.gz"

    @property
    def lm(self) -> Path:
        return self.directory / "lm.bin"

    @property
    def test_sentences(self) -> Path:
        return self.directory / "test.en"

    @property
    def test_references(self) -> Path:
        return self.directory / "test.ref.en"

    @property
    def testcases(self) -> Path:
        return self.directory / "testcases.jsonl"

    def missing(self) -> list[Path]:
        return [p for p in (self.table, self.lm, self.test_sentences) if not p.is_file()]


def demo_files() -> DemoFiles:
    override = os.environ.get("PARASTUDIO_DEMO")
    if override:
        return DemoFiles(Path(override))
    return DemoFiles(Path(__file__).resolve().parent.parent / "evaldata" / "demo")
