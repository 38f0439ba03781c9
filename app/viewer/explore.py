"""Whole-set answers for the results page: a sorted page, facets, histograms, plot points.

Asks the index store (``app.viewer.store.index_queries``) and keeps the answers that cost a
scan of the set (the match count, facets, histograms) in a small per-process cache keyed
by the index's version and the query's selection, so paging through a sorted view or
re-plotting other axes does not count the set again. A new append bumps the version, so a
cached answer never outlives the data it was computed from.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from app import domain
from app.viewer.explore_query import ExploreQuery
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries
from app.viewer.store.result_index import IndexState

_CACHE_SIZE = 256
_cache: OrderedDict = OrderedDict()
_lock = threading.Lock()


def _cached(key: tuple, compute: Callable[[], object]):
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    value = compute()
    with _lock:
        _cache[key] = value
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return value


def plot_keys(kind: domain.Kind) -> tuple[str, ...]:
    """Return the numeric keys a kind's results are plotted by, in table order."""
    extra = ("lipophilicity", "permeability") if kind.family == "small_molecule" \
        else ("length",)
    return (*kind.metrics, *extra)


def key_label(key: str) -> str:
    """Return a key's label (the metric's, the ADME field's, or a plain one)."""
    if key in domain.METRICS:
        return domain.METRICS[key].label
    if key in domain.ADME_FIELDS:
        return domain.ADME_FIELDS[key].label
    return {"length": "Length (aa)", "id": "Result id", "created_at": "Created",
            "external_id": "External ID", "variant": "Variant"}.get(
        key, key.replace("_", " ").capitalize())


def key_unit(key: str) -> str:
    """Return what to print beside a key's values (unit or range)."""
    if key in domain.METRICS:
        return domain.METRICS[key].scale
    if key in domain.ADME_FIELDS:
        return domain.ADME_FIELDS[key].unit
    return "aa" if key == "length" else ""


def default_axes(kind: domain.Kind) -> tuple[str, str]:
    """Return the scatter's default (x, y): the kind's second and first metrics."""
    keys = plot_keys(kind)
    return (keys[1] if len(keys) > 1 else keys[0]), keys[0]


@dataclass(frozen=True)
class Summary:
    """What the page and explore.json say about the matching set."""

    matched: int
    facets: dict
    histograms: list[dict]


def _key(state: IndexState, query: ExploreQuery, what: str) -> tuple:
    return (state.pipeline_id, state.version, query.selection_key(), what)


def matched(state: IndexState, query: ExploreQuery) -> int:
    """Return how many results match the query's selection."""
    def compute() -> int:
        with get_engine().connect() as conn:
            return queries.count(conn, state.pipeline_id, query)

    return _cached(_key(state, query, "count"), compute)


def table_page(state: IndexState, query: ExploreQuery) -> list[dict]:
    """Return the records of the query's page, in the view's order."""
    with get_engine().connect() as conn:
        return queries.page(conn, state.pipeline_id, query, (query.page - 1) * query.limit,
                            query.limit)


def _histograms(conn, state: IndexState, query: ExploreQuery, kind: domain.Kind) -> list:
    keys = list(plot_keys(kind))
    ranges = queries.value_ranges(conn, state.pipeline_id, query, keys)
    out = []
    for key in keys:
        low, high = ranges[key]
        if low is None:
            continue  # no result has this value (e.g. ADME on none of them)
        if key in domain.METRICS and domain.METRICS[key].range == domain.UNIT_RANGE:
            low, high = 0.0, 1.0  # confidences: the whole scale, comparable across sets
        counts = queries.histogram(conn, state.pipeline_id, query, key, float(low),
                                   float(high))
        width = (high - low) / queries.HISTOGRAM_BINS if high > low else 1.0
        out.append({
            "key": key, "label": key_label(key), "unit": key_unit(key),
            "bins": [{"x0": low + i * width, "x1": low + (i + 1) * width, "count": n}
                     for i, n in enumerate(counts)],
            "missing": 0,
        })
    return out


def summary(state: IndexState, query: ExploreQuery, kind: domain.Kind) -> Summary:
    """Return the match count, facet counts and per-metric histograms of the selection."""
    def compute() -> Summary:
        with get_engine().connect() as conn:
            total = matched(state, query)
            facets = queries.facets(conn, state.pipeline_id, query, state.warning_codes)
            histograms = _histograms(conn, state, query, kind)
        for histogram in histograms:
            histogram["missing"] = total - sum(b["count"] for b in histogram["bins"])
        return Summary(total, facets, histograms)

    return _cached(_key(state, query, f"summary:{kind.key}"), compute)


def points(state: IndexState, query: ExploreQuery, x: str, y: str) -> dict:
    """Return the scatter's points (the first ``POINTS_LIMIT`` in the view's order)."""
    with get_engine().connect() as conn:
        found = queries.points(conn, state.pipeline_id, query, x, y)
    return {
        "x": x, "y": y, "x_label": key_label(x), "y_label": key_label(y),
        "data": [{"id": rid, "x": vx, "y": vy} for rid, vx, vy in found],
        "truncated": len(found) >= queries.POINTS_LIMIT, "limit": queries.POINTS_LIMIT,
    }


def ordered_ids(state: IndexState, query: ExploreQuery, chunk: int = 200):
    """Yield the matching ids in the view's order, ``chunk`` at a time (for exports)."""
    with get_engine().connect() as conn:
        yield from queries.ordered_ids(conn, state.pipeline_id, query, chunk)
