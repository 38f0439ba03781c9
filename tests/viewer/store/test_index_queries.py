"""The viewer's saved index frame under concurrency: two workers that build the same frame
at once both save it (on PostgreSQL the second used to fail on the primary key: a 500 on
the first sorted views after a build, seen in the PostgreSQL restart test under load)."""

from __future__ import annotations

import threading

import pytest

from app.viewer.store import get_engine as viewer_engine
from app.viewer.store import index_queries

# The frame's upsert (ON CONFLICT) under concurrent writers.
pytestmark = pytest.mark.dialect


def _saved(engine, pipeline_id: str):
    with engine.connect() as conn:
        return index_queries.saved_frame(conn, pipeline_id)


def test_two_workers_saving_the_same_frame_at_once_both_succeed(app):
    engine = viewer_engine(app)
    failures: list[BaseException] = []
    with engine.connect() as first:
        first.begin()
        index_queries.save_frame(first, "pl_race", 3, b"from the first worker")

        def second_worker() -> None:
            try:
                with engine.begin() as second:  # waits for the first's row (PostgreSQL)
                    index_queries.save_frame(second, "pl_race", 3, b"from the second worker")
            except BaseException as error:  # reported by the assertion below
                failures.append(error)

        thread = threading.Thread(target=second_worker)
        thread.start()
        thread.join(0.5)  # the second is now blocked on the first's uncommitted row
        first.commit()
    thread.join(30)
    assert not thread.is_alive() and failures == []
    assert _saved(engine, "pl_race") == (3, b"from the second worker")


def test_an_older_frame_never_replaces_a_newer_one(app):
    engine = viewer_engine(app)
    with engine.begin() as conn:
        index_queries.save_frame(conn, "pl_versions", 5, b"version 5")
        index_queries.save_frame(conn, "pl_versions", 4, b"version 4, built late")
    assert _saved(engine, "pl_versions") == (5, b"version 5")
    with engine.begin() as conn:
        index_queries.save_frame(conn, "pl_versions", 6, b"version 6")
    assert _saved(engine, "pl_versions") == (6, b"version 6")
