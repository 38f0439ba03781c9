"""A small thread-safe LRU map with a fixed bound: drawings, parsed molecules, kept pages.

``functools.lru_cache`` keys on the arguments themselves; this one keys on whatever the
caller gives (the depiction cache uses a SHA-256 of SMILES, highlight and size, so a
2,000-character SMILES costs 32 bytes of key), and its bound is visible and testable.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")


class BoundedCache(Generic[V]):
    """Keep at most ``maxsize`` entries, dropping the least recently used first.

    With ``maxbytes``, also at most that many bytes of values as ``len`` counts them
    (the drawings: a count alone would let a link of large molecules hold hundreds of MB).
    """

    def __init__(self, maxsize: int, maxbytes: int | None = None):
        self.maxsize = maxsize
        self.maxbytes = maxbytes
        self._bytes = 0
        self._entries: OrderedDict[object, V] = OrderedDict()
        self._lock = threading.Lock()  # gunicorn threads share a worker's caches

    def _weight(self, value: V) -> int:
        return len(value) if self.maxbytes is not None else 0  # type: ignore[arg-type]

    def get(self, key: object) -> V | None:
        """Return the entry of ``key`` (now the most recent), or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: object, value: V) -> None:
        """Store ``value`` under ``key``, dropping the oldest entry beyond the bound."""
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self._bytes -= self._weight(previous)
            self._entries[key] = value
            self._bytes += self._weight(value)
            while len(self._entries) > self.maxsize or (
                    self.maxbytes is not None and self._bytes > self.maxbytes
                    and len(self._entries) > 1):
                _key, dropped = self._entries.popitem(last=False)
                self._bytes -= self._weight(dropped)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every entry (tests)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0
