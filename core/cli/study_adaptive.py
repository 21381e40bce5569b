"""``parastudio study assign-next``: the next batch of sentences, given to comparisons still undecided.

See :mod:`core.adaptive_assignment` for the rule. The stopping rule is saved in
the study's settings, so later batches keep it unless ``--stop`` changes it.
"""

from __future__ import annotations

import argparse
import sys

from parastudio.core.cli.number_options import COUNT, LEVEL


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--annotators", required=True, help="comma-separated annotator names")
    parser.add_argument("--sentences", type=COUNT, required=True, metavar="N", help="source sentences in this batch")
    parser.add_argument("--criterion", required=True, metavar="C", help="the criterion the comparisons read")
    parser.add_argument("--stop", metavar="RULE", help="when a pair stops getting items: never, decided, or "
                        "decided+K (K more of its sentences after the decision); default: the study's rule, else "
                        "decided")
    parser.add_argument("--alpha", type=LEVEL, default=None, help="level of the anytime-valid tests "
                        "(default: the study's, else 0.05)")
    parser.add_argument("--judges", type=COUNT, help="judges per item (default: the study's)")


def run_assign_next(args: argparse.Namespace, open_study) -> int:
    from parastudio.core.adaptive_assignment import StoppingRule, assign_next
    from parastudio.core.stats.anytime_sign_test import AnytimeSignTest
    from parastudio.core.store import operations as ops

    db, study_id = open_study(args)
    with db:
        saved = ops.study_settings(db, study_id).get("sampling") or {}
        try:
            rule = StoppingRule.parse(args.stop or saved.get("rule", "decided"))
            alpha = args.alpha if args.alpha is not None else float(saved.get("alpha", 0.05))
            batch = assign_next(db, study_id, [n.strip() for n in args.annotators.split(",") if n.strip()],
                                sentences=args.sentences, criterion=args.criterion, rule=rule,
                                test=AnytimeSignTest(alpha=alpha), judges_per_item=args.judges)
        except ValueError as error:
            print(f"parastudio: error: {error}", file=sys.stderr)
            return 2
    closed = ", ".join(f"{a}-{b}" for a, b in batch.closed_pairs) or "none"
    print(f"stopping rule {rule}: {len(batch.open_pairs)} pairs open, closed: {closed}")
    print(f"assigned {batch.candidates} candidates of {len(batch.sentences)} sentences"
          f"{'' if batch.sentences else ' (nothing left that could decide an open pair)'}; "
          f"{batch.skipped_identical} sentence-pair combinations skipped (the same strings for both systems)")
    return 0
