"""livemode: every pipeline, prediction and share link is live or test

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 13:45:00

Every row older than this revision was made by a live key (no test-mode rows exist before
it), so the new ``livemode`` columns default to true on the server and the upgrade needs no
data step. ``workspaces.test_data_seeded_at`` records when a workspace got its synthetic
test-mode data (null: not yet). The two indexes serve per-workspace, per-mode lists and the
existence checks of share-link creation.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_LIVE_TABLES = ("pipelines", "predictions", "share_links")


def upgrade() -> None:
    for table in _LIVE_TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(
                sa.Column("livemode", sa.Boolean(), nullable=False, server_default=sa.true()))
    with op.batch_alter_table("workspaces", schema=None) as batch_op:
        batch_op.add_column(sa.Column("test_data_seeded_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("pipelines", schema=None) as batch_op:
        batch_op.create_index("ix_pipelines_workspace_livemode_id",
                              ["workspace_id", "livemode", "id"], unique=False)
    with op.batch_alter_table("predictions", schema=None) as batch_op:
        batch_op.create_index("ix_predictions_workspace_livemode_id",
                              ["workspace_id", "livemode", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("predictions", schema=None) as batch_op:
        batch_op.drop_index("ix_predictions_workspace_livemode_id")
    with op.batch_alter_table("pipelines", schema=None) as batch_op:
        batch_op.drop_index("ix_pipelines_workspace_livemode_id")
    with op.batch_alter_table("workspaces", schema=None) as batch_op:
        batch_op.drop_column("test_data_seeded_at")
    for table in reversed(_LIVE_TABLES):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("livemode")
