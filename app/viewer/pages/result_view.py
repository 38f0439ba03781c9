"""Where a result page sits: the results view it was opened from, and its neighbours there.

A results table links each row with its view's query args (sort, filters, ``q``,
``smarts``, ``warnings``, ``ids``...; never ``page``, ``limit``, ``x``, ``y``: the contract
between the table and this page). The result page and its 3D page read them back with the
table's own parser (``explore.query.parse``; a bad one is the same 400 as on the table)
and walk that view: Previous/Next (``rel=prev/next``) are its neighbours in the view's
order, from the pipeline's exploration index (``explore.answers.ordered_rows``), and the
breadcrumb and "All results" lead back to it, on the table page that holds the result.

Choices where a view leaves the neighbours open:
- A view without ``sort`` is in the kind's default order (``labels.primary_sort``), as the
  table shows it. No view args at all: the run walked in that default order when the
  index is ready, else the API's id order (the index is not built for this page alone).
- With view args the index is brought up to date as the table does (``indexer.ensure``);
  while it is still building, neighbours are the API's and the links keep the view.
- A result the view does not hold (a filter excludes it, or the link was edited): the
  API's id neighbours, linked without the view, while the trail still leads back to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
from werkzeug.datastructures import MultiDict

from app import domain
from app.viewer.core import paging
from app.viewer.core.api_client import api
from app.viewer.core.loaders import bearer, check_ids, load_pipeline
from app.viewer.explore import answers, fields
from app.viewer.explore.index import indexer
from app.viewer.explore.labels import NO_INDEX, RunLabels, primary_sort, run_labels
from app.viewer.explore.query import ExploreQuery, check_kind, parse

# Table args a result URL does not carry: where the table was, not what it shows.
NOT_VIEW_ARGS = ("page", "limit", "x", "y", "after_id", "before_id")


@dataclass(frozen=True)
class ResultView:
    """A result's place in the view it was opened from (see the module docstring)."""

    args: dict  # the view's query args: links that stay in the view carry them
    prev_id: str | None = None
    next_id: str | None = None
    walk_args: dict = field(default_factory=dict)  # args of the Previous/Next links
    position: int | None = None  # 1-based place in the view (None: not walked in it)
    matched: int | None = None  # how many results the view holds
    order: str = ""  # the view's order, as people read it ("" unknown: the API's)
    labels: RunLabels = NO_INDEX

    def label(self, result_id: str) -> str:
        """Return the name a person reads for ``result_id`` (``labels.run_labels``)."""
        return self.labels.label(result_id)

    @property
    def back_args(self) -> dict:
        """Return the table args that lead back to the view, on the page holding the result."""
        if not self.position or self.position <= paging.DEFAULT_PAGE_SIZE:
            return self.args
        return {**self.args, "page": (self.position - 1) // paging.DEFAULT_PAGE_SIZE + 1}


class FoundResult(NamedTuple):
    """A result of a link's pipeline, read, with its place in the visitor's view."""

    pipeline: dict
    kind: domain.Kind
    record: dict
    view: ResultView


def view_query(args: MultiDict) -> ExploreQuery:
    """Parse the view args of a result URL (``explore.query.parse``; a 400 names a bad one)."""
    kept = MultiDict([(k, v) for k, v in args.items(multi=True) if k not in NOT_VIEW_ARGS])
    return parse(kept)


def order_text(sort: tuple[tuple[str, bool], ...]) -> str:
    """Return the view's order as people read it: "ipTM, highest first"."""
    key, descending = sort[0]
    if key == "created_at":
        return "as run, newest first" if descending else "as run"
    if key == "id" or not fields.is_numeric(key):
        return f"by {fields.label(key).lower()}, {'Z to A' if descending else 'A to Z'}"
    return f"{fields.label(key)}, {'highest' if descending else 'lowest'} first"


def load(link_id: str, pipeline_id: str, result_id: str, args: MultiDict) -> FoundResult:
    """Return the result ``result_id`` with its neighbours in the view ``args`` describe.

    The view args are checked first (a 400 before anything is read), then the link and
    the result through the API (the shared 404 for what it does not show).
    """
    query = view_query(args)
    check_ids(result_id)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    check_kind(query, kind)
    view_args = query.args(page=1)
    state = (indexer.ensure(link_id, pipeline) if view_args
             else indexer.current(pipeline_id))
    labels = run_labels(state, kind)
    if state is not None and state.ready:
        answers.check_keys(state, query)  # a metric this run lacks: the table's 400
        ordered = replace(query, sort=query.sort or primary_sort(kind))
        data = answers.current_frame(state)
        rows = answers.ordered_rows(state, ordered)
        at = _place(data.ids, rows, result_id)
        if at is not None:
            record = api().result(link_id, pipeline_id, result_id, bearer(link_id))
            before = data.id_list(rows[at - 1:at]) if at > 0 else []
            after = data.id_list(rows[at + 1:at + 2])
            view = ResultView(view_args, before[0] if before else None,
                              after[0] if after else None, view_args, at + 1, len(rows),
                              order_text(ordered.sort), labels)
            return FoundResult(pipeline, kind, record, view)
        in_view = False
    else:
        in_view = True  # not known yet: the next page may walk the view
    record, prev_id, next_id = api().result_in_order(link_id, pipeline_id, result_id,
                                                     bearer(link_id))
    view = ResultView(view_args, prev_id, next_id, view_args if in_view else {},
                      labels=labels)
    return FoundResult(pipeline, kind, record, view)


def _place(ids: np.ndarray, rows: np.ndarray, result_id: str) -> int | None:
    """Return the index in ``rows`` of the result ``result_id`` (None if not there)."""
    found = np.flatnonzero(ids == result_id.encode())
    if not len(found):
        return None
    at = np.flatnonzero(rows == found[0])
    return int(at[0]) if len(at) else None
