"""The Alembic migrations build exactly the tables that ``app.store.schema`` declares."""

from __future__ import annotations

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app.store import schema


def test_migrations_match_the_declared_schema(db_url):
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            differences = compare_metadata(context, schema.metadata)
    finally:
        engine.dispose()
    assert differences == []
