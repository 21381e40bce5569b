"""``parastudio study status STUDY``: the anytime-valid comparisons between the study's systems, now.

Output contract (``--json``): one object ``{"pairs": [{"criterion", "system_a",
"system_b", "n", "wins_a", "wins_b", "ties", "p_anytime", "p_anytime_pair",
"decision", "win_rate_cs": [lo, hi], "log_evidence"}], "criteria", "alpha",
"correction", "judged_items", "judgments", "skipped_criteria", "guarantee",
"signature", "preference"}``; ``preference`` is null without preference judgments, else the Bradley–Terry
strengths with bootstrap intervals and the fixed-sample sign tests with Holm of the pairwise preferences
(:func:`core.stats.report_preference.preference_status`). ``n = wins_a + wins_b`` (ties dropped); ``p_anytime`` is
Holm-adjusted over the criterion's pairs and is the one ``decision`` reads
("A better", "B better" or "undecided"); ``p_anytime_pair`` is the pair's own.
Definitions: :mod:`core.stats.anytime_sign_test`, :mod:`core.stats.anytime_comparisons`.
"""

from __future__ import annotations

import argparse
import json
import sys

from parastudio.core.cli.number_options import LEVEL, POSITIVE, REPLICATES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--criterion", metavar="C", help="one criterion (default: every criterion whose labels "
                        "are numbers, yes/no or choices)")
    parser.add_argument("--alpha", type=LEVEL, default=0.05,
                        help="family-wise error level per criterion, kept under any number of looks (default 0.05)")
    parser.add_argument("--prior-a", type=POSITIVE, default=1.0, metavar="A",
                        help="Beta(A, B) prior over the win rate of the mixture martingale (default 1)")
    parser.add_argument("--prior-b", type=POSITIVE, default=1.0, metavar="B", help="(default 1)")
    parser.add_argument("--bootstrap", type=REPLICATES, default=1000, metavar="B",
                        help="bootstrap replicates of the Bradley–Terry intervals of a preference study (default 1000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run_status(args: argparse.Namespace, open_study) -> int:
    from parastudio.core.stats.anytime_comparisons import anytime_status
    from parastudio.core.stats.anytime_sign_test import AnytimeSignTest
    from parastudio.core.stats.report_preference import preference_status
    from parastudio.core.study_judgments import study_judgment_records, study_preferences
    from parastudio.core.vocabulary import PREFERENCE_LABELS

    db, study_id = open_study(args, writing=False)
    with db:
        records = study_judgment_records(db, study_id)
        preferences = study_preferences(db, study_id)
    # A preference compares two systems in one answer: its tests are the "preference" part, not per-system scores.
    criteria = [c for c in records.criterion_names() if records.scale_of(c) != PREFERENCE_LABELS]
    if args.criterion is not None:
        if args.criterion not in criteria:
            print(f"parastudio: error: no judgments of criterion {args.criterion!r}; the study has: "
                  f"{', '.join(criteria) or 'none'}", file=sys.stderr)
            return 1
        criteria = [args.criterion]
    test = AnytimeSignTest(alpha=args.alpha, prior_a=args.prior_a, prior_b=args.prior_b)
    status = anytime_status(records, criteria, test)
    preference = preference_status(preferences, bootstrap=args.bootstrap) if preferences else None
    if args.json:
        print(json.dumps({**status.to_json_dict(), "preference": preference}))
        return 0
    print(f"{'criterion':<12} {'system A':<16} {'system B':<16} {'n':>5} {'wins A':>6} {'wins B':>6} {'ties':>5} "
          f"{'p anytime':>10}  {'decision':<9}  win rate of A")
    for c in status.comparisons:
        r = c.result
        print(f"{c.criterion:<12} {c.system_a:<16} {c.system_b:<16} {r.n:>5} {r.wins_a:>6} {r.wins_b:>6} "
              f"{r.ties:>5} {c.p_anytime:>10.4g}  {c.decision:<9}  [{r.win_rate_cs[0]:.3f}, {r.win_rate_cs[1]:.3f}]")
    if status.skipped:
        print(f"fewer than two systems scored on: {', '.join(status.skipped)}")
    print(f"{status.judgments} judgments of {status.judged_items} items; alpha {status.alpha:g}, Holm over each "
          f"criterion's pairs")
    print(status.guarantee)
    print(status.signature)
    if preference is not None:
        print("\nBradley–Terry strengths from pairwise preferences (95 % bootstrap intervals over sentences):")
        for row in preference["bradley_terry"]:
            low, high = row["ci95"]
            print(f"  {row['system']:<16} {row['strength']:>7.3f}  [{low:.3f}, {high:.3f}]  "
                  f"won {row['wins']}, lost {row['losses']}, tied {row['ties']}")
        print(preference["note"] or preference["bradley_terry_signature"])
        for c in preference["sign_tests"]:
            print(f"  sign test {c['system_a']} vs {c['system_b']}: {c['wins_a']}-{c['wins_b']} "
                  f"({c['ties']} ties) over {c['sentences']} sentences, p {c['p_value']:.4g}, Holm {c['p_holm']:.4g}")
    return 0
