"""viewer store: the exploration index keeps metrics beyond the kinds'; indexes rebuilt

Revision ID: v0006
Revises: v0005
Create Date: 2026-11-25 05:00:00

``viewer_indexed_results.ipsae_min``: an optional metric of protein results that the
vocabulary now knows (``app.domain.METRICS``), a column like every known metric.
``viewer_indexed_results.extra_metrics``: each result's metrics the vocabulary does not
know, as JSON (``app.viewer.explore.extra_metrics``), which the index's saved frames turn
into columns. Indexes are caches of what the API holds: every existing one is emptied
here, so each is rebuilt on its next use with these metrics.
"""

import sqlalchemy as sa
from alembic import op

revision = "v0006"
down_revision = "v0005"
branch_labels = None
depends_on = None

_INDEX_TABLES = ("viewer_index_frames", "viewer_indexed_records", "viewer_indexed_results",
                 "viewer_result_indexes")


def upgrade() -> None:
    for name in _INDEX_TABLES:
        op.execute(sa.table(name).delete())
    with op.batch_alter_table("viewer_indexed_results") as batch:
        batch.add_column(sa.Column("ipsae_min", sa.Float(), nullable=True))
        batch.add_column(sa.Column("extra_metrics", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("viewer_indexed_results") as batch:
        batch.drop_column("extra_metrics")
        batch.drop_column("ipsae_min")
