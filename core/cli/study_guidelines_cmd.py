"""``parastudio study guidelines --db STUDY FILE.toml``: set a study's introduction, each question's text and its
good and bad examples from a TOML file (issue 44, item 7; the format is in :mod:`core.judging.guidelines`). The file
is checked whole before anything is written; then one transaction writes it, and the command prints what changed."""

from __future__ import annotations

import argparse


def add_guidelines_command(command) -> None:
    guidelines = command("guidelines", "set the study's introduction, each question's text and its good and bad "
                         "examples from a TOML file (docs/ANNOTATION.md: guidelines and training items); a criterion "
                         "the file does not name keeps its own", _guidelines)
    guidelines.add_argument("file", metavar="FILE.toml")


def _guidelines(args: argparse.Namespace) -> int:
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.judging.guidelines import read_guidelines
    from parastudio.core.store import operations as ops

    db, study_id = open_study(args.db, args.study, writing=True)
    with db:
        specs = ops.study_criteria(db, study_id)
        criteria = [criterion.name for criterion in specs]
        guidelines = read_guidelines(args.file, specs)  # the whole file checked before anything is written
        current = ops.study_settings(db, study_id).get("instructions")
        changes = ops.set_guidelines(db, study_id, guidelines.instructions(current), guidelines.questions)
    for line in change_lines(changes, criteria):
        print(line)
    return 0


def change_lines(changes: dict, criteria: list[str]) -> list[str]:
    """What ``set_guidelines`` changed, one line per part, in the study's order of criteria."""
    lines = [f"introduction: {'changed' if changes['introduction'] else 'unchanged'}"]
    for name in criteria:
        parts = []
        if name in changes["questions"]:
            parts.append("question changed")
        if name in changes["examples"]:
            before, after = changes["examples"][name]
            parts.append(f"examples changed ({before} before, {after} now)")
        lines.append(f"{name}: {'; '.join(parts) if parts else 'unchanged'}")
    if changes["training"] is None:
        lines.append("training items: unchanged")
    else:
        before, after = changes["training"]
        lines.append(f"training items: changed ({before} before, {after} now; `study assign --training N` gives "
                     "the first N to each judge)")
    return lines


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
