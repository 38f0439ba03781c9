"""Where an export's records come from: the view's order (``ranking``), read from the API.

``record_pages(link_id, pipeline, kind, args)`` returns the view's records in its order,
one list per page, each with its ``rank`` and ``label`` (``ranking.ranked``), at most
``limit`` of them, and reads the first page before returning, so a bad query or an API
already down is an ordinary error page and not a broken download.

- A view without a sort is in the kind's default order (``labels.primary_sort``), as the
  results page opens; a pasted list (``ids=``) without a sort, in the order of the list
  (a shortlist's: the order picked, ``index.frame.order``). A pasted list names results
  by id or label (``explore.pasted``, read against the run's index when one is ready,
  else ids only); what names no result is left out, as on the page, and an entry that
  is neither an id nor a label is a 400 naming it (a file has no field to say it beside).
- A view in the run's order (``sort=id`` or ``sort=created_at``, no filter or search;
  ``ids=`` is fine) walks the API's own pages with ``after_id``: no index needed,
  whatever the pipeline's size.
- Any other view takes its order from the exploration index and its records from the
  API, 200 ids a call: every batch is read through the link with a fresh token, so the
  index decides only the order, the API what the visitor gets (and every artifact URL is
  fresh). A view whose index is still being built answers ``IndexNotReady`` (the route
  says so, with Retry-After) instead of a partial file or one in another order.
- A writer that needs no artifact URL (CSV, JSON, FASTA, the ZIP's manifest) reads any
  view from the index itself when the index is **current** (``explore.index.freshness``: the
  link was read through the API in this request, and the index holds exactly what that
  read's run record says the API has): ``index_source``, the stored records kept beside
  the index's frame, at the pace of reading a file instead of the API's. The SDF's ligand
  files and the ZIP's structure files need the API's fresh URLs, so their records come
  from the API as above.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import replace

from app import domain
from app.viewer.access import identity
from app.viewer.core import api_client, paging
from app.viewer.core.api_client import api
from app.viewer.core.errors import BadRequest, Retryable
from app.viewer.explore import answers, labels, selections
from app.viewer.explore.fields import of_group
from app.viewer.explore.index import freshness, indexer
from app.viewer.explore.pasted import UNREADABLE, resolve
from app.viewer.explore.query import ExploreQuery, check_kind, parse
from app.viewer.exports import index_source
from app.viewer.exports.ranking import export_limit, ranked
from app.viewer.store.result_index import IndexState

# Results asked of the API per page (its maximum), for every export format; tests
# lower it to walk several pages.
EXPORT_PAGE_SIZE = 1000
# Ids per API call for an indexed view (the API's limit for ``ids``).
IDS_PER_CALL = 200
# Sorts that are the API's own order (ids are time-ordered: id order is creation order).
_API_ORDERS = ((("id", False),), (("created_at", False),))
# The computed columns an export shows, read from a current index (``index_source``).
COMPUTED_KEYS = (*(f.key for group in ("chemistry", "protein") for f in of_group(group)
                    if f.column), "liability_oxidation")  # the CSV's provisional marker


# Seconds before a visitor tries an export again while its index is being built.
INDEX_RETRY_AFTER = 10


class IndexNotReady(Retryable):
    """The view needs the exploration index, which is still being built: a 503, retry."""

    def __init__(self, indexed: int, total: int):
        super().__init__(f"Sorting every result first: {indexed:,} of {total:,} are "
                         "indexed. Try again in a moment.", retry_after=INDEX_RETRY_AFTER)
        self.indexed, self.total = indexed, total


def _api_walk(link_id: str, pipeline_id: str, ids: list[str]) -> Iterator[list[dict]]:
    client, size = api(), EXPORT_PAGE_SIZE
    # A token of its own, not the request's cached one: a second walk (the ZIP's files)
    # starts long after the request did.
    first = client.results(link_id, pipeline_id, identity.bearer_for(link_id), limit=size,
                           ids=ids)

    def walk() -> Iterator[list[dict]]:
        page = first
        while True:
            yield page.get("data") or []
            if not page.get("has_more") or not page.get("last_id"):
                return
            api_client.restart_deadline()
            page = client.results(link_id, pipeline_id, identity.bearer_for(link_id),
                                  limit=size, after_id=page["last_id"], ids=ids)

    return walk()


def _limited(batches: Iterator[list[str]], limit: int | None) -> Iterator[list[str]]:
    """Yield the id batches up to ``limit`` ids (none asked of the API beyond it)."""
    left = limit
    for ids in batches:
        if left is not None:
            ids = ids[:left]
            left -= len(ids)
        if ids:
            yield ids
        if left is not None and left <= 0:
            return


def _indexed_walk(link_id: str, pipeline: dict, query: ExploreQuery, state: IndexState,
                  limit: int | None) -> Iterator[list[dict]]:
    client, pipeline_id = api(), pipeline["id"]
    batches = _limited(answers.ordered_ids(state, query, IDS_PER_CALL), limit)

    def fetch(ids: list[str], token: str | None) -> list[dict]:
        page = client.results(link_id, pipeline_id, token, limit=len(ids), ids=ids)
        found = {record.get("id"): record for record in page.get("data") or []}
        # The view's own numbers beside the record (CSV columns, JSON keys): similarity, ...
        for column, values in selections.export_values(state, query, ids).items():
            found = {i: {**r, column: values.get(i)} for i, r in found.items()}
        return [found[i] for i in ids if i in found]  # the view's order, not the API's

    first_ids = next(batches, [])
    first = fetch(first_ids, identity.bearer_for(link_id)) if first_ids else []

    def walk() -> Iterator[list[dict]]:
        yield first
        for ids in batches:
            api_client.restart_deadline()
            yield fetch(ids, identity.bearer_for(link_id))

    return walk()


def record_pages(link_id: str, pipeline: dict, kind: domain.Kind,
                 args: Mapping[str, str], *, urls: bool = True) -> Iterator[list[dict]]:
    """Return the view's records in order, one list per page (module docstring).

    ``urls=False``: the writer needs no artifact URL (CSV, JSON, FASTA), so a current
    index gives the records itself (``index_source``). Raises ``BadRequest`` for a query
    that cannot be read, ``IndexNotReady`` while a sorted view's index is being built,
    and the API client's errors.
    """
    query = parse(args)
    check_kind(query, kind)  # every source yields whole records otherwise
    limit = export_limit(args)
    if not query.sort and not query.ids:
        query = replace(query, sort=labels.primary_sort(kind))
    in_api_order = query.sort in _API_ORDERS and replace(query, sort=()).is_plain
    # The API's order needs no index: one that is current already serves, none is built.
    state = indexer.current(pipeline["id"]) if in_api_order \
        else indexer.ensure(link_id, pipeline)
    run_labels = labels.run_labels(state, kind)
    # A pasted list's labels read as the ids they name (as on the page: ``pasted``).
    pasted = resolve(query.ids, run_labels)
    if pasted.unreadable:  # a file has no field to say it beside: refused, named
        raise BadRequest(f"'{pasted.unreadable[0]}' {UNREADABLE}.")
    query = replace(query, ids=pasted.query_ids)
    if not urls and freshness.is_current(state, pipeline):
        return FromIndex(index_source.pages(state, query, run_labels, limit, COMPUTED_KEYS))
    if in_api_order:
        ids = paging.id_shaped(pasted.ids)
        pages = _api_walk(link_id, pipeline["id"], ids) if ids or not query.ids \
            else iter(([],))  # a list that names nothing: no record, not the whole run
    else:
        if not state.ready:
            raise IndexNotReady(state.indexed, state.target_count)
        pages = _indexed_walk(link_id, pipeline, query, state, limit)
    return ranked(pages, run_labels, limit)


class FromIndex:
    """The pages of a view read from a current index, the first one already read (so an
    error there is an ordinary page, before the response starts)."""

    def __init__(self, pages: Iterator[list[dict]]):
        first = next(pages, None)
        self._pages = iter(()) if first is None else itertools.chain((first,), pages)

    def __iter__(self) -> Iterator[list[dict]]:
        return self._pages


def is_selection(args: Mapping[str, str]) -> bool:
    """Whether the view narrows the results (the file name then says ``-selection``)."""
    try:
        return parse(args).has_selection
    except BadRequest:
        return False
