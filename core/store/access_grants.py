"""What a member's own PostgreSQL login may do with each table: the column privileges an invitation grants.

Rows are the policies' business (revision 0007); these are the columns and verbs. A judge reads the item
texts, never a system name, a planted control's kind, a candidate's scores or provenance, a preference pair's
systems or the study's settings; writes only judgments (insert, never update or delete), the event they log
and their own session lock. An adjudicator may besides read their own assignments' kind and add the
``adjudication`` assignments that carry their decisions. Nothing here is granted on ``system``,
``candidate_system`` or ``study_member``: a member reads none of them.
"""

from __future__ import annotations

JUDGE_GRANTS: tuple[tuple[str, str], ...] = (
    ("SELECT", "alembic_version"),
    ("SELECT (id, uid, name, created_at, judges_per_item, application)", "study"),
    ("SELECT", "criterion"),
    ("SELECT", "source_sentence"),
    ("SELECT (id, study_id, source_id, text)", "candidate"),
    ("SELECT (id, study_id, source_id, span_start, span_end, options)", "choice_task"),
    ("SELECT (id, study_id, source_id, left_candidate_id, right_candidate_id, identical)", "preference_pair"),
    ("SELECT (id, study_id, name)", "annotator"),
    ("SELECT (id, study_id, annotator_id, candidate_id, choice_task_id, criterion_id, position, unit, pair_id, "
     "live_judgment_id)", "assignment"),
    ("SELECT, INSERT", "judgment"),
    ("INSERT", "event_log"),
    ("SELECT, INSERT, UPDATE, DELETE", "annotator_session"),
)

ADJUDICATOR_GRANTS: tuple[tuple[str, str], ...] = JUDGE_GRANTS + (
    # The ORM names every column in an insert; the row policy holds repeat_of and live_judgment_id to NULL.
    ("SELECT (kind, repeat_of), INSERT (study_id, annotator_id, candidate_id, choice_task_id, criterion_id, "
     "position, kind, repeat_of, unit, pair_id, live_judgment_id)", "assignment"),
)

# The sequences behind the ids a member's inserts draw.
SEQUENCES = {"judge": ("judgment_id_seq", "event_log_id_seq", "annotator_session_id_seq"),
             "adjudicator": ("judgment_id_seq", "event_log_id_seq", "annotator_session_id_seq",
                             "assignment_id_seq")}

GRANTS = {"judge": JUDGE_GRANTS, "adjudicator": ADJUDICATOR_GRANTS}


def grant_statements(role: str, login_sql: str) -> list[str]:
    """The GRANT statements for a ``role`` member whose login is ``login_sql`` (already quoted)."""
    statements = [f"GRANT {privileges} ON {table} TO {login_sql}" for privileges, table in GRANTS[role]]
    statements += [f"GRANT USAGE ON SEQUENCE {sequence} TO {login_sql}" for sequence in SEQUENCES[role]]
    return statements
