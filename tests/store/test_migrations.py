"""The API's and the viewer store's Alembic histories can share one database.

Each keeps its own version table, so they apply in either order, any number of times; the
API's 0002 moves sign-ins out of its schema (dropped, recreated on downgrade).
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from app.platform import db
from app.viewer import store as viewer_store
from tests.support.databases import database_url as _database_url

# Both Alembic histories' DDL, upgraded and downgraded.
pytestmark = pytest.mark.dialect

API_TABLES = {"organizations", "workspaces", "api_keys", "pipelines", "predictions",
              "results", "artifacts", "share_links", "share_link_resources",
              "share_link_emails", "usage_records"}
VIEWER_TABLES = {"viewer_signin_requests", "viewer_sessions", "viewer_rate_limit_keys",
                 "viewer_rate_limit_hits", "viewer_result_indexes", "viewer_indexed_results",
                 "viewer_indexed_records", "viewer_index_frames",
                 "viewer_epitope_contacts", "viewer_epitope_scans"}


def viewer_head() -> str:
    """Return the viewer history's head revision (the viewer adds its own migrations)."""
    config = Config()
    config.set_main_option("script_location", str(viewer_store.VIEWER_DB.migrations_dir))
    return ScriptDirectory.from_config(config).get_current_head()


@pytest.fixture
def empty_engine(tmp_path):
    """An engine on an empty database (a fresh PostgreSQL schema or SQLite file)."""
    url, drop = _database_url(tmp_path)
    engine = db.make_engine(url)
    yield engine
    engine.dispose()
    drop()


def _state(engine) -> tuple[set[str], str, str]:
    """Return the tables (version tables aside) and both histories' current revisions."""
    tables = set(sa.inspect(engine).get_table_names())
    with engine.connect() as conn:
        api = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one()
        viewer = conn.execute(
            sa.text("SELECT version_num FROM viewer_alembic_version")).scalar_one()
    return tables - {"alembic_version", "viewer_alembic_version"}, api, viewer


@pytest.mark.parametrize("order", [("api", "viewer"), ("viewer", "api")])
def test_both_histories_apply_in_either_order_and_repeatedly(empty_engine, order):
    steps = {"api": db.migrate, "viewer": viewer_store.migrate}
    for _ in range(2):
        for name in order:
            steps[name](empty_engine)
    assert _state(empty_engine) == (API_TABLES | VIEWER_TABLES, "0006", viewer_head())


def test_api_0002_moves_signin_requests_out_and_its_downgrade_brings_the_table_back(
    empty_engine,
):
    db.migrate(empty_engine, "0001")
    assert "signin_requests" in sa.inspect(empty_engine).get_table_names()
    db.migrate(empty_engine)
    viewer_store.migrate(empty_engine)
    assert _state(empty_engine)[0] == API_TABLES | VIEWER_TABLES

    with empty_engine.begin() as conn:
        command.downgrade(db.API_DB.alembic_config(conn), "0001")
    tables, api, viewer = _state(empty_engine)
    assert (api, viewer) == ("0001", viewer_head())
    assert tables == API_TABLES | VIEWER_TABLES | {"signin_requests"}
