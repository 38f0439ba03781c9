"""The results page, rendered in one place for both of its sources.

The page opens ranked: a view without ``sort`` is ordered by the kind's primary metric,
best first (``labels.primary_sort``), answered from the exploration index, with a Rank
column (the position in the view, across pages). ``sort=created_at`` is the run's own
order ("as run"). Which source answers (``results_page``):

- the index (``index_page``): every view once the index is ready, and always a view that
  sorts by anything else, filters or searches (it waits for the index, with its progress);
- the API (``api_page``), a page in the API's order (creation order, keyset cursors,
  ``ids=``): a view in the default or the as-run order while the index is not ready yet
  (so a recipient of a big run sees results at once, with a notice that ranking starts
  when the index is ready), and the pages its ``after_id``/``before_id`` cursors lead to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
from flask import Response, g, render_template, request

from app import domain
from app.viewer.access import identity
from app.viewer.chem import substructure
from app.viewer.core import paging
from app.viewer.core.api_client import api
from app.viewer.core.loaders import bearer
from app.viewer.core.records import UNREADABLE_RECORDS
from app.viewer.epitope import view as epitope_view
from app.viewer.explore import fields, substructure_first
from app.viewer.explore.labels import run_labels
from app.viewer.explore.panel import AS_RUN, Panel, panel
from app.viewer.explore.query import ExploreQuery, check_kind
from app.viewer.explore.selections import diverse
from app.viewer.results import chem_view, page_cache, row_cache, table, table_source
from app.viewer.web import compression
from app.viewer.web.security import is_embed

# View args a row's link to its result page does not carry (how the view is paged, plotted).
_NOT_IN_ROW_LINKS = ("page", "limit", "x", "y")


def render(link_id: str, pipeline: dict, kind: domain.Kind, view: Panel,
           page_request: paging.PageRequest, records: list[dict], links: paging.PageLinks,
           *, from_index: bool, columns: list[table.Column], shown: ExploreQuery,
           first_rank: int | None, pending_rank: bool = False,
           chem: chem_view.ChemView | None = None, picks=None,
           rows: list[table.Row] | None = None, at_least: int | None = None,
           skipped: int = 0) -> str:
    """Render ``share/results/page.html`` with the records of one page of the view.

    ``shown`` is the view's query (from the index: with its order made explicit);
    ``first_rank`` the view position of the first row, None for the API's pages (in the
    run's order; their position in the whole set is unknown). ``picks`` are those of
    ``diverse=N`` (``diverse_answers.Picks``: each shown row's family size). ``rows``:
    the records' rows already built (``row_cache``). ``at_least``: while the view's
    substructure query is counted, how many of its results are known to match (``_first``).
    ``skipped``: the API page's records that could not be read (``core.records``); from
    the index, the results read but not indexed, known when nothing is selected.
    """
    columns, key_count = table.page_columns(kind, columns)
    as_run = first_rank is None or shown.sort == AS_RUN
    # Row links carry the view, in the order shown (contract with the result page).
    row_args = {k: v for k, v in shown.args(page=1, sort="created_at" if as_run else None)
                .items() if k not in _NOT_IN_ROW_LINKS}
    return render_template(
        "share/results/page.html", link_id=link_id, pipeline=pipeline, kind=kind,
        page_request=page_request, columns=columns, key_count=key_count,
        rows=rows if rows is not None else table.rows_for(records, columns, link_id,
                                                          shown.smarts),
        labels=run_labels(view.state, kind), first_rank=first_rank, row_args=row_args,
        links=links, page_sizes=paging.PAGE_SIZES, explore=view, query=shown,
        from_index=from_index, sort_key=view.sort_key, pending_rank=pending_rank,
        descending_first=fields.descending_first, as_run=as_run,
        ranked_by_default=shown.sort == view.default_sort, chem_facts=chem,
        picks=picks, at_least=at_least, skipped=skipped,
        family_sizes={k.decode(): v for k, v in picks.sizes.items()} if picks else {},
        epitope=epitope_view.of(link_id, pipeline, kind, view.state, shown)
        if view.ready else None,
    )


def results_page(link_id: str, pipeline: dict, kind: domain.Kind, query: ExploreQuery,
                 page_request: paging.PageRequest) -> str | Response:
    """Render the view ``query`` asks for from the source that can answer it now."""
    unselected = replace(query, sort=()).is_plain  # no filter or search, any sort
    if unselected and query.sort in ((), AS_RUN):
        if page_request.after_id or page_request.before_id:
            return api_page(link_id, pipeline, kind, query, page_request)
        view = panel(link_id, pipeline, kind, query)
        if not view.ready:
            return api_page(link_id, pipeline, kind, query, page_request, view)
        return index_page(link_id, pipeline, kind, query, view)  # the panel asked once
    return index_page(link_id, pipeline, kind, query)


def api_page(link_id: str, pipeline: dict, kind: domain.Kind, query: ExploreQuery,
             page_request: paging.PageRequest, view: Panel | None = None) -> str:
    """Render a page of the API (keyset cursors, ``ids=``) in its order: the run's.

    A pasted list is asked as the ids it names (``Panel.pasted``); one that names none
    shows no row (the API would read no ``ids`` as all of them).
    """
    view = view or panel(link_id, pipeline, kind, query)
    ids = paging.id_shaped(view.pasted.ids)
    page = api().results(
        link_id, pipeline["id"], bearer(link_id), limit=page_request.limit,
        after_id=page_request.after_id, before_id=page_request.before_id, ids=ids,
    ) if ids or not page_request.ids else {"data": []}
    records = page.get("data") or []
    if page_request.ids and not (page_request.after_id or page_request.before_id
                                 or page.get("has_more")):  # the whole list answered
        view = replace(view, pasted=view.pasted.missing({r.get("id") for r in records}))
    # The metrics beyond the kind's: the index's once it is ready (what sorts, filters and
    # plots answer from), else this page's own.
    if not view.ready:
        view = view.with_records(records)
    links = paging.links(page, page_request)
    links = paging.PageLinks(*({**link, "sort": "created_at"} if link is not None else None
                               for link in (links.prev, links.next)))
    # A generic-only page gets the generic metrics' columns (``table.columns_for``).
    return render(link_id, pipeline, kind, view, page_request, records, links,
                  from_index=False, columns=table.columns_for(kind, records, view.extras),
                  shown=query, first_rank=None, pending_rank=not view.ready and not query.sort,
                  skipped=page.get(UNREADABLE_RECORDS, 0))


def index_page(link_id: str, pipeline: dict, kind: domain.Kind, query: ExploreQuery,
               view: Panel | None = None) -> str | Response:
    """Render a view of the whole set from the index (ranked unless sorted otherwise).

    ``view``: the panel of ``query`` when the caller has it already (the index is then
    brought up to date once per request, not twice). A ready index's page is kept whole
    for anonymous visitors (``_kept``).
    """
    check_kind(query, kind)
    view = view or panel(link_id, pipeline, kind, query)
    if not view.ready:  # the build's progress
        return _index_markup(link_id, pipeline, kind, view)
    if row_cache.cacheable(kind, view.query):
        return _kept(link_id, pipeline, kind, view,
                     lambda: _plain_markup(link_id, pipeline, kind, view))
    return _kept(link_id, pipeline, kind, view,
                 lambda: _index_markup(link_id, pipeline, kind, view))


def _index_markup(link_id: str, pipeline: dict, kind: domain.Kind, view: Panel) -> str:
    """Render a view of the index (or its build's progress when it is not ready; while
    its substructure query is counted, the progress and the first rows: ``_first``)."""
    shown = view.query  # the default order made explicit
    if view.counting is not None:
        return _first(link_id, pipeline, kind, view)
    records = table_source.table_page(view.state, shown) if view.ready else []
    # Scaffolds and similarity of small molecules (grouped: one row per scaffold).
    chem = chem_view.of(link_id, view.state, shown) \
        if view.ready and kind.family == "small_molecule" else None
    # diverse=N: the picks, one row per family (diverse_answers), counted as the rows.
    picks = diverse.picks(view.state, shown) if view.ready and shown.diverse else None
    matched = len(picks.rows) if picks else chem.matched if chem else \
        view.summary.matched if view.summary else 0
    links = _links(shown, matched) if view.summary else paging.PageLinks(None, None)
    return render(link_id, pipeline, kind, view,
                  paging.PageRequest(limit=shown.limit, ids=shown.ids), records, links,
                  from_index=True,
                  columns=table.columns_for(kind, records or None, view.extras),
                  shown=shown, first_rank=(shown.page - 1) * shown.limit + 1, chem=chem,
                  picks=picks)


def _first(link_id: str, pipeline: dict, kind: domain.Kind, view: Panel) -> str:
    """Render the count's progress and the view's page as far as it is known: its rows
    confirmed in the view's order (``substructure_first``), at least that many matching.
    A view that needs the whole set first (one row per scaffold or family) shows the
    progress alone."""
    shown = view.query
    start = (shown.page - 1) * shown.limit
    first = None
    if not (shown.group or shown.diverse):
        try:  # one more row than the page: is there a next one
            first = substructure_first.view_rows(view.state, shown,
                                                 start + shown.limit + 1)
        except substructure.TooBroad:  # over its own budget: the progress alone
            first = None
    found = first.rows if first is not None else np.zeros(0, dtype=np.int64)
    records = table_source.rows_page(view.state, found[start:start + shown.limit]) \
        if len(found) > start else []
    links = paging.PageLinks(
        shown.args(page=shown.page - 1) if shown.page > 1 else None,
        shown.args(page=shown.page + 1) if len(found) > start + shown.limit else None)
    return render(link_id, pipeline, kind, view,
                  paging.PageRequest(limit=shown.limit, ids=shown.ids), records, links,
                  from_index=True,
                  columns=table.columns_for(kind, records or None, view.extras),
                  shown=shown, first_rank=start + 1, at_least=min(len(found), start +
                                                                   shown.limit))


def _plain_markup(link_id: str, pipeline: dict, kind: domain.Kind, view: Panel) -> str:
    """Render a page of a view without selection with its rows from ``row_cache``."""
    shown = view.query

    def build() -> tuple[list[table.Column], list[table.Row], int]:
        records = table_source.table_page(view.state, shown)
        columns = table.columns_for(kind, records or None, view.extras)
        shown_columns = table.page_columns(kind, columns)[0]
        return columns, table.rows_for(records, shown_columns, link_id), len(records)

    columns, rows, _count = row_cache.get(
        row_cache.key(link_id, view.state, kind, shown, view.extras), build)
    links = _links(shown, view.summary.matched) if view.summary \
        else paging.PageLinks(None, None)
    return render(link_id, pipeline, kind, view,
                  paging.PageRequest(limit=shown.limit, ids=shown.ids), [], links,
                  from_index=True, columns=columns, shown=shown,
                  first_rank=(shown.page - 1) * shown.limit + 1, rows=rows)


def _kept(link_id: str, pipeline: dict, kind: domain.Kind, view: Panel,
          markup: Callable[[], str]) -> str | Response:
    """Return the page ``markup`` renders, kept whole for anonymous visitors of a protein
    run (``page_cache``: once per index version, view and epitope scan progress).

    Not kept: a signed-in visitor's page (an account box and a CSRF token: their own), and
    small molecules' (alert badges from a check with a time budget: row_cache).
    """
    if kind.family == "small_molecule" or identity.verified_email() is not None:
        return markup()
    page_key = (request.url_root, request.query_string, is_embed(),
                bool(g.get("share_test_data")),
                page_cache.digest(pipeline),
                row_cache.key(link_id, view.state, kind, view.query, view.extras),
                page_cache.digest(view.query.args()),
                epitope_view.progress_key(link_id, pipeline, kind, view.state))
    kept = page_cache.get(page_key, markup)
    return compression.precompressed(kept.body, kept.gzipped)


def _links(query: ExploreQuery, matched: int) -> paging.PageLinks:
    prev = query.args(page=query.page - 1) if query.page > 1 else None
    more = query.page * query.limit < matched
    return paging.PageLinks(prev, query.args(page=query.page + 1) if more else None)
