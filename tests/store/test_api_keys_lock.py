"""The last-admin-key check holds under concurrency (PostgreSQL row locks)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app.db import get_engine
from app.store import api_keys


def test_counting_admin_keys_locks_the_organization_until_commit(app, org):
    engine = get_engine(app)
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite serialises writers; the row lock is a PostgreSQL concern "
                    "(make test runs this on PostgreSQL)")
    with engine.connect() as first, engine.connect() as second:
        first.begin()
        assert api_keys.count_active_admin_keys(first, org.organization_id) == 1
        second.begin()
        second.execute(sa.text("SET LOCAL lock_timeout = '300ms'"))
        # A concurrent revocation must wait for the first transaction, not read stale counts.
        with pytest.raises(sa.exc.OperationalError, match="lock"):
            api_keys.count_active_admin_keys(second, org.organization_id)
        second.rollback()
        first.rollback()
        with engine.connect() as third:
            assert api_keys.count_active_admin_keys(third, org.organization_id) == 1
