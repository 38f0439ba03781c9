"""The viewer's one in-memory cache: a thread-safe LRU map bounded by count and by weight.

A worker keeps what it computed (drawings, parsed molecules, frames, answers, labels,
rendered rows and pages) in ``BoundedCache`` objects: at most ``maxsize`` entries and,
with ``maxweight``, at most that total ``weight`` of values (``len`` unless told), the
least recently used dropped first. Every method holds the cache's lock only to read or
change the map, so gunicorn's threads and the index build thread can share a cache.

Keys are whatever the caller gives (a digest, a tuple of an index version and a view),
not the arguments of a function as ``functools.lru_cache`` has them, and the bound is
visible and testable.

Two ways to use one:

- ``get_or_compute(key, compute)``: the value of ``key``, ``compute()`` on a miss. The
  computation runs outside the lock: a slow one never holds up other keys' readers, and two
  threads missing the same key at once may both compute it (the later one's value is kept).
  A computed None is kept like any value.
- ``get(key)`` and ``put(key, value)``: for callers that compute many missing values in one
  batch (a child process's call for a list of SMILES). ``get`` answers None on a miss, so
  such callers store a sentinel rather than None.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

V = TypeVar("V")

_MISSING = object()


class BoundedCache(Generic[V]):
    """At most ``maxsize`` entries and, with ``maxweight``, at most that total weight of
    values (``weight(value)``, ``len`` by default); the least recently used go first.

    An entry heavier than ``maxweight`` alone is kept (it is the newest) and everything
    else goes: the cache never refuses the value it was just given.
    """

    def __init__(self, maxsize: int, maxweight: int | None = None,
                 weight: Callable[[V], int] = len):  # type: ignore[assignment]
        self.maxsize = maxsize
        self.maxweight = maxweight
        self._weigh = weight
        self._weight = 0
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def _weight_of(self, value: V) -> int:
        return self._weigh(value) if self.maxweight is not None else 0

    def get(self, key: Hashable) -> V | None:
        """Return the value of ``key`` (now the most recent), or None on a miss."""
        with self._lock:
            value = self._entries.get(key, _MISSING)
            if value is _MISSING:
                return None
            self._entries.move_to_end(key)
            return value  # type: ignore[return-value]

    def put(self, key: Hashable, value: V) -> None:
        """Keep ``value`` under ``key`` as the most recent entry, dropping the least
        recently used ones beyond the bounds."""
        weight = self._weight_of(value)
        with self._lock:
            previous = self._entries.pop(key, _MISSING)
            if previous is not _MISSING:
                self._weight -= self._weight_of(previous)  # type: ignore[arg-type]
            self._entries[key] = value
            self._weight += weight
            while len(self._entries) > self.maxsize or (
                    self.maxweight is not None and self._weight > self.maxweight
                    and len(self._entries) > 1):
                _key, dropped = self._entries.popitem(last=False)
                self._weight -= self._weight_of(dropped)

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        """Return the value of ``key``, else ``compute()`` kept under it (computed outside
        the lock: concurrent misses of one key may each compute it)."""
        with self._lock:
            value = self._entries.get(key, _MISSING)
            if value is not _MISSING:
                self._entries.move_to_end(key)
                return value  # type: ignore[return-value]
        value = compute()
        self.put(key, value)
        return value

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def weight(self) -> int:
        """The total weight of the kept values (0 without ``maxweight``)."""
        return self._weight

    def clear(self) -> None:
        """Drop every entry (tests and benchmarks measure the computation this way)."""
        with self._lock:
            self._entries.clear()
            self._weight = 0


def approximate_bytes(value: object, depth: int = 4) -> int:
    """Roughly the bytes ``value`` holds, as a ``weight`` for caches of mixed answers:
    a buffer (a NumPy array, bytes, a memoryview) by its ``nbytes`` or length; a tuple,
    list, set, mapping or dataclass by its members (``depth`` levels down, then by
    ``sys.getsizeof``); anything else by ``sys.getsizeof``."""
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes
    if isinstance(value, bytes | bytearray | str):
        return sys.getsizeof(value)
    if depth <= 0:
        return sys.getsizeof(value)
    if isinstance(value, Mapping):
        return sys.getsizeof(value) + sum(
            approximate_bytes(k, depth - 1) + approximate_bytes(v, depth - 1)
            for k, v in value.items())
    if isinstance(value, tuple | list | set | frozenset):
        return sys.getsizeof(value) + sum(approximate_bytes(v, depth - 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sys.getsizeof(value) + sum(
            approximate_bytes(getattr(value, f.name), depth - 1)
            for f in dataclasses.fields(value))
    return sys.getsizeof(value)
