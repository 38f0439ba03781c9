"""The rendered rows of recent index pages, kept per worker: a page of an index version
is built once, then served from memory.

A results page from the index is a pure function of the index version and the view: its
stored records (what the index read from the API), the columns they get and each row's
cells (``table.rows_for``: formatted, escaped). Rendering those cells from the records
is most of a page's cost after the API's access check, and the same page (a pipeline's
first page, ranked) is what every visitor of a link opens. So the cells of the last
``SIZE`` pages are kept, keyed by everything they depend on: the link (its id signs the
depiction URLs), the pipeline, the index's version *and* how far it was read (an index
that was deleted and rebuilt numbers its versions again from the start), the kind, the
order, the page, its size, ``ids=`` and the extra metrics shown.

Only views without a selection are kept (no filter, search, substructure, similarity,
epitope or diverse picks: those depend on more than the version), and not small-molecule
kinds, whose rows carry alert badges from a check with a time budget. The access check
is not cached: every request reads the link through the API before it gets here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app import domain
from app.viewer.explore.query import ExploreQuery
from app.viewer.runtime.cache import BoundedCache
from app.viewer.store.result_index import IndexState

SIZE = 64  # pages of ~100 rows, ~200 KB of markup each: ~13 MB at most per worker
_items: BoundedCache = BoundedCache(SIZE)


def cacheable(kind: domain.Kind, query: ExploreQuery) -> bool:
    """Whether a page of this view may be kept (module docstring)."""
    return kind.family != "small_molecule" and replace(query, sort=()).is_plain


def key(link_id: str, state: IndexState, kind: domain.Kind, query: ExploreQuery,
        extras: tuple[str, ...]) -> tuple:
    """Return what a kept page of this view depends on (module docstring)."""
    return (link_id, state.pipeline_id, state.generation, state.version, state.indexed,
            state.last_id,
            kind.key, query.sort_text(), query.page, query.limit, query.ids, extras)


def get(page_key: tuple, build: Callable[[], object]):
    """Return the kept value of ``page_key``, building and keeping it on a miss."""
    return _items.get_or_compute(page_key, build)


def clear() -> None:
    """Forget every kept page (tests, benchmarks)."""
    _items.clear()
