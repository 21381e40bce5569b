"""Cache each assignment's live judgment so resuming is one index seek.

Adds ``assignment.live_judgment_id`` and a partial index over open
assignments, and fills the column from the judgments already recorded: the
newest answer of the assignment that no later row superseded.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("assignment", schema=None) as batch_op:
        batch_op.add_column(sa.Column("live_judgment_id", sa.Integer(), nullable=True))
    op.execute(
        """
        UPDATE assignment SET live_judgment_id = (
            SELECT MAX(judgment.id) FROM judgment
            WHERE judgment.assignment_id = assignment.id
              AND judgment.action = 'answer'
              AND judgment.superseded_by IS NULL
        )
        """
    )
    with op.batch_alter_table("assignment", schema=None) as batch_op:
        batch_op.create_index(
            "ix_assignment_open",
            ["annotator_id", "position"],
            unique=False,
            sqlite_where=sa.text("live_judgment_id IS NULL"),
            postgresql_where=sa.text("live_judgment_id IS NULL"),
        )


def downgrade() -> None:
    with op.batch_alter_table("assignment", schema=None) as batch_op:
        batch_op.drop_index("ix_assignment_open")
        batch_op.drop_column("live_judgment_id")
