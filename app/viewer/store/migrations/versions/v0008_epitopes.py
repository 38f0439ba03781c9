"""viewer store: epitopes, the target residues each protein design contacts

Revision ID: v0008
Revises: v0007
Create Date: 2026-11-26 22:30:00

``viewer_epitope_contacts``: per design, the target residues it contacts and its exposed
M/W, read from its structure file (``app.viewer.epitope``); ``viewer_epitope_scans``: one
row per scanned pipeline with its lease and progress. Both are caches of what the
structure files say: deleted with the pipeline's index.
"""

import sqlalchemy as sa
from alembic import op

revision = "v0008"
down_revision = "v0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "viewer_epitope_contacts",
        sa.Column("pipeline_id", sa.String(64), nullable=False),
        sa.Column("result_id", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("contacts", sa.Text(), nullable=False, server_default=""),
        sa.Column("exposed", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("pipeline_id", "result_id",
                                name="pk_viewer_epitope_contacts"),
    )
    op.create_table(
        "viewer_epitope_scans",
        sa.Column("pipeline_id", sa.String(64), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("finished_count", sa.Integer(), nullable=True),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("failure", sa.String(200), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("pipeline_id", name="pk_viewer_epitope_scans"),
    )


def downgrade() -> None:
    op.drop_table("viewer_epitope_scans")
    op.drop_table("viewer_epitope_contacts")
