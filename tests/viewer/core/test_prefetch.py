"""The download relay's read-ahead: order kept, bounded, errors raised, readers stopped."""

from __future__ import annotations

import threading
import time

import pytest

from app.viewer.core.prefetch import prefetched


def test_chunks_come_in_order_and_the_reader_stays_at_most_depth_ahead():
    produced: list[int] = []

    def source():
        for n in range(50):
            produced.append(n)
            yield bytes([n])

    relay = prefetched(source(), depth=3)
    assert next(relay) == b"\x00"
    time.sleep(0.2)
    assert len(produced) <= 1 + 3 + 1  # the one taken, the queue, the one waiting to go in
    assert b"".join(relay) == bytes(range(1, 50))


def test_an_upstream_error_is_raised_after_the_chunks_before_it():
    def source():
        yield b"a"
        raise OSError("connection reset")

    relay = prefetched(source())
    assert next(relay) == b"a"
    with pytest.raises(OSError, match="connection reset"):
        next(relay)


def test_a_visitor_who_hangs_up_stops_the_reader():
    def source():
        while True:
            yield b"x" * 1024

    before = threading.active_count()
    relay = prefetched(source(), depth=2)
    next(relay)
    relay.close()
    deadline = time.monotonic() + 3
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() == before
