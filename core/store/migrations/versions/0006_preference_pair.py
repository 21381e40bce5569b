"""Pairwise preference (issue 30): the pairs of two systems' candidates, and which pair an assignment and a
judgment are about.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "preference_pair",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=False),
        sa.Column("left_system", sa.String(length=200), nullable=False),
        sa.Column("right_system", sa.String(length=200), nullable=False),
        sa.Column("left_candidate_id", sa.Integer(), nullable=False),
        sa.Column("right_candidate_id", sa.Integer(), nullable=False),
        sa.Column("order_seed", sa.String(length=200), nullable=False),
        sa.Column("identical", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["left_candidate_id"], ["candidate.id"]),
        sa.ForeignKeyConstraint(["right_candidate_id"], ["candidate.id"]),
        sa.ForeignKeyConstraint(["source_id"], ["source_sentence.id"]),
        sa.ForeignKeyConstraint(["study_id"], ["study.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("source_id", "left_system", "right_system"),
    )
    with op.batch_alter_table("preference_pair", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_preference_pair_source_id"), ["source_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_preference_pair_study_id"), ["study_id"], unique=False)
    # A plain column, not a foreign key: SQLite adds no constraint to a table in place, and a batch copy of the
    # table would have to drop the old one, which the rows referring to it refuse.
    for table in ("assignment", "judgment"):
        op.add_column(table, sa.Column("pair_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    for table in ("judgment", "assignment"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("pair_id")
    with op.batch_alter_table("preference_pair", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_preference_pair_study_id"))
        batch_op.drop_index(batch_op.f("ix_preference_pair_source_id"))
    op.drop_table("preference_pair")
