"""Retention keeps a stub of each run it purges: ``data_deleted_at``

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-10 09:00:00

The SDK's run records say when their data was deleted (``data_deleted_at``; ``input``
null "if data deleted"). ``purge-expired`` keeps a run's row as a stub, so a share
link goes on listing it: ``data_deleted_at`` set,
``input`` (pipelines) or ``inputs``/``outputs`` (predictions) null, results and artifacts
gone. Nullable: every existing row reads as not deleted.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("pipelines", schema=None) as batch_op:
        batch_op.add_column(sa.Column("data_deleted_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("predictions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("data_deleted_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("predictions", schema=None) as batch_op:
        batch_op.drop_column("data_deleted_at")
    with op.batch_alter_table("pipelines", schema=None) as batch_op:
        batch_op.drop_column("data_deleted_at")
