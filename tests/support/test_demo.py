"""The shared read-only demo's guard: a test that changes its data or its app is named and
fails, and the next test gets a fresh demo; reads and caches pass."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.viewer.store import schema as viewer_schema
from tests.support.demo import fingerprint, shared_demo


def test_a_read_and_a_cache_row_leave_the_demo_unchanged():
    shared = shared_demo()
    engine = get_engine(shared.app)
    before = fingerprint(engine)
    with engine.begin() as conn:
        conn.execute(viewer_schema.epitope_scans.delete())  # a cache: rebuilt on demand
    assert fingerprint(engine) == before
    shared.check_unchanged("a reading test")
    assert shared_demo() is shared


@pytest.mark.slow
def test_a_changed_row_fails_the_test_that_made_it_and_the_next_gets_a_fresh_demo():
    shared = shared_demo()
    link = shared.summary["share_links"]["public"]["id"]
    with get_engine(shared.app).begin() as conn:
        conn.execute(sa.text("UPDATE share_links SET archived_at = '2026-01-01' WHERE id = :id"),
                     {"id": link})
    with pytest.raises(AssertionError, match="test_that_archives changed the shared"):
        shared.check_unchanged("test_that_archives")
    fresh = shared_demo()
    assert fresh is not shared
    fresh.check_unchanged("the next test")


@pytest.mark.slow
def test_a_changed_config_is_named():
    shared = shared_demo()
    shared.app.config["PUBLIC_URL"] = None
    with pytest.raises(AssertionError, match=r"app.config\['PUBLIC_URL'\]"):
        shared.check_unchanged("test_that_configures")
