"""Alembic environment: runs migrations on the connection handed over by app.platform.db.

Autogenerate looks only at the API's tables: the viewer store (``app.viewer.store``) may
share the database, with its own tables and version table.
"""

from alembic import context

from app.platform.db import only_tables_of
from app.store.schema import metadata

attributes = context.config.attributes
context.configure(
    connection=attributes["connection"],
    version_table=attributes.get("version_table", "alembic_version"),
    target_metadata=metadata,
    render_as_batch=True,
    include_name=only_tables_of(metadata),
)
with context.begin_transaction():
    context.run_migrations()
