"""The results page, rendered in one place for both of its sources.

A plain view (no sort, filter or search) is a page of the API in the API's order, with
keyset cursors (``api_page``); anything else is a page of the whole set from the index
(``index_page``). Both hand ``render`` the records and the links to the pages beside,
and the table the metrics beyond the kind's that the records carry (``Panel.extras``).
"""

from __future__ import annotations

from flask import render_template

from app import domain
from app.viewer.core import paging
from app.viewer.core.api_client import api
from app.viewer.core.loaders import bearer
from app.viewer.results import answers, fields, table
from app.viewer.results.panel import Panel, panel
from app.viewer.results.query import ExploreQuery, check_kind


def render(link_id: str, pipeline: dict, kind: domain.Kind, view: Panel,
           page_request: paging.PageRequest, records: list[dict], links: paging.PageLinks,
           *, from_index: bool, columns: list[table.Column]) -> str:
    """Render ``share/results/page.html`` with the records of one page of the view."""
    query = view.query
    return render_template(
        "share/results/page.html", link_id=link_id, pipeline=pipeline, kind=kind,
        page_request=page_request, columns=columns,
        rows=table.rows_for(records, columns, link_id, query.smarts),
        links=links, page_sizes=paging.PAGE_SIZES, explore=view, query=query,
        from_index=from_index, sort_key=view.sort_key,
        descending_first=fields.descending_first,
    )


def api_page(link_id: str, pipeline: dict, kind: domain.Kind, query: ExploreQuery,
             page_request: paging.PageRequest) -> str:
    """Render a plain view: a page of the API (keyset cursors, ``ids=``), in its order."""
    page = api().results(
        link_id, pipeline["id"], bearer(link_id), limit=page_request.limit,
        after_id=page_request.after_id, before_id=page_request.before_id,
        ids=list(page_request.ids),
    )
    records = page.get("data") or []
    # The metrics beyond the kind's: the index's once it is ready (what sorts, filters and
    # plots answer from), else this page's own.
    view = panel(link_id, pipeline, kind, query)
    if not view.ready:
        view = view.with_records(records)
    # A generic-only page gets the generic metrics' columns (``table.columns_for``).
    return render(link_id, pipeline, kind, view, page_request, records,
                  paging.links(page, page_request), from_index=False,
                  columns=table.columns_for(kind, records, view.extras))


def index_page(link_id: str, pipeline: dict, kind: domain.Kind, query: ExploreQuery) -> str:
    """Render a sorted, filtered or searched view of the whole set from the index."""
    check_kind(query, kind)
    view = panel(link_id, pipeline, kind, query)
    records = answers.table_page(view.state, query) if view.ready else []
    links = _links(query, view.summary.matched) if view.summary else \
        paging.PageLinks(None, None)
    return render(link_id, pipeline, kind, view,
                  paging.PageRequest(limit=query.limit, ids=query.ids), records, links,
                  from_index=True,
                  columns=table.columns_for(kind, records or None, view.extras))


def _links(query: ExploreQuery, matched: int) -> paging.PageLinks:
    prev = query.args(page=query.page - 1) if query.page > 1 else None
    more = query.page * query.limit < matched
    return paging.PageLinks(prev, query.args(page=query.page + 1) if more else None)
