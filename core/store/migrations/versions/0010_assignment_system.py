"""Each system's output judged apart (issue 43, MQM in document context): the system whose output an assignment
judges, where a study rates every system's output on its own even when two systems wrote the same string (the
MQM ratings of WMT, where each system's output was read in its own document). None, as in every study before: a
string is one candidate, judged once and counted for every system that produced it.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("assignment", schema=None) as batch_op:
        batch_op.add_column(sa.Column("system", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("assignment", schema=None) as batch_op:
        batch_op.drop_column("system")
