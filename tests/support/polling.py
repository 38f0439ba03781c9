"""Waiting for a condition that another process makes true (test helper)."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], timeout: float, interval: float = 0.1) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass; return whether it held."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()
