"""drop signin_requests: pending sign-ins move to the viewer's own store

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 10:00:00

The viewer keeps its sign-ins in its own store (``app.viewer.store``, table
``viewer_signin_requests``, ``VIEWER_DATABASE_URL``), so the API's schema no longer has
them. Rows are not copied over: a pending sign-in is a ten-minute secret, so losing the
ones in flight during an upgrade only means that those visitors ask for a new code.
Downgrade recreates the (empty) table.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_signin_requests_expires_at", table_name="signin_requests")
    op.drop_table("signin_requests")


def downgrade() -> None:
    op.create_table(
        "signin_requests",
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
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signin_requests")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_signin_requests_token_hash")),
    )
    op.create_index("ix_signin_requests_expires_at", "signin_requests", ["expires_at"])
