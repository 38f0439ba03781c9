"""SDF and ZIP exports fetch files several at a time (issue 21 item 4): in the records'
order, never more than the window at once, an error raised where its record is written."""

from __future__ import annotations

import random
import threading
import time

import pytest

from app.viewer.exports import fetch_ahead


def test_outcomes_come_in_order_with_a_bounded_window():
    running, most, lock = [0], [0], threading.Lock()

    def fetch(n: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(random.Random(n).uniform(0, 0.01))  # finish out of order
        with lock:
            running[0] -= 1
        if n == 7:
            raise LookupError("file 7 is gone")
        return n * n

    seen = []
    for n, outcome in fetch_ahead.in_order(range(20), fetch, width=4):
        if n == 7:
            with pytest.raises(LookupError):
                outcome.get()
            seen.append(None)
        else:
            seen.append(outcome.get())
    assert seen == [n * n if n != 7 else None for n in range(20)]
    assert 1 < most[0] <= 4
