"""Each schema's Alembic migrations build exactly the tables its module declares.

The API's (``app.store.schema``) and the viewer store's (``app.viewer.store.schema``)
share the test database, so each comparison looks only at its own tables: the other
schema's tables and version table are not differences.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app.platform.db import only_tables_of
from app.store import schema as api_schema
from app.viewer.store import schema as viewer_schema

# Migrations against the declared types, as each dialect reflects them.
pytestmark = pytest.mark.dialect


def _differences(db_url: str, metadata: sa.MetaData) -> list:
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={
                "compare_type": True, "include_name": only_tables_of(metadata)})
            return compare_metadata(context, metadata)
    finally:
        engine.dispose()


@pytest.mark.parametrize("metadata", [api_schema.metadata, viewer_schema.metadata],
                         ids=["api", "viewer"])
def test_migrations_match_the_declared_schema(db_url, metadata):
    assert _differences(db_url, metadata) == []


def test_the_two_schemas_share_no_table_or_index_name():
    def names(metadata: sa.MetaData) -> set[str]:
        tables = set(metadata.tables)
        indexes = {index.name for table in metadata.tables.values() for index in table.indexes}
        return tables | indexes

    assert names(api_schema.metadata).isdisjoint(names(viewer_schema.metadata))
    assert "signin_requests" not in api_schema.metadata.tables
