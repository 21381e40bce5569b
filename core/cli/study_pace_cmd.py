"""``parastudio study pace``: when the judging screen reminds a judge to take a break, and what counts as a fast
answer on a judge's own list (issue 44); the settings live in the study (``pace``), where the judges' screens read
them. Without options it shows them, with each judge's pace so far."""

from __future__ import annotations

import argparse

from parastudio.core.cli.number_options import RealNumber, WholeNumber


def add_pace_command(command) -> None:
    pace = command("pace", "breaks and pace: remind each judge to take a break after so many minutes of judging or "
                   "answers (default 45 minutes or 200 answers); an answer faster than --fast-seconds goes on the "
                   "judge's own list (Ctrl+L). Without options: show the settings and each judge's pace", _pace)
    pace.add_argument("--break-minutes", type=RealNumber(at_least=0, at_most=24 * 60), metavar="M",
                      help="minutes of judging (the judging clock: idle and hidden time not counted) before a "
                      "reminder; 0: none by time")
    pace.add_argument("--break-items", type=WholeNumber(at_least=0, at_most=1_000_000), metavar="N",
                      help="answers before a reminder; 0: none by count")
    pace.add_argument("--fast-seconds", type=RealNumber(at_least=0, at_most=3600), metavar="S",
                      help="an answer given in under S seconds of judging is listed as fast on the judge's own list")
    pace.add_argument("--json", action="store_true", help="the settings and each judge's pace as JSON")


def _changes(args: argparse.Namespace) -> dict:
    given = {"break_minutes": args.break_minutes, "break_items": args.break_items, "fast_seconds": args.fast_seconds}
    return {name: value for name, value in given.items() if value is not None}


def _pace(args: argparse.Namespace) -> int:
    import json
    from dataclasses import asdict, replace

    from parastudio.core.cli.study_access import open_study
    from parastudio.core.judging.pace import SETTING, PaceSettings, judge_paces
    from parastudio.core.stats.judging_pace import duration_text
    from parastudio.core.store import operations as ops

    changes = _changes(args)
    db, study_id = open_study(args.db, args.study, writing=bool(changes))
    with db:
        settings = PaceSettings.of_study(ops.study_settings(db, study_id))
        if changes:
            settings = replace(settings, **changes)
            ops.update_study_settings(db, study_id, **{SETTING: settings.as_setting()})
        paces = judge_paces(db, study_id)
    if args.json:
        print(json.dumps({"settings": settings.as_setting(),
                          "judges": [{**asdict(p), "seconds_left": p.seconds_left} for p in paces]}, indent=2))
        return 0
    print(f"break reminder: {settings.rule_text()}; fast answers: under {settings.fast_seconds:g} s")
    if paces:
        print(f"  {'judge':<20} {'judged':>13} {'s/item':>7} {'left':>10} {'sittings':>8}  latest sitting")
    for p in paces:
        median = "–" if p.median_s is None else f"{p.median_s:.1f}"
        latest = f"{p.latest_answers} answers in {duration_text(60 * p.latest_minutes)}" if p.latest_answers else "–"
        print(f"  {p.name:<20} {f'{p.judged} / {p.assigned}':>13} {median:>7} {duration_text(p.seconds_left):>10} "
              f"{p.sittings:>8}  {latest}")
    return 0
