"""Short names for results that a person can say and tell apart: rank in the run, id tail.

Ids such as ``res_01M7SKQ2…`` share their first characters (they start with the time), so
a cut id names nothing. A result's label is ``#<rank> <tail>``:

- ``rank``: its place in the run by the kind's primary metric (``Kind.primary_metric``,
  best first by the metric's direction; results without it after the others, ties by id).
  It is what a scientist calls a design ("our #3") and it is the same on every page,
  whatever the view's own order. It can move while a run is still adding results.
- ``tail``: the shortest end of its id, at least ``MIN_TAIL`` characters, that no other
  result of the run shares. It never changes, so ``#3 Q7XZ`` stays findable.

Ranks come from the pipeline's exploration index. Without a ready index (not built yet)
the label is the tail alone. The same labels appear on the table, the result and 3D pages,
the plots and every export: ``run_labels`` is the one place that makes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from app import domain
from app.platform.timeutil import utcnow
from app.viewer.explore import answers
from app.viewer.explore.index import frame
from app.viewer.explore.query import ExploreQuery
from app.viewer.runtime.cache import BoundedCache
from app.viewer.store.result_index import IndexState

MIN_TAIL = 4
_CACHE_SIZE = 8


@dataclass(frozen=True)
class RunLabels:
    """The labels of one run's results (an index version), looked up by result id."""

    sorted_ids: np.ndarray  # the run's ids (bytes), sorted
    ranks: np.ndarray  # 1-based rank by the primary metric of sorted_ids[i]
    tail_length: int = MIN_TAIL
    metric: str | None = None  # the metric ranked by (None: no index, tails only)

    def rank(self, result_id: str) -> int | None:
        """Return the result's rank in the run by the primary metric, None if unknown."""
        if not len(self.sorted_ids):
            return None
        key = result_id.encode()
        if len(key) > self.sorted_ids.dtype.itemsize:
            # Not among them, and searching would cast the whole array to a wider dtype
            # (a copy per call: far slower than a search with a key that fits).
            return None
        at = int(np.searchsorted(self.sorted_ids, key))
        if at < len(self.sorted_ids) and self.sorted_ids[at] == key:
            return int(self.ranks[at])
        return None

    def tail(self, result_id: str) -> str:
        """Return the distinguishing end of the id."""
        return result_id[-self.tail_length:]

    def label(self, result_id: str) -> str:
        """Return ``#<rank> <tail>``, or the tail alone when the rank is unknown."""
        rank = self.rank(result_id)
        return f"#{rank} {self.tail(result_id)}" if rank else self.tail(result_id)

    def label_list(self, ids: np.ndarray) -> list[str]:
        """Return the label of each of ``ids`` (bytes, an index's): one search for all."""
        tails = [i[-self.tail_length:].decode() for i in ids.tolist()]
        if not len(self.sorted_ids) or not len(ids):
            return tails
        at = np.minimum(np.searchsorted(self.sorted_ids, ids), len(self.sorted_ids) - 1)
        ranks = np.where(self.sorted_ids[at] == ids, self.ranks[at], 0).tolist()
        return [f"#{rank} {tail}" if rank else tail
                for rank, tail in zip(ranks, tails, strict=True)]

    @cached_property
    def _reversed_ids(self) -> np.ndarray:
        """The run's ids written backwards, sorted: ids ending alike sit together.
        Made the first time a tail is looked up (``ending_with``), once per index version."""
        return np.sort(np.array([i[::-1] for i in self.sorted_ids.tolist()],
                                dtype=self.sorted_ids.dtype))

    def ending_with(self, tail: str, most: int = 2) -> list[str]:
        """Return up to ``most`` ids of the run that end with ``tail`` (two searches)."""
        if not len(self.sorted_ids) or not tail:
            return []
        key = tail[::-1].encode()
        if len(key) > self.sorted_ids.dtype.itemsize:
            return []
        ordered = self._reversed_ids
        start = int(np.searchsorted(ordered, key))
        found = []
        for item in ordered[start:start + most].tolist():
            if not item.startswith(key):
                break
            found.append(item[::-1].decode())
        return found

    def count_ending_with(self, tail: str) -> int:
        """Return how many ids of the run end with ``tail``."""
        key = tail[::-1].encode()
        if not len(self.sorted_ids) or not key or len(key) > self.sorted_ids.dtype.itemsize:
            return 0
        ordered = self._reversed_ids
        start = int(np.searchsorted(ordered, key))
        # Bytes after the key's last one sort after every id beginning with the key.
        end = int(np.searchsorted(ordered, key + b"\xff" * (ordered.dtype.itemsize - len(key))
                                  if len(key) < ordered.dtype.itemsize else key, side="right"))
        return end - start

    def labels(self, result_ids: list[str]) -> dict[str, str]:
        """Return the label of each id."""
        return {result_id: self.label(result_id) for result_id in result_ids}


NO_INDEX = RunLabels(np.array([], dtype="S1"), np.array([], dtype=np.int64))
_cache: BoundedCache[RunLabels] = BoundedCache(_CACHE_SIZE)


def primary_sort(kind: domain.Kind) -> tuple[tuple[str, bool], ...]:
    """Return the kind's default order: its primary metric, best first (``query.sort``)."""
    key = kind.primary_metric
    return ((key, domain.metric(key).direction != "lower"),)


def _tail_length(ids: list[bytes]) -> int:
    """Return the shortest tail (at least ``MIN_TAIL``) that tells every id apart."""
    longest = max((len(i) for i in ids), default=MIN_TAIL)
    length = MIN_TAIL
    while length < longest and len({i[-length:] for i in ids}) < len(ids):
        length += 1
    return length


def _build(state: IndexState, kind: domain.Kind) -> RunLabels:
    data = answers.current_frame(state)
    everything = np.ones(data.size, dtype=bool)
    ordered = frame.order(data, ExploreQuery(sort=primary_sort(kind)), everything)
    ranks = np.empty(data.size, dtype=np.int64)
    ranks[ordered] = np.arange(1, data.size + 1)
    by_id = np.argsort(data.ids, kind="stable")
    return RunLabels(data.ids[by_id], ranks[by_id], _tail_length(list(data.ids)),
                     kind.primary_metric)


def run_labels(state: IndexState | None, kind: domain.Kind) -> RunLabels:
    """Return the labels of the run whose index is ``state`` (tails only until it is ready).

    Computed once per index version and kept for the last few runs (a sort of 1,000,000
    numbers and a set of their ids' tails: well under a second, then lookups).
    """
    if state is None or not state.ready:
        return NO_INDEX
    # As ``answers.current_frame``: while a refresh appends pages, the last whole version.
    version = (f"refresh to {state.target_count}" if state.building(utcnow())
               else state.version)
    return _cache.get_or_compute((state.pipeline_id, version, kind.key),
                                 lambda: _build(state, kind))
