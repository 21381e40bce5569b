"""Who may see what (issue 38): the study's members and their roles; on PostgreSQL, the server enforces them.

``study_member`` names each person let into a study (a PostgreSQL login role, or on SQLite a name) with a
role: ``researcher``, ``adjudicator`` or ``judge``, and for the last two the annotator row they judge as.

On PostgreSQL the migration also turns on row-level security on every table of the store and adds the
policies that say which rows a member's own login may read or write. The tables' owner (the researcher
who made the study) is not subject to them, as PostgreSQL's row-level security provides; a member gets
column privileges only when invited (:mod:`core.store.access_grants`), so a login that was never invited
reads nothing. Three things a member's connection must not do by itself are done for it by functions
that run as the owner (``SECURITY DEFINER``) and check who calls:

- the judgment trigger marks the superseded row and the assignment's live answer (a judge may only insert
  judgments; an update by their own login is refused), after checking the new row supersedes exactly the
  assignment's live answer;
- ``ps_shown_derivation`` gives a judge the derivation the screen highlights, without saying whether an
  item is a planted control;
- ``ps_disagreement_labels`` gives an adjudicator the judges' labels on the items they disagree on, and
  nothing else.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

# Every table of the store: row-level security is on for each (no policy: a member reads none of its rows).
STORE_TABLES = ("study", "source_sentence", "system", "candidate", "candidate_system", "choice_task",
                "preference_pair", "criterion", "annotator", "assignment", "judgment", "event_log",
                "annotator_session", "study_member")

# The functions run as the tables' owner; their search_path is fixed so a caller cannot slip in look-alikes.
FUNCTIONS = """
CREATE FUNCTION ps_member_studies() RETURNS SETOF integer
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$ SELECT study_id FROM study_member WHERE login = session_user $$;

CREATE FUNCTION ps_my_annotators() RETURNS SETOF integer
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$ SELECT annotator_id FROM study_member
          WHERE login = session_user AND annotator_id IS NOT NULL AND role IN ('judge', 'adjudicator') $$;

CREATE FUNCTION ps_adjudicated_studies() RETURNS SETOF integer
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$ SELECT study_id FROM study_member WHERE login = session_user AND role = 'adjudicator' $$;

CREATE FUNCTION ps_my_membership() RETURNS TABLE (study_id integer, role varchar, annotator_id integer)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$ SELECT study_id, role, annotator_id FROM study_member WHERE login = session_user ORDER BY study_id $$;

-- The derivation the judging screen highlights; none for a planted control (the screen highlights it by
-- difference, as any import), so a judge cannot tell controls from candidates by reading it.
CREATE FUNCTION ps_shown_derivation(wanted integer) RETURNS json
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$ SELECT derivation FROM candidate
          WHERE id = wanted AND kind = 'candidate'
            AND study_id IN (SELECT study_id FROM study_member WHERE login = session_user) $$;

-- The settings a member's screen needs (how to show the text, the order of phases, the instructions); never
-- the researcher's own (the adjudicators' names, the sampling plan, the models).
CREATE FUNCTION ps_judging_settings(wanted integer) RETURNS json
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$ SELECT coalesce(json_object_agg(entry.key, entry.value), '{{}}'::json)
          FROM study, json_each(study.settings) AS entry
          WHERE study.id = wanted AND entry.key IN ('instructions', 'display', 'blind_phases', 'truecase_model')
            AND study.id IN (SELECT study_id FROM study_member WHERE login = session_user) $$;

-- The live labels of the items a study's judges disagree on (normal assignments, no planted control):
-- what an adjudicator of that study reads; anyone else gets no row.
CREATE FUNCTION ps_disagreement_labels(wanted integer)
    RETURNS TABLE (candidate_id integer, choice_task_id integer, unit integer, criterion_id integer,
                   judge varchar, value varchar, judgment_id integer)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$
    WITH live AS (
        SELECT a.candidate_id, a.choice_task_id, a.unit, a.criterion_id, n.name AS judge, j.value, j.id
        FROM assignment a
        JOIN judgment j ON j.id = a.live_judgment_id
        JOIN annotator n ON n.id = a.annotator_id
        LEFT JOIN candidate c ON c.id = a.candidate_id
        WHERE a.study_id = wanted AND a.kind = 'normal' AND coalesce(c.kind, 'candidate') = 'candidate'
          AND EXISTS (SELECT 1 FROM study_member m
                      WHERE m.login = session_user AND m.study_id = wanted AND m.role = 'adjudicator'))
    SELECT live.* FROM live
    JOIN (SELECT l.candidate_id, l.choice_task_id, l.unit, l.criterion_id FROM live l
          GROUP BY l.candidate_id, l.choice_task_id, l.unit, l.criterion_id
          HAVING count(DISTINCT l.value) > 1) d
      ON d.candidate_id IS NOT DISTINCT FROM live.candidate_id
     AND d.choice_task_id IS NOT DISTINCT FROM live.choice_task_id
     AND d.unit IS NOT DISTINCT FROM live.unit AND d.criterion_id = live.criterion_id
    $$;

