"""Run records of the SDK: stored progress, start and stop times, errors

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 04:30:00

The SDK's run records carry what the service cannot derive from results alone:
``pipelines.progress`` holds the stored part of a run's progress (requested totals,
failed counts, the explore ``phase``, ``rejection_summary``; the service adds the counts
of stored results and ``latest_result_id``), ``started_at``/``stopped_at`` when the
engine started and stopped it, ``error`` why it failed (``code``, ``message``,
``details``). Predictions gain ``started_at`` and ``error``. Every column is nullable:
a row without them reads as total = count, nothing failed, no error.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("pipelines", schema=None) as batch_op:
        batch_op.add_column(sa.Column("progress", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("started_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("stopped_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("error", sa.JSON(), nullable=True))
    with op.batch_alter_table("predictions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("started_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("error", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("predictions", schema=None) as batch_op:
        batch_op.drop_column("error")
        batch_op.drop_column("started_at")
    with op.batch_alter_table("pipelines", schema=None) as batch_op:
        batch_op.drop_column("error")
        batch_op.drop_column("stopped_at")
        batch_op.drop_column("started_at")
        batch_op.drop_column("progress")
