"""Alembic environment of the viewer store: runs on the connection Database.migrate hands over.

Its history lives in ``viewer_alembic_version`` and autogenerate looks only at the
viewer's tables, so the store can share a database with the API's schema.
"""

from alembic import context

from app.platform.db import only_tables_of
from app.viewer.store.schema import metadata

attributes = context.config.attributes
context.configure(
    connection=attributes["connection"],
    # Never the API's alembic_version: the two histories may share a database.
    version_table=attributes.get("version_table", "viewer_alembic_version"),
    target_metadata=metadata,
    render_as_batch=True,
    include_name=only_tables_of(metadata),
)
with context.begin_transaction():
    context.run_migrations()
