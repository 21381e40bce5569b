"""An adjudicator's disagreements name the preference pair (issue 39): ``ps_disagreement_labels`` returns
``pair_id`` and groups by it, so on a member's own PostgreSQL login every pair of a preference criterion is its
own item (revision 0007 grouped all pairs of a criterion as one). SQLite has no server functions: nothing to do.

Revision ID: 0008
Revises: 0007
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# As revision 0007's, with pair_id beside unit: in the returned row and in what makes two labels one item.
WITH_PAIR = """
CREATE FUNCTION ps_disagreement_labels(wanted integer)
    RETURNS TABLE (candidate_id integer, choice_task_id integer, unit integer, pair_id integer,
                   criterion_id integer, judge varchar, value varchar, judgment_id integer)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$
    WITH live AS (
        SELECT a.candidate_id, a.choice_task_id, a.unit, a.pair_id, a.criterion_id, n.name AS judge, j.value, j.id
        FROM assignment a
        JOIN judgment j ON j.id = a.live_judgment_id
        JOIN annotator n ON n.id = a.annotator_id
        LEFT JOIN candidate c ON c.id = a.candidate_id
        WHERE a.study_id = wanted AND a.kind = 'normal' AND coalesce(c.kind, 'candidate') = 'candidate'
          AND EXISTS (SELECT 1 FROM study_member m
                      WHERE m.login = session_user AND m.study_id = wanted AND m.role = 'adjudicator'))
    SELECT live.* FROM live
    JOIN (SELECT l.candidate_id, l.choice_task_id, l.unit, l.pair_id, l.criterion_id FROM live l
          GROUP BY l.candidate_id, l.choice_task_id, l.unit, l.pair_id, l.criterion_id
          HAVING count(DISTINCT l.value) > 1) d
      ON d.candidate_id IS NOT DISTINCT FROM live.candidate_id
     AND d.choice_task_id IS NOT DISTINCT FROM live.choice_task_id
     AND d.unit IS NOT DISTINCT FROM live.unit AND d.pair_id IS NOT DISTINCT FROM live.pair_id
     AND d.criterion_id = live.criterion_id
    $$;
GRANT EXECUTE ON FUNCTION ps_disagreement_labels(integer) TO PUBLIC;
"""


def _revision_0007_function() -> str:
    """Revision 0007's definition, read from that migration (put back on a downgrade)."""
    import importlib

    functions = importlib.import_module(f"{__package__}.0007_study_roles").FUNCTIONS
    start = functions.index("CREATE FUNCTION ps_disagreement_labels")
    end = functions.index("$$;", functions.index("AS $$", start)) + len("$$;")
    return functions[start:end] + "\nGRANT EXECUTE ON FUNCTION ps_disagreement_labels(integer) TO PUBLIC;\n"


def _replace_function(definition: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    schema = op.get_bind().exec_driver_sql("SELECT current_schema()").scalar()
    quoted = op.get_bind().dialect.identifier_preparer.quote(schema)
    # Its returned columns change, which CREATE OR REPLACE cannot do: dropped and made again in one transaction.
    op.execute("DROP FUNCTION ps_disagreement_labels(integer)")
    op.execute(definition.format(schema=quoted))


def upgrade() -> None:
    _replace_function(WITH_PAIR)


def downgrade() -> None:
    _replace_function(_revision_0007_function())
