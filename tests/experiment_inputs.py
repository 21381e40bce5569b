"""A tiny table, test set and references for running the experiments end to end in tests."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLE1_RULES

RULES = EXAMPLE1_RULES + [("runs", "walks", 0.5), ("dog", "beast", 0.3), ("big house", "home", 0.5),
                          ("near", "by", 0.4), ("sees", "finds", 0.4), ("after", "before", 0.2),
                          ("house", "garden", 0.2)]


def write_experiment_inputs(folder: Path, sentences: list[str], references: list[str], rules=RULES) -> dict[str, Path]:
    """``table.txt`` (``rules``), ``test.en`` and ``test.ref.en`` in ``folder``; their paths by name."""
    table = folder / "table.txt"
    table.write_text("".join(f"{s} ||| {t} ||| {p}\n" for s, t, p in rules), encoding="utf-8")
    test = folder / "test.en"
    test.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    reference = folder / "test.ref.en"
    reference.write_text("\n".join(references) + "\n", encoding="utf-8")
    return {"table": table, "input": test, "reference": reference}
