"""When to purge expired rows of the viewer store: at most once a minute per process.

Sessions and rate-limit hits expire by the thousand on a busy link; deleting them on
every request would make every request contend for the same rows. Once a minute per
worker keeps the tables small at no visible cost.
"""

from __future__ import annotations

import time

from flask import current_app

PURGE_EVERY_SECONDS = 60.0


def due(name: str) -> bool:
    """Tell whether the purge ``name`` should run now, and note that it ran if so."""
    stamps: dict = current_app.extensions.setdefault("signin_purged_at", {})
    now = time.monotonic()
    if now - stamps.get(name, -PURGE_EVERY_SECONDS) < PURGE_EVERY_SECONDS:
        return False
    stamps[name] = now
    return True
