"""Indexes for the retention purge: artifacts by storage_path, link coverage by resource

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:00:00

Files are content-addressed and shared between artifact rows, so ``purge-expired`` deletes
a file only when no remaining row names its ``storage_path``; without this index each of
those checks would read the whole table. Deleting a purged pipeline's or prediction's
rows from the share links that cover it looks them up by (resource_type, resource_id).
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("artifacts", schema=None) as batch_op:
        batch_op.create_index("ix_artifacts_storage_path", ["storage_path"], unique=False)
    with op.batch_alter_table("share_link_resources", schema=None) as batch_op:
        batch_op.create_index("ix_share_link_resources_resource",
                              ["resource_type", "resource_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("share_link_resources", schema=None) as batch_op:
        batch_op.drop_index("ix_share_link_resources_resource")
    with op.batch_alter_table("artifacts", schema=None) as batch_op:
        batch_op.drop_index("ix_artifacts_storage_path")
