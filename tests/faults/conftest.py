"""Fixtures of the fault suite: a private PostgreSQL server the test may stop and restart.

The suite breaks things on purpose: it restarts a database, kills workers, points the
viewer at an API that is down or slow. Everything runs on loopback, in temporary
directories, bounded in time; the shared PostgreSQL of the other tests is never touched
(restarting it would fail whatever runs beside us under ``-n 2``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fault_harness import PrivatePostgres, pg_bin, private_postgres_server
from tests.support.links import Shared, seed_link


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    """A fresh PostgreSQL server of this test alone, on a free loopback port."""
    bin_dir = pg_bin()
    if bin_dir is None:
        # CI has PostgreSQL (make test-postgres needs it): failing says what is missing,
        # where a skip would let the restart test silently never run.
        pytest.fail("PostgreSQL server binaries (initdb, pg_ctl) not found; install postgresql")
    with private_postgres_server(bin_dir) as server:
        yield server


@pytest.fixture
def shared(app, org) -> Shared:
    """A public link over all six kinds (4 results each) and two predictions."""
    return seed_link(app, org)
