"""Whole-set answers for the results page: a sorted page, facets, histograms, plot points.

A worker answers from a ``Frame`` of the pipeline's index (``frame``: its columns in
NumPy), loaded from the store once per index version, and keeps the answers of recent
views (the matching rows in their order, the panel's counts) in small LRU caches keyed by
that version, so paging through a sorted view sorts once. An append bumps the version, so
nothing cached outlives the data it came from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from app import domain
from app.platform.timeutil import utcnow
from app.viewer.explore import extra_metrics, fields, substructure_counting
from app.viewer.explore.explore_answer import Facets, Histogram, Points
from app.viewer.explore.index import chem_index, frame, frame_files
from app.viewer.explore.index.frame import Frame
from app.viewer.explore.query import ExploreQuery
from app.viewer.explore.query import check_keys as check_query_keys
from app.viewer.explore.selections import REGISTRY, ViewContext
from app.viewer.runtime.cache import BoundedCache, approximate_bytes
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries
from app.viewer.store.result_index import IndexState

HISTOGRAM_BINS = 20
POINTS_LIMIT = 5000
_frames: BoundedCache[Frame] = BoundedCache(4)  # ~25 MB each for 100,000 results
# Recent views' answers of this worker: a view's rows in order are 8 bytes a result, so the
# bound is in bytes too (256 views of a million results would otherwise hold 2 GB).
ANSWER_BYTES = 64 * 1024 * 1024
_answers: BoundedCache = BoundedCache(256, maxweight=ANSWER_BYTES, weight=approximate_bytes)


def clear_caches() -> None:
    """Forget every frame and answer of this worker."""
    _frames.clear()
    _answers.clear()
    substructure_counting.clear()


def load_frame(pipeline_id: str, version: int, *, generation: int,
               older_ok: bool = False) -> tuple[int, Frame]:
    """Return (version, frame) of the index: the saved frame, else one built and saved.

    ``older_ok`` takes a saved frame of an earlier version as it is: while a refresh
    appends page after page, answers come from the last complete version instead of a
    new frame per page.

    The frame comes mapped from this machine's frame files when they hold it
    (``frame_files``: one copy shared by every worker), else from the store, written to
    the files for the next worker.
    """
    root = frame_files.root()
    with get_engine().connect() as conn:
        key = queries.saved_frame_key(conn, pipeline_id)
    if key is not None and (key[0] == version or older_ok):
        mapped = frame_files.load(root, pipeline_id, *key, generation)
        if mapped is not None:
            return key[0], mapped
        with get_engine().connect() as conn:
            saved = queries.saved_frame(conn, pipeline_id)
        if saved is not None and (saved[0] == version or older_ok):
            loaded = frame.from_bytes(saved[1])
            return saved[0], frame_files.save(root, pipeline_id, saved[0], len(saved[1]),
                                              generation, loaded) or loaded
    with get_engine().connect() as conn:
        built = frame.build(queries.column_chunks(conn, pipeline_id))
    data = frame.to_bytes(built)
    with get_engine().begin() as conn:
        queries.save_frame(conn, pipeline_id, version, data)
    return version, frame_files.save(root, pipeline_id, version, len(data), generation,
                                     built) or built


def current_frame(state: IndexState) -> Frame:
    """Return the frame of the index's current version (see ``load_frame``)."""
    refreshing = state.building(utcnow())
    key = (state.pipeline_id, state.generation,
           f"refresh to {state.target_count}" if refreshing else state.version)

    def load() -> Frame:
        data = load_frame(state.pipeline_id, state.version, generation=state.generation,
                          older_ok=refreshing)[1]
        chem_index.remember(data)  # the build's alerts: badges ask the child nothing
        return data

    return _frames.get_or_compute(key, load)


def view_frame(state: IndexState, query: ExploreQuery) -> Frame:
    """Return the frame the query reads: the index's, with the columns its selections add
    (``Selection.extend``, such as ``similarity``)."""
    data = current_frame(state)
    for selection in query.in_force():
        if selection.extend is not None:
            data = selection.extend(state, data, query)
    return data


def _keep(state: IndexState, query: ExploreQuery) -> np.ndarray:
    check_keys(state, query)  # every whole-set answer starts here or in ordered_rows
    return _answers.get_or_compute(_key(state, query, "keep"), lambda: selected(state, query))


def selected(state: IndexState, query: ExploreQuery) -> np.ndarray:
    """Return which rows the query keeps: its filters and ids (``frame.mask``), then each
    selection in force (``Selection.keep``), in registry order."""
    data = view_frame(state, query)
    keep = frame.mask(data, query)
    view = ViewContext(state, data)
    for selection in query.in_force():
        if selection.keep is not None and keep.any():
            keep &= selection.keep(view, query)
    return keep


def ordered_rows(state: IndexState, query: ExploreQuery) -> np.ndarray:
    """Return the frame rows that match the query, in the view's order."""
    check_keys(state, query)
    return _answers.get_or_compute(
        _key(state, query, f"order:{query.sort_text()}"),
        lambda: frame.order(view_frame(state, query), query, _keep(state, query)))


@dataclass(frozen=True)
class Summary:
    """What the page and explore.json say about the matching set."""

    matched: int
    facets: Facets
    histograms: list[Histogram]


def remember(key: tuple, compute: Callable[[], object]):
    """Return the answer cached under ``key`` (computed once per process while kept):
    what a selection computes apart from any one view, such as a substructure's rows."""
    return _answers.get_or_compute(key, compute)


