"""The viewer store's sign-in guarantees when two servers race: one consumer, no attempt
beyond the cap."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.viewer.store import get_engine, signin_requests

# Single use and the attempt cap: conditional UPDATEs from two connections (row locks).
pytestmark = pytest.mark.dialect


def _pending(conn, request_id: str = "req-1"):
    return signin_requests.create_request(
        conn, request_id=request_id, share_link_hash="l" * 64, email="ada@example.org",
        token_hash="t" * 64, code_hash="c" * 64, browser_hash="b" * 64, next_path="",
        ttl=timedelta(minutes=10))


def test_two_connections_that_both_saw_it_unused_consume_it_once(app):
    engine = get_engine(app)
    with engine.begin() as conn:
        _pending(conn)
    with engine.connect() as first, engine.connect() as second:
        assert signin_requests.get_request(first, "req-1").used_at is None
        assert signin_requests.get_request(second, "req-1").used_at is None
        assert signin_requests.consume(first, "req-1") is True
        first.commit()
        assert signin_requests.consume(second, "req-1") is False
        second.commit()


def test_attempts_never_pass_the_cap_from_any_connection(app):
    engine = get_engine(app)
    with engine.begin() as conn:
        _pending(conn)
    with engine.connect() as first, engine.connect() as second:
        for _ in range(4):
            assert signin_requests.count_attempt(first, "req-1", 5) is True
        first.commit()
        assert signin_requests.count_attempt(first, "req-1", 5) is True
        first.commit()
        assert signin_requests.count_attempt(second, "req-1", 5) is False
        second.commit()
    with engine.connect() as conn:
        assert signin_requests.get_request(conn, "req-1").attempts == 5
        # A used or expired request takes no attempt at all.
        assert signin_requests.count_attempt(conn, "missing", 5) is False
