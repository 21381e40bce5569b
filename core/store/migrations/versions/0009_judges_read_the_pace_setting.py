"""A judge's own login reads the study's pace setting (issue 44): ``ps_judging_settings`` gives ``pace`` (when a
break is due, what counts as a fast answer) beside the instructions, the display rule and the blind phases, since
the judging screen reminds the judge of their breaks. SQLite has no server functions: nothing to do.

Revision ID: 0009
Revises: 0008
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# As revision 0007's, with "pace" among the keys a member's screen reads.
JUDGING_SETTINGS = """
CREATE OR REPLACE FUNCTION ps_judging_settings(wanted integer) RETURNS json
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$ SELECT coalesce(json_object_agg(entry.key, entry.value), '{{}}'::json)
          FROM study, json_each(study.settings) AS entry
          WHERE study.id = wanted AND entry.key IN ({keys})
            AND study.id IN (SELECT study_id FROM study_member WHERE login = session_user) $$;
"""
BEFORE = ("instructions", "display", "blind_phases", "truecase_model")
AFTER = (*BEFORE, "pace")


def _replace_function(keys: tuple[str, ...]) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    schema = op.get_bind().exec_driver_sql("SELECT current_schema()").scalar()
    quoted = op.get_bind().dialect.identifier_preparer.quote(schema)
    op.execute(JUDGING_SETTINGS.format(schema=quoted, keys=", ".join(f"'{key}'" for key in keys)))


def upgrade() -> None:
    _replace_function(AFTER)


def downgrade() -> None:
    _replace_function(BEFORE)
