"""``parastudio app``: opens the desktop app (registered as a CLI plugin)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("app", help="open the desktop app (on the bundled demo study by default)")
    parser.add_argument("--study", metavar="FILE",
                        help="study database to open: a SQLite file, or the connection file (.toml) a researcher's "
                        "`parastudio study invite` gave you, which says who you are (default: the bundled demo "
                        "study, made on first use)")
    parser.add_argument("--role", choices=("researcher", "judge"),
                        help="on a SQLite study, who sits here (asked at launch when not given): a judge's session "
                        "has the judging screens only. A connection file's role is the server's, never this")
    parser.add_argument("--create", action="store_true",
                        help="make the --study database if it does not exist (otherwise a missing file is an error)")
    parser.add_argument("--annotator", help="judge as this annotator (default: the last one on this database; "
                        "changed only with File > Judge as...)")
    parser.add_argument("--table", help="paraphrase table for the scorer (default: the bundled demo's)")
    parser.add_argument("--lm", help="KenLM model for the scorer (default: the bundled demo's)")
    parser.add_argument("--screenshot", metavar="PNG", help="render the window to PNG once loaded, then quit")
    parser.add_argument("--screenshots", metavar="DIR", help="render every screen to DIR/*.png, then quit")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from parastudio.desktop.app import run_app

    return run_app(table=args.table, lm=args.lm, screenshot=args.screenshot, study=args.study,
                   annotator=args.annotator, screenshots=args.screenshots, create=args.create, role=args.role)
