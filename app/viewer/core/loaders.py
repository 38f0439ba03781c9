"""What every viewer route loads first: the visitor's token, the link, a pipeline of it.

Pages, downloads and exports all start here, so a link is checked the same way whatever
is asked of it: ids that cannot exist are the shared 404 without a call, and the API
decides everything else (gone, sign-in needed, not for this address).
"""

from __future__ import annotations

from typing import NamedTuple

from flask import g

from app import domain
from app.viewer.core import identity, paging, run_kinds
from app.viewer.core.api_client import api
from app.viewer.core.errors import LinkNotFound


def bearer(link_id: str) -> str | None:
    """Return the visitor's bearer token for ``link_id``, minted once per request."""
    cache = g.setdefault("viewer_bearers", {})
    if link_id not in cache:
        cache[link_id] = identity.bearer_for(link_id)
    return cache[link_id]


def check_ids(*values: str) -> None:
    """Answer the shared 404 for ids that cannot exist, without asking the API."""
    if not all(paging.ID.fullmatch(v or "") for v in values):
        raise LinkNotFound()


def load_share(link_id: str) -> dict:
    """Return what the link exposes, or raise the API client's typed errors.

    Also notes whether the link shows test-mode data (``g.share_test_data``): the base
    layout then tells the visitor, on whatever page this request renders, that the data
    is synthetic.
    """
    check_ids(link_id)
    share = api().share(link_id, bearer(link_id))
    g.share_test_data = is_test_data(share)
    return share


def is_test_data(share: dict) -> bool:
    """Tell whether a share read shows test-mode data: a record of it has ``livemode``
    false (the SDK's records each say; the share read itself has no such field)."""
    records = [*(share.get("pipelines") or []), *(share.get("predictions") or [])]
    # Only an explicit false: a record without livemode is taken as live.
    return any(isinstance(r, dict) and r.get("livemode") is False for r in records)


def find(items: list[dict] | None, item_id: str) -> dict:
    """Return the item with ``item_id`` among the link's pipelines or predictions."""
    for item in items or []:
        if item.get("id") == item_id:
            return item
    raise LinkNotFound()


def load_pipeline(link_id: str, pipeline_id: str) -> tuple[dict, dict, domain.Kind]:
    """Return the share, its pipeline ``pipeline_id`` and that pipeline's kind.

    The kind is recognised from the run record's SDK fields (``run_kinds``); a type or
    version the viewer does not know is a ``run_kinds.UnknownKind``.
    """
    check_ids(link_id, pipeline_id)
    share = load_share(link_id)
    pipeline = find(share.get("pipelines"), pipeline_id)
    return share, pipeline, run_kinds.pipeline_kind(pipeline)


class ResultInOrder(NamedTuple):
    """A result of a link's pipeline, with its neighbours' ids in the API's order."""

    pipeline: dict
    kind: domain.Kind
    record: dict
    prev_id: str | None
    next_id: str | None


def load_result(link_id: str, pipeline_id: str, result_id: str) -> ResultInOrder:
    """Return the result ``result_id`` of the link's pipeline and its neighbours' ids."""
    check_ids(result_id)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    record, prev_id, next_id = api().result_in_order(link_id, pipeline_id, result_id,
                                                     bearer(link_id))
    return ResultInOrder(pipeline, kind, record, prev_id, next_id)


def load_prediction(link_id: str, prediction_id: str) -> dict:
    """Return the prediction ``prediction_id`` of the link."""
    check_ids(link_id, prediction_id)
    return find(load_share(link_id).get("predictions"), prediction_id)
