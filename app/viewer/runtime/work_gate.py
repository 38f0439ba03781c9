"""Expensive work is capped per client and in all: "busy, retry" instead of queued threads.

A gunicorn worker has a few threads. Expensive requests (an export of a whole pipeline, a
new substructure query over every molecule, a PAE matrix of thousands of tokens, the 3D
page of a structure file not read yet) hold a thread for seconds to minutes; a client that
sends a dozen at once would hold every thread, and an ordinary page would wait behind
them. Large downloads count too (``app.viewer.pages.downloads``: over 1 MiB): a download
holds its thread for as long as its visitor takes to read it (a visitor who stops reading
is dropped: ``app.viewer.web.stalls``). So each process admits at most
``EXPENSIVE_WORK_SLOTS`` expensive requests at once (default 2: with 4 threads, half of
them stay free for pages), and at most ``EXPENSIVE_WORK_PER_CLIENT`` of them from one
client address. One more is not queued: it gets a 503 page (or ``{"error": ...}`` for the
JSON the browser reads) with ``Retry-After``, and ``share_viewer_busy_total`` counts it.

The counts are per process, so a server admits workers x slots in all; that is the point:
every worker keeps threads for pages whatever its neighbours do.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from flask import Flask, current_app, request

from app.platform.metrics.registry import BUSY
from app.platform.settings import setting
from app.viewer.core.errors import Retryable

# Seconds to wait before trying again: expensive work takes seconds; a retry storm helps no one.
RETRY_AFTER_SECONDS = 5


BUSY_MESSAGE = ("This viewer is busy with other heavy requests (exports, downloads, "
                "substructure searches, reading structure files). Try again in a few "
                "seconds.")


class Busy(Retryable):
    """Too much expensive work at once (in all, or from this client): answer 503, retry."""

    def __init__(self, work: str):
        super().__init__(BUSY_MESSAGE, retry_after=RETRY_AFTER_SECONDS, reason="busy")
        self.work = work


class WorkGate:
    """Counts of expensive requests running in this process, in all and per client."""

    def __init__(self, slots: int, per_client: int):
        self.slots = max(1, slots)
        self.per_client = max(1, per_client)
        self._lock = threading.Lock()
        self._running = 0
        self._by_client: dict[str, int] = {}

    def try_enter(self, client: str) -> bool:
        """Admit one request of ``client`` if both caps allow it; never waits."""
        with self._lock:
            mine = self._by_client.get(client, 0)
            if self._running >= self.slots or mine >= self.per_client:
                return False
            self._running += 1
            self._by_client[client] = mine + 1
            return True

    def leave(self, client: str) -> None:
        """Release what ``try_enter`` admitted."""
        with self._lock:
            self._running -= 1
            left = self._by_client.get(client, 1) - 1
            if left > 0:
                self._by_client[client] = left
            else:
                self._by_client.pop(client, None)

    @property
    def running(self) -> int:
        """How many expensive requests run now (for tests and curiosity)."""
        return self._running


def enter(work: str) -> Callable[[], None]:
    """Admit the current request's expensive ``work`` or raise ``Busy``; return the release.

    The caller calls the release exactly once: when the work is done, or, for a streamed
    answer, when the response is closed (``response.call_on_close``).
    """
    gate: WorkGate = current_app.extensions["work_gate"]
    client = request.remote_addr or "-"
    if not gate.try_enter(client):
        BUSY.labels(work).inc()
        raise Busy(work)
    released = threading.Event()

    def release() -> None:
        if not released.is_set():  # a response may be closed twice; count it once
            released.set()
            gate.leave(client)
    return release


def init_app(app: Flask) -> None:
    """Give ``app`` its gate, sized by ``EXPENSIVE_WORK_SLOTS`` and ``..._PER_CLIENT``."""
    app.extensions["work_gate"] = WorkGate(
        setting(app, "EXPENSIVE_WORK_SLOTS"), setting(app, "EXPENSIVE_WORK_PER_CLIENT"))
