"""viewer store: server-side sessions, rate-limit counters, link attempts apart

Revision ID: v0002
Revises: v0001
Create Date: 2026-12-08 10:00:00

Sessions move from the signed cookie into ``viewer_sessions`` (the cookie keeps only an
opaque id), so the browsers signed in before this revision sign in again. Rate limits are
counted in ``viewer_rate_limit_keys``/``_hits`` unless Redis is configured. Pending
sign-ins count wrong codes typed with the message's link apart (``link_attempts``).
"""

import sqlalchemy as sa
from alembic import op

revision = "v0002"
down_revision = "v0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("viewer_signin_requests") as batch:
        batch.add_column(
            sa.Column("link_attempts", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_table(
        "viewer_sessions",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id_hash", name=op.f("pk_viewer_sessions")),
    )
    op.create_index("ix_viewer_sessions_expires_at", "viewer_sessions", ["expires_at"])
    op.create_table(
        "viewer_rate_limit_keys",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_viewer_rate_limit_keys")),
    )
    op.create_index(
        "ix_viewer_rate_limit_keys_expires_at", "viewer_rate_limit_keys", ["expires_at"]
    )
    op.create_table(
        "viewer_rate_limit_hits",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_viewer_rate_limit_hits")),
    )
    op.create_index(
        "ix_viewer_rate_limit_hits_key_at", "viewer_rate_limit_hits", ["key", "at"]
    )
    op.create_index(
        "ix_viewer_rate_limit_hits_expires_at", "viewer_rate_limit_hits", ["expires_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_viewer_rate_limit_hits_expires_at", table_name="viewer_rate_limit_hits")
    op.drop_index("ix_viewer_rate_limit_hits_key_at", table_name="viewer_rate_limit_hits")
    op.drop_table("viewer_rate_limit_hits")
    op.drop_index("ix_viewer_rate_limit_keys_expires_at", table_name="viewer_rate_limit_keys")
    op.drop_table("viewer_rate_limit_keys")
    op.drop_index("ix_viewer_sessions_expires_at", table_name="viewer_sessions")
    op.drop_table("viewer_sessions")
    with op.batch_alter_table("viewer_signin_requests") as batch:
        batch.drop_column("link_attempts")
