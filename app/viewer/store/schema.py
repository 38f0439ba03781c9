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
    # Wrong codes typed in the browser that asked, and with the message's link in
    # another browser: counted apart, so an outsider who asked for a listed reader's
    # message and typed wrong codes cannot stop its link from working for its owner.
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("link_attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("created_at", sa.DateTime, nullable=False),
    # Indexed: every new sign-in purges the rows that expired a while ago.
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Column("used_at", sa.DateTime, nullable=True),
    sa.Index("ix_viewer_signin_requests_expires_at", "expires_at"),
)

# Browser sessions (sessions.py; app.viewer.signin.sessions): the cookie holds a random id,
# the row is keyed by its keyed hash, so a copy of the table signs nobody in. ``data`` is
# the session dict (Flask's tagged JSON): CSRF token, browser nonce, pending sign-ins,
# the proved address. Deleting the row is signing out, wherever the cookie was copied to.
sessions = sa.Table(
    "viewer_sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    # The proved address (NULL before sign-in), apart from ``data`` for an operator's eyes.
    sa.Column("email", sa.String(320), nullable=True),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    # Checked on every read; indexed for the purge of expired rows.
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Index("ix_viewer_sessions_expires_at", "expires_at"),
)

# Sign-in rate limits counted in the store (rate_limits.py), exact across workers and
# servers: one row per key (its lock: every hit of a key first updates this row) and one
# row per counted hit in the key's moving window. Keys are keyed hashes, never addresses.
rate_limit_keys = sa.Table(
    "viewer_rate_limit_keys",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    # The end of the last hit's window: after it the key and its hits can go.
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Index("ix_viewer_rate_limit_keys_expires_at", "expires_at"),
)

rate_limit_hits = sa.Table(
    "viewer_rate_limit_hits",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("key", sa.String(64), nullable=False),
    sa.Column("at", sa.DateTime, nullable=False),
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Index("ix_viewer_rate_limit_hits_key_at", "key", "at"),
    sa.Index("ix_viewer_rate_limit_hits_expires_at", "expires_at"),
)
