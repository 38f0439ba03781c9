"""The viewer store's tables, as SQLAlchemy Core, apart from the API's ``app.store.schema``.

Table names start with ``viewer_`` so that the store can share a database (and, on
PostgreSQL, a schema's index namespace) with the API. Times are naive UTC datetimes, as in
the API's schema. The Alembic migrations in ``migrations/`` create exactly these tables.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
    }
)

# Pending e-mail sign-ins (signin_requests.py): only hashes of the link token, the code,
# the share link id and the requesting browser's nonce are kept, never the secrets.
signin_requests = sa.Table(
    "viewer_signin_requests",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("share_link_hash", sa.String(64), nullable=False),
    sa.Column("email", sa.String(320), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("code_hash", sa.String(64), nullable=False),
    sa.Column("browser_hash", sa.String(64), nullable=False),
    # Page to return to, relative to /share/<id> (the id itself is not stored).
    sa.Column("next_path", sa.String(2000), nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    # Indexed: every new sign-in purges the rows that expired a while ago.
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Column("used_at", sa.DateTime, nullable=True),
    sa.Index("ix_viewer_signin_requests_expires_at", "expires_at"),
)
