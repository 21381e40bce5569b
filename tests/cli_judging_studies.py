"""One study database made by the command line as a researcher makes it, a study per judging page: yes/no,
3-point, 5-point, DA, ESA, preference and choice (for the desktop tests of issue 44)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from desktop_study_fixtures import candidate_rows

from parastudio.core.cli import main

# Study name -> the criteria of `parastudio study create --criteria`.
PAGES = {"yes-no": "fluency,meaning", "three-point": "usability", "five-point": "quality5", "da": "da", "esa": "esa",
         "preference": "preference"}
CHOICE_TASKS = [
    {"id": "t1", "sentence": "the dog runs after the young cat", "span": [4, 7],
     "options": ["the kitten", "the small cat", "a young cat"]},
    {"id": "t2", "sentence": "a small house stands near the old garden", "span": [1, 2], "options": ["little"]},
]


def cli(*args) -> None:
    code = main([str(arg) for arg in args])
    assert code == 0, args


def write_candidates(path: Path, rows) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "source", "candidate", "system"])
        for row in rows:
            writer.writerow([row.sentence_id, row.source, row.text, row.system])
    return path


def judging_studies(directory: Path, annotators: str = "ann,bob") -> Path:
    """``directory``/studies.sqlite with a study per name of :data:`PAGES` and a choice study "choice"."""
    database = directory / "studies.sqlite"
    candidates = write_candidates(directory / "candidates.csv", [r for r in candidate_rows() if r.rank == 0])
    for name, criteria in PAGES.items():
        cli("study", "create", name, "--db", database, "--criteria", criteria, "--seed", 2)
        cli("study", "import-candidates", "--db", database, "--study", name, candidates)
        pairs = ["--pairs", "beam:mcpg-true"] if name == "preference" else []
        cli("study", "assign", "--db", database, "--study", name, "--annotators", annotators, *pairs)
    tasks = directory / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(task) + "\n" for task in CHOICE_TASKS), encoding="utf-8")
    cli("study", "create", "choice", "--db", database, "--criteria", "choice", "--seed", 2)
    cli("study", "import-candidates", "--db", database, "--study", "choice", "--choice-tasks", tasks)
    cli("study", "assign", "--db", database, "--study", "choice", "--annotators", annotators)
    return database
