"""Is a database's schema the one the code needs? The readiness check of each ``Database``.

``/readyz`` must not say "ready" for a database that answers ``SELECT 1`` but was never
given its tables (``init-db`` not run on a fresh ``DATABASE_URL`` or
``VIEWER_DATABASE_URL``) or is at an older revision: every page would then fail with
"no such table" while the load balancer keeps sending traffic.

Decision: the app never migrates by itself at start. Several workers on several nodes
would race to upgrade, and an upgrade is a step of a release (docs/deploy.md: once per
upgrade, from one machine). A node whose schema is behind or missing is simply not
ready: ``/readyz`` answers 503 naming the database and the ``init-db`` command to run.

A database *ahead* of the code (a revision this code does not know) is ready: during a
rolling upgrade ``init-db`` of the new release runs before the old nodes are replaced,
and those must keep serving until then (migrations add before they take away).

The check is one small query (the version table); the code's head revisions are read
from the migrations folder once per process.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import sqlalchemy as sa
from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

# PostgreSQL's SQLSTATE for "relation does not exist".
_PG_UNDEFINED_TABLE = "42P01"


class SchemaNotCurrent(Exception):
    """A database answers but its schema is missing or older than the code's.

    ``readiness_state`` is the word ``/readyz`` reports for the check and
    ``readiness_fix`` the sentence telling the operator what to run.
    """

    def __init__(self, label: str, state: str, command: str):
        what = "has no schema" if state == "schema_missing" else "has an old schema"
        self.readiness_state = state
        self.readiness_fix = f"the {label} {what}: run `{command}`"
        super().__init__(self.readiness_fix)


@cache
def _code_revisions(migrations_dir: Path) -> tuple[frozenset[str], frozenset[str]]:
    """Return (head revisions, every revision) of a migrations folder; read once per process."""
    config = AlembicConfig()
    config.set_main_option("script_location", str(migrations_dir))
    script = ScriptDirectory.from_config(config)
    heads = frozenset(script.get_heads())
    known = frozenset(revision.revision for revision in script.walk_revisions())
    return heads, known


def is_missing_table(error: BaseException) -> bool:
    """Tell whether a database error means a table does not exist (``init-db`` not run)."""
    cause = getattr(error, "orig", None)
    if cause is None:
        return False
    if getattr(cause, "sqlstate", None) == _PG_UNDEFINED_TABLE:
        return True
    return type(cause).__module__ == "sqlite3" and "no such table" in str(cause).lower()


def check(engine: Engine, migrations_dir: Path, version_table: str, *, label: str,
          command: str) -> None:
    """Raise unless ``engine`` answers and its schema is at (or ahead of) the code's head.

    A database that does not answer raises its own error (reported as "unavailable");
    a missing or older schema raises ``SchemaNotCurrent``.
    """
    # The name is one of ours (Database.version_table), never user input.
    query = sa.text(f"SELECT version_num FROM {version_table}")  # noqa: S608
    with engine.connect() as conn:
        try:
            current = {row[0] for row in conn.execute(query)}
        except sa.exc.DBAPIError as error:
            if not is_missing_table(error):
                raise
            current = set()
    if not current:
        raise SchemaNotCurrent(label, "schema_missing", command)
    heads, known = _code_revisions(migrations_dir)
    # Behind: every revision recorded is one this code knows, and not all heads are there.
    if current <= known and not heads <= current:
        raise SchemaNotCurrent(label, "schema_behind", command)
