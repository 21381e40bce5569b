"""``parastudio study invite / revoke / members`` (issue 38) and ``study upgrade / check`` (issue 39): who may
open a study, and the study's schema and insides."""

from __future__ import annotations

import sys


def _open(args, *, writing: bool = True):
    from parastudio.core.cli.study_access import open_study

    return open_study(args.db, getattr(args, "study", None), writing=writing)


def add_member_commands(commands, command) -> None:
    """Register the commands on ``study``'s subparsers; ``command`` adds one taking ``--db`` and ``--study``."""
    invite = command("invite", "let a person into a PostgreSQL study as judge, adjudicator or researcher: makes "
                     "their own database login and writes their connection file (mode 0600); the server then "
                     "keeps their connection to what the role allows (docs/ANNOTATION.md)", _invite)
    invite.add_argument("name", help="the login: a letter, then letters, digits, '_', '-' or '.'")
    invite.add_argument("--role", required=True, choices=("judge", "adjudicator", "researcher"))
    invite.add_argument("-o", "--output", required=True, metavar="FILE.toml",
                        help="the connection file to hand to that person (it holds their password)")

    revoke = command("revoke", "end a member's access: their privileges and, when they are in no other study "
                     "here, their login (their judgments stay)", _revoke)
    revoke.add_argument("name")

    command("members", "the study's members and their roles", _members)

    upgrade = commands.add_parser("upgrade", help="upgrade a study made by an older version to this version's "
                                  "schema (older versions cannot open it afterwards); nothing else upgrades it",
                                  description="Upgrades a study made by an older version of Paraphrase Studio to "
                                  "this version's schema, in one transaction, and says what it did. No other "
                                  "command does: a reading command leaves a study byte for byte as it was.")
    upgrade.add_argument("--db", required=True, help="study database: a SQLite file or a SQLAlchemy URL")
    upgrade.set_defaults(func=_upgrade)
    check = commands.add_parser("check", help="every problem another program made in a study: tables or columns "
                                "missing, JSON that does not parse, times that are not times, answers off their "
                                "scale, rows that point nowhere (exit 1 when there is one)",
                                description="Lists every problem another program made in the study, one a line; "
                                "exit 0 when there is none, 1 otherwise. Reads only, unless --repair.")
    check.add_argument("--db", required=True, help="study database: a SQLite file or a SQLAlchemy URL")
    check.add_argument("--repair", action="store_true",
                       help="mend what has one certain repair (a schema version recorded twice; an unanswered "
                       "assignment of an item that is not there), after copying a SQLite study to "
                       "FILE.before-repair-N; says what it did and lists what is left (never touches an answer)")
    check.set_defaults(func=_check)


def _invite(args) -> int:
    from parastudio.core.store.connection_file import SUFFIX, write_connection_file
    from parastudio.core.store.operations import study_name
    from parastudio.core.store.study_members import invite

    if not str(args.output).endswith(SUFFIX):
        print(f"parastudio: error: {args.output}: expected a connection file name ending in {SUFFIX}",
              file=sys.stderr)
        return 2
    from parastudio.core.output_files import resolve_output
    from parastudio.core.store.study_members import revoke

    resolve_output(args.output)  # an output that cannot be one is said before any login is made
    db, study_id = _open(args)
    with db:
        invitation = invite(db, study_id, study_name(db, study_id), args.name, args.role)
        try:
            write_connection_file(args.output, invitation.url, invitation.study)
        except BaseException:  # no login whose password nobody has
            if not invitation.password_was_reset:
                revoke(db, study_id, invitation.login)
            raise
    reset = " (it existed: its password is new, and its older connection files no longer work)" \
        if invitation.password_was_reset else ""
    print(f"{invitation.login} is a {invitation.role} of {invitation.study}{reset}; hand them {args.output}, "
          "which holds their password (mode 0600)")
    return 0


def _revoke(args) -> int:
    from parastudio.core.store.study_members import revoke

    db, study_id = _open(args)
    with db:
        removed = revoke(db, study_id, args.name)
    print(f"{args.name}: access ended" if removed else f"{args.name} was not a member of this study")
    return 0 if removed else 1


def _upgrade(args) -> int:
    from parastudio.core.store.database import StudyNeedsUpgradeError, head_revision, open_database

    try:
        open_database(args.db).close()
    except StudyNeedsUpgradeError as needed:
        open_database(args.db, upgrade_schema=True).close()
        print(f"{args.db}: upgraded from schema version {needed.revision} to {head_revision()}; older versions of "
              "Paraphrase Studio can no longer open it")
        return 0
    print(f"{args.db}: at schema version {head_revision()} already; nothing to do")
    return 0


def _check(args) -> int:
    from parastudio.core.errors import InputFileError
    from parastudio.core.store.database import head_revision, open_database, recorded_revision
    from parastudio.core.store.study_check import Problem, study_problems

    if args.repair:
        _repair(args.db)
    with open_database(args.db, migrate=False, writing=False) as db:
        try:
            revision = recorded_revision(db.engine, args.db)
            version_problems = []
        except InputFileError as error:  # emptied, doubled or dropped: a problem found, the tables still checked
            revision, version_problems = head_revision(), [Problem("alembic_version", error.got or error.expected)]
        if revision != head_revision():
            print(f"schema version {revision}: this version checks studies of {head_revision()} (`parastudio study "
                  "upgrade` first)")
            return 1
        with db.read_connection() as connection:
            problems = version_problems + study_problems(connection)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)" if problems else "no problem found")
    return 1 if problems else 0


def _repair(target: str) -> None:
    from parastudio.core.store.database import open_database, sqlite_path
    from parastudio.core.store.study_repair import backup_beside, repair

    path = sqlite_path(target)
    with open_database(target, migrate=False) as db:
        backup = backup_beside(path) if path is not None else None
        with db.write_connection() as connection:
            done = repair(connection)
    for line in done:
        print(f"repaired: {line}")
    if backup is not None:
        print(f"the study as it was: {backup}" if done else f"nothing to repair; the copy {backup} is removed")
        if not done:
            backup.unlink()
    elif not done:
        print("nothing to repair")


def _members(args) -> int:
    from parastudio.core.store.study_members import members

    db, study_id = _open(args, writing=False)
    with db:
        rows = members(db, study_id)
    for member in rows:
        print(f"{member.login:<24} {member.role}")
    if not rows:
        print("(no member: invite one with `parastudio study invite`)")
    return 0
