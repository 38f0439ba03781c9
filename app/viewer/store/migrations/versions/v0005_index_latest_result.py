"""viewer store: an exploration index remembers the pipeline's latest result id

Revision ID: v0005
Revises: v0004
Create Date: 2026-11-25 05:00:00

``viewer_result_indexes.latest_result_id``: the run record's ``progress.latest_result_id``
the index was brought up to. The compute API's share read says how far a pipeline is with
that id, its status and its ``progress`` counts (it has no ``result_count``), so an index is
current when all three match. Existing indexes get NULL: the next use finds them not
current and reads any pages after their ``last_id`` (usually none), nothing is rebuilt.
"""

import sqlalchemy as sa
from alembic import op

revision = "v0005"
down_revision = "v0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("viewer_result_indexes") as batch:
        batch.add_column(sa.Column("latest_result_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("viewer_result_indexes") as batch:
        batch.drop_column("latest_result_id")
