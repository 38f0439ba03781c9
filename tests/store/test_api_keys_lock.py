"""The last-admin-key check holds under concurrency (a row lock on PostgreSQL, the
database write lock on SQLite)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.store import api_keys

# The organization's row lock (PostgreSQL) or the write lock (SQLite).
pytestmark = pytest.mark.dialect


def test_counting_admin_keys_locks_the_organization_until_commit(app, db_url, org):
    engine = get_engine(app)
    postgres = engine.dialect.name == "postgresql"
    # The second transaction gives up after 300 ms instead of waiting for the first.
    impatient = engine if postgres else sa.create_engine(db_url, connect_args={"timeout": 0.3})
    with engine.connect() as first, impatient.connect() as second:
        first.begin()
        assert api_keys.count_active_admin_keys(first, org.organization_id) == 1
        second.begin()
        if postgres:
            second.execute(sa.text("SET LOCAL lock_timeout = '300ms'"))
        # A concurrent revocation must wait for the first transaction, not read stale counts.
        with pytest.raises(sa.exc.OperationalError, match="lock"):
            api_keys.count_active_admin_keys(second, org.organization_id)
        second.rollback()
        first.rollback()
    if not postgres:
        impatient.dispose()
        with engine.connect() as third:
            assert api_keys.count_active_admin_keys(third, org.organization_id) == 1
