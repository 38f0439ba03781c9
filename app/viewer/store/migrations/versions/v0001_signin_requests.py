"""viewer store: pending e-mail sign-ins

Revision ID: v0001
Revises:
Create Date: 2026-12-01 10:00:00

These rows take the place of the API database's ``signin_requests`` (dropped by the API's
migration 0002); pending sign-ins are not carried over (see there).
"""

import sqlalchemy as sa
from alembic import op

revision = "v0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "viewer_signin_requests",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("share_link_hash", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("browser_hash", sa.String(length=64), nullable=False),
        sa.Column("next_path", sa.String(length=2000), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_viewer_signin_requests")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_viewer_signin_requests_token_hash")),
    )
    op.create_index(
        "ix_viewer_signin_requests_expires_at", "viewer_signin_requests", ["expires_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_viewer_signin_requests_expires_at", table_name="viewer_signin_requests")
    op.drop_table("viewer_signin_requests")