-- A member's judgment: the row it supersedes (if any) gets superseded_by, and the assignment's live answer
-- follows, as the store does itself for the researcher's own connection. The new row must supersede exactly
-- the assignment's live answer, so a judge's insert can neither hide another row nor leave two live.
CREATE FUNCTION ps_member_judgment_written() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = {schema}, pg_temp
    AS $$
    DECLARE
        live integer;
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM study_member WHERE login = session_user AND study_id = NEW.study_id
                       AND role IN ('judge', 'adjudicator')) THEN
            RETURN NULL;
        END IF;
        SELECT live_judgment_id INTO live FROM assignment WHERE id = NEW.assignment_id FOR UPDATE;
        IF live IS DISTINCT FROM NEW.supersedes THEN
            RAISE EXCEPTION 'judgment % must supersede the assignment''s live answer %', NEW.id, live
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.supersedes IS NOT NULL THEN
            UPDATE judgment SET superseded_by = NEW.id WHERE id = NEW.supersedes;
        END IF;
        UPDATE assignment SET live_judgment_id = CASE WHEN NEW.action = 'answer' THEN NEW.id END
            WHERE id = NEW.assignment_id;
        RETURN NULL;
    END $$;

CREATE TRIGGER ps_member_judgment_written AFTER INSERT ON judgment
    FOR EACH ROW EXECUTE FUNCTION ps_member_judgment_written();
"""

# Which rows a member's login may touch; columns and verbs come with the invitation (access_grants).
POLICIES = """
CREATE POLICY member_reads ON study FOR SELECT USING (id IN (SELECT ps_member_studies()));
CREATE POLICY member_reads ON criterion FOR SELECT USING (study_id IN (SELECT ps_member_studies()));
CREATE POLICY member_reads ON source_sentence FOR SELECT USING (study_id IN (SELECT ps_member_studies()));
CREATE POLICY member_reads ON candidate FOR SELECT USING (study_id IN (SELECT ps_member_studies()));
CREATE POLICY member_reads ON choice_task FOR SELECT USING (study_id IN (SELECT ps_member_studies()));
CREATE POLICY member_reads ON preference_pair FOR SELECT USING (study_id IN (SELECT ps_member_studies()));
CREATE POLICY own_or_adjudicated ON annotator FOR SELECT
    USING (id IN (SELECT ps_my_annotators()) OR study_id IN (SELECT ps_adjudicated_studies()));
CREATE POLICY own_reads ON assignment FOR SELECT USING (annotator_id IN (SELECT ps_my_annotators()));
CREATE POLICY adjudication_inserts ON assignment FOR INSERT
    WITH CHECK (annotator_id IN (SELECT ps_my_annotators()) AND kind = 'adjudication' AND repeat_of IS NULL
                AND live_judgment_id IS NULL AND study_id IN (SELECT ps_adjudicated_studies()));
CREATE POLICY own_reads ON judgment FOR SELECT USING (annotator_id IN (SELECT ps_my_annotators()));
CREATE POLICY own_inserts ON judgment FOR INSERT
    WITH CHECK (annotator_id IN (SELECT ps_my_annotators())
                AND assignment_id IN (SELECT id FROM assignment
                                      WHERE annotator_id = judgment.annotator_id AND study_id = judgment.study_id));
CREATE POLICY member_inserts ON event_log FOR INSERT WITH CHECK (study_id IN (SELECT ps_member_studies()));
CREATE POLICY own_session ON annotator_session FOR ALL
    USING (annotator_id IN (SELECT ps_my_annotators()))
    WITH CHECK (annotator_id IN (SELECT ps_my_annotators()));
"""


def upgrade() -> None:
    op.create_table(
        "study_member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("login", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=True),
        sa.Column("invited_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["annotator_id"], ["annotator.id"]),
        sa.ForeignKeyConstraint(["study_id"], ["study.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("study_id", "login"),
    )
    with op.batch_alter_table("study_member", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_study_member_login"), ["login"], unique=False)
    if op.get_bind().dialect.name != "postgresql":
        return
    schema = op.get_bind().exec_driver_sql("SELECT current_schema()").scalar()
    quoted = op.get_bind().dialect.identifier_preparer.quote(schema)
    op.execute(FUNCTIONS.format(schema=quoted))
    for function in ("ps_member_studies()", "ps_my_annotators()", "ps_adjudicated_studies()",
                     "ps_my_membership()", "ps_shown_derivation(integer)", "ps_disagreement_labels(integer)",
                     "ps_judging_settings(integer)"):
        # Functions are executable by PUBLIC by default; each checks its caller's membership itself.
        op.execute(f"GRANT EXECUTE ON FUNCTION {function} TO PUBLIC")
    for table in STORE_TABLES:
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
    op.execute(POLICIES)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS ps_member_judgment_written ON judgment")
        for table in STORE_TABLES[:-1]:
            for policy in ("member_reads", "own_or_adjudicated", "own_reads", "adjudication_inserts",
                           "own_inserts", "member_inserts", "own_session"):
                op.execute(f"DROP POLICY IF EXISTS {policy} ON {table}")
            op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
        for function in ("ps_member_judgment_written()", "ps_disagreement_labels(integer)",
                         "ps_judging_settings(integer)",
                         "ps_shown_derivation(integer)", "ps_my_membership()", "ps_adjudicated_studies()",
                         "ps_my_annotators()", "ps_member_studies()"):
            op.execute(f"DROP FUNCTION IF EXISTS {function}")
    with op.batch_alter_table("study_member", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_study_member_login"))
    op.drop_table("study_member")