def cached(state: IndexState, query: ExploreQuery, what: str, compute: Callable[[], object]):
    """Return ``compute()`` cached for the view (its selection, index version and the
    scopes of its selections) and ``what`` (e.g. ``"diverse:<sort>"``)."""
    return _answers.get_or_compute(_key(state, query, what), compute)


def _key(state: IndexState, query: ExploreQuery, what: str) -> tuple:
    # What besides the query decides a selection's answer (the epitope scan's progress).
    scopes = tuple(s.scope(state) for s in query.in_force() if s.scope is not None)
    return (state.pipeline_id, state.generation, state.version, query.selection_key(),
            scopes, what)


def extra_keys(state: IndexState, kind: domain.Kind) -> tuple[str, ...]:
    """Return the metrics beyond ``kind``'s that the indexed records carry, in table order:
    the vocabulary's that some result has (``ipsae_min``), then the unknown ones."""
    def compute() -> tuple[str, ...]:
        data = current_frame(state)
        known = [key for key in domain.METRICS
                 if key not in kind.metrics and data.has_values(key)]
        return extra_metrics.ordered(kind, known, data.extras)

    return _answers.get_or_compute((state.pipeline_id, state.generation, state.version,
                                    "extras", kind.key), compute)


def check_keys(state: IndexState, query: ExploreQuery) -> None:
    """Refuse a query naming a metric the indexed results lack (``query.check_keys``)."""
    numbers = current_frame(state).numbers
    added = {column for selection in query.in_force() for column in selection.columns}
    check_query_keys(query, {*numbers, *added} if added else numbers)


def _histograms(data: Frame, keep: np.ndarray, kind: domain.Kind,
                extras: tuple[str, ...]) -> list[Histogram]:
    total = int(np.count_nonzero(keep))
    out = []
    for key in fields.plot_keys(kind, extras):
        found = frame.value_range(data, keep, key)
        if found is None:
            continue  # no matching result has this value (e.g. ADME on none of them)
        # Confidences span their whole scale, comparable across sets; others their values.
        field = fields.field(key)
        low, high = (field.scale if field else None) or found
        counts = frame.histogram(data, keep, key, low, high, HISTOGRAM_BINS)
        width = (high - low) / HISTOGRAM_BINS if high > low else 1.0 / HISTOGRAM_BINS
        out.append(Histogram(
            key=key, label=fields.label(key), unit=fields.unit(key),
            bins=[{"x0": low + i * width, "x1": low + (i + 1) * width, "count": n}
                  for i, n in enumerate(counts)],
            missing=total - sum(counts),
        ))
    return out


def summary(state: IndexState, query: ExploreQuery, kind: domain.Kind) -> Summary:
    """Return the match count, facet counts and per-metric histograms of the selection."""
    def compute() -> Summary:
        data, keep = current_frame(state), _keep(state, query)
        counts = frame.facets(data, keep)
        for selection in REGISTRY:
            if selection.facets is not None:
                counts |= selection.facets(data, keep)
        return Summary(int(np.count_nonzero(keep)), Facets.model_validate(counts),
                       _histograms(data, keep, kind, extra_keys(state, kind)))

    return _answers.get_or_compute(_key(state, query, f"summary:{kind.key}"), compute)


def points(state: IndexState, query: ExploreQuery, x: str, y: str,
           label_all: Callable[[np.ndarray], list[str]] | None = None) -> Points:
    """Return the scatter's points: every matching result with both values, in the
    view's order, or past ``POINTS_LIMIT`` an even sample of them along that order.

    A browser draws a few thousand points well, not a million: past the limit the plot
    gets the first row, then every k-th of the view's order (k = count / limit), so it
    shows the shape of the whole set rather than its top rows; ``truncated`` says so.
    ``label_all`` names the points from their ids (``labels.RunLabels.label_list``: what
    the table's rows say; one search for all of them, not one per point); without it a
    point is named by its id.
    """
    data = current_frame(state)
    rows = ordered_rows(state, query)
    xs, ys = data.numbers[x][rows], data.numbers[y][rows]
    chosen = np.flatnonzero(~(np.isnan(xs) | np.isnan(ys)))
    truncated = len(chosen) > POINTS_LIMIT
    if truncated:  # distinct positions: the step is above 1
        chosen = chosen[np.linspace(0, len(chosen) - 1, POINTS_LIMIT).astype(np.int64)]
    shown = rows[chosen]
    ids = data.id_list(shown)
    names = label_all(data.ids[shown]) if label_all else ids
    return Points(
        x=x, y=y, x_label=fields.label(x), y_label=fields.label(y),
        data=[{"id": i, "label": name, "x": float(vx), "y": float(vy)}
              for i, name, vx, vy in zip(ids, names, xs[chosen], ys[chosen], strict=True)],
        truncated=truncated, limit=POINTS_LIMIT,
    )


def view_rows(state: IndexState, query: ExploreQuery) -> np.ndarray:
    """Return the frame rows of the view's results in its order (what a table and an
    export hold): the ordered rows, then each selection's ``pick`` (one row per scaffold,
    one per family)."""
    rows = ordered_rows(state, query)
    picking = [s for s in query.in_force() if s.pick is not None]
    if picking:
        view = ViewContext(state, current_frame(state))
        for selection in picking:
            rows = selection.pick(view, query, rows)
    return rows


def ordered_ids(state: IndexState, query: ExploreQuery, chunk: int = 200
                ) -> Iterator[list[str]]:
    """Yield the matching ids in the view's order, ``chunk`` at a time (for exports)."""
    data, rows = current_frame(state), view_rows(state, query)
    for start in range(0, len(rows), chunk):
        yield data.id_list(rows[start:start + chunk])
