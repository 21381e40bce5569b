"""Initial schema: studies, items, assignments, append-only judgments, event log.

Revision ID: 0001
Revises: 
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('study',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('judges_per_item', sa.Integer(), nullable=False),
    sa.Column('seed', sa.Integer(), nullable=False),
    sa.Column('application', sa.String(length=50), nullable=True),
    sa.Column('settings', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name'),
    sa.UniqueConstraint('uid')
    )
    op.create_table('annotator',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('study_id', 'name')
    )
    with op.batch_alter_table('annotator', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_annotator_study_id'), ['study_id'], unique=False)

    op.create_table('criterion',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('question', sa.Text(), nullable=False),
    sa.Column('scale', sa.String(length=20), nullable=False),
    sa.Column('levels', sa.JSON(), nullable=False),
    sa.Column('shows_source', sa.Boolean(), nullable=False),
    sa.Column('application', sa.String(length=50), nullable=True),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('study_id', 'name')
    )
    with op.batch_alter_table('criterion', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_criterion_study_id'), ['study_id'], unique=False)

    op.create_table('event_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=True),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('actor', sa.String(length=200), nullable=True),
    sa.Column('kind', sa.String(length=50), nullable=False),
    sa.Column('payload', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('event_log', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_event_log_study_id'), ['study_id'], unique=False)

    op.create_table('source_sentence',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('external_id', sa.String(length=200), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('references', sa.JSON(), nullable=False),
    sa.Column('test_set', sa.String(length=200), nullable=True),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('study_id', 'external_id')
    )
    with op.batch_alter_table('source_sentence', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_source_sentence_study_id'), ['study_id'], unique=False)

    op.create_table('system',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('study_id', 'name')
    )
    with op.batch_alter_table('system', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_system_study_id'), ['study_id'], unique=False)

    op.create_table('candidate',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('control_of', sa.Integer(), nullable=True),
    sa.Column('scores', sa.JSON(), nullable=False),
    sa.Column('derivation', sa.JSON(), nullable=True),
    sa.Column('tables', sa.JSON(), nullable=True),
    sa.Column('lm', sa.Text(), nullable=True),
    sa.Column('params', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['control_of'], ['candidate.id'], ),
    sa.ForeignKeyConstraint(['source_id'], ['source_sentence.id'], ),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('source_id', 'text', 'kind')
    )
    with op.batch_alter_table('candidate', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_candidate_source_id'), ['source_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_candidate_study_id'), ['study_id'], unique=False)

    op.create_table('choice_task',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('span_start', sa.Integer(), nullable=False),
    sa.Column('span_end', sa.Integer(), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('system', sa.String(length=200), nullable=True),
    sa.ForeignKeyConstraint(['source_id'], ['source_sentence.id'], ),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('choice_task', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_choice_task_source_id'), ['source_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_choice_task_study_id'), ['study_id'], unique=False)

    op.create_table('assignment',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=False),
    sa.Column('candidate_id', sa.Integer(), nullable=True),
    sa.Column('choice_task_id', sa.Integer(), nullable=True),
    sa.Column('criterion_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('repeat_of', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['annotator_id'], ['annotator.id'], ),
    sa.ForeignKeyConstraint(['candidate_id'], ['candidate.id'], ),
    sa.ForeignKeyConstraint(['choice_task_id'], ['choice_task.id'], ),
    sa.ForeignKeyConstraint(['criterion_id'], ['criterion.id'], ),
    sa.ForeignKeyConstraint(['repeat_of'], ['assignment.id'], ),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('annotator_id', 'position', name='uq_assignment_annotator_position')
    )
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.create_index('ix_assignment_candidate', ['candidate_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_assignment_study_id'), ['study_id'], unique=False)

    op.create_table('candidate_system',
    sa.Column('candidate_id', sa.Integer(), nullable=False),
    sa.Column('system_id', sa.Integer(), nullable=False),
    sa.Column('rank', sa.Integer(), nullable=True),
    sa.Column('model_score', sa.Double(), nullable=True),
    sa.Column('true_score', sa.Double(), nullable=True),
    sa.Column('derivation', sa.JSON(), nullable=True),
    sa.Column('params', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['candidate_id'], ['candidate.id'], ),
    sa.ForeignKeyConstraint(['system_id'], ['system.id'], ),
    sa.PrimaryKeyConstraint('candidate_id', 'system_id')
    )
    with op.batch_alter_table('candidate_system', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_candidate_system_system_id'), ['system_id'], unique=False)

    op.create_table('judgment',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uid', sa.String(length=36), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('assignment_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=False),
    sa.Column('candidate_id', sa.Integer(), nullable=True),
    sa.Column('choice_task_id', sa.Integer(), nullable=True),
    sa.Column('criterion_id', sa.Integer(), nullable=False),
    sa.Column('action', sa.String(length=10), nullable=False),
    sa.Column('value', sa.String(length=100), nullable=True),
    sa.Column('text', sa.Text(), nullable=True),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('answered_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('duration_ms', sa.Integer(), nullable=True),
    sa.Column('comment', sa.Text(), nullable=True),
    sa.Column('flag', sa.Boolean(), nullable=False),
    sa.Column('supersedes', sa.Integer(), nullable=True),
    sa.Column('superseded_by', sa.Integer(), nullable=True),
    sa.Column('origin', sa.String(length=20), nullable=False),
    sa.ForeignKeyConstraint(['annotator_id'], ['annotator.id'], ),
    sa.ForeignKeyConstraint(['assignment_id'], ['assignment.id'], ),
    sa.ForeignKeyConstraint(['candidate_id'], ['candidate.id'], ),
    sa.ForeignKeyConstraint(['choice_task_id'], ['choice_task.id'], ),
    sa.ForeignKeyConstraint(['criterion_id'], ['criterion.id'], ),
    sa.ForeignKeyConstraint(['study_id'], ['study.id'], ),
    sa.ForeignKeyConstraint(['superseded_by'], ['judgment.id'], ),
    sa.ForeignKeyConstraint(['supersedes'], ['judgment.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uid')
    )
    with op.batch_alter_table('judgment', schema=None) as batch_op:
        batch_op.create_index('ix_judgment_annotator', ['annotator_id', 'id'], unique=False)
        batch_op.create_index('ix_judgment_assignment', ['assignment_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_judgment_study_id'), ['study_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('judgment', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_judgment_study_id'))
        batch_op.drop_index('ix_judgment_assignment')
        batch_op.drop_index('ix_judgment_annotator')

    op.drop_table('judgment')
    with op.batch_alter_table('candidate_system', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_candidate_system_system_id'))

    op.drop_table('candidate_system')
    with op.batch_alter_table('assignment', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_assignment_study_id'))
        batch_op.drop_index('ix_assignment_candidate')

    op.drop_table('assignment')
    with op.batch_alter_table('choice_task', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_choice_task_study_id'))
        batch_op.drop_index(batch_op.f('ix_choice_task_source_id'))

    op.drop_table('choice_task')
    with op.batch_alter_table('candidate', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_candidate_study_id'))
        batch_op.drop_index(batch_op.f('ix_candidate_source_id'))

    op.drop_table('candidate')
    with op.batch_alter_table('system', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_system_study_id'))

    op.drop_table('system')
    with op.batch_alter_table('source_sentence', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_source_sentence_study_id'))

    op.drop_table('source_sentence')
    with op.batch_alter_table('event_log', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_event_log_study_id'))

    op.drop_table('event_log')
    with op.batch_alter_table('criterion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_criterion_study_id'))

    op.drop_table('criterion')
    with op.batch_alter_table('annotator', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_annotator_study_id'))

    op.drop_table('annotator')
    op.drop_table('study')
