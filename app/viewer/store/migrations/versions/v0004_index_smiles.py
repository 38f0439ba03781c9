"""viewer store: the exploration index keeps each result's SMILES; indexes rebuilt

Revision ID: v0004
Revises: v0003
Create Date: 2026-12-20 10:00:00

``viewer_indexed_results.smiles``: the substructure filter (``smarts=``) matches the
distinct SMILES of an index once per query, so the index keeps them beside the values.
The computed chemistry columns (reserved in v0003) are filled from this revision on.
Indexes are caches of what the API holds: every existing one is emptied here, so each is
rebuilt on its next use with the SMILES and the chemistry rather than left without them.
"""

import sqlalchemy as sa
from alembic import op

revision = "v0004"
down_revision = "v0003"
branch_labels = None
depends_on = None

_INDEX_TABLES = ("viewer_index_frames", "viewer_indexed_records", "viewer_indexed_results",
                 "viewer_result_indexes")


def upgrade() -> None:
    for name in _INDEX_TABLES:
        op.execute(sa.table(name).delete())
    with op.batch_alter_table("viewer_indexed_results") as batch:
        batch.add_column(sa.Column("smiles", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("viewer_indexed_results") as batch:
        batch.drop_column("smiles")
