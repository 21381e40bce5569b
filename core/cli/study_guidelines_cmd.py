"""``parastudio study guidelines --db STUDY FILE.toml``: set a study's introduction, each question's text and its
good and bad examples from a TOML file (issue 44, item 7; the format is in :mod:`core.judging.guidelines`). The file
is checked whole before anything is written; then one transaction writes it, and the command prints what changed."""

from __future__ import annotations

import argparse


def add_guidelines_command(command) -> None:
    guidelines = command("guidelines", "set the study's introduction, each question's text and its good and bad "
                         "examples, and its training items, from a TOML file (the format: docs/CLI.md, 'Guidelines'; "
                         "an example: docs/examples/guidelines.toml); a criterion the file does not name keeps its "
                         "own, and a file without [[training]] keeps the study's training items", _guidelines)
    guidelines.add_argument("file", metavar="FILE.toml", help="checked whole before anything is written")


def _guidelines(args: argparse.Namespace) -> int:
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.judging.guidelines import apply_guidelines

    db, study_id = open_study(args.db, args.study, writing=True)
    with db:
        lines = apply_guidelines(db, study_id, args.file)
    for line in lines:
        print(line)
    return 0


def training_json(results) -> dict:
    """``study progress --json``'s ``training``: per judge, agreed / answered / given and whether they passed."""
    return {r.annotator: {"agreed": r.agreed, "answered": r.answered, "given": r.given, "passed": r.passed}
            for r in results}


def print_training(results) -> None:
    """``study progress``'s lines on training items: who passed (every item answered as known)."""
    if results:
        print("training (not counted above, nor in any statistic): agreed with the known answer")
    for result in results:
        verdict = {None: f"{result.answered} of {result.given} answered", True: "passed", False: "not passed"}
        print(f"  {result.annotator:<18} {result.agreed:>3} / {result.given:<3} {verdict[result.passed]}")
