"""Unit replacements judged one at a time (seed 004 §3.6): which unit an assignment and a judgment are about.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("assignment", "judgment"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("unit", sa.Integer(), nullable=True))


def downgrade() -> None:
    for table in ("judgment", "assignment"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("unit")
