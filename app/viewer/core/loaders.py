"""What every viewer route loads first: the visitor's token, the link, a pipeline of it.

Pages, downloads and exports all start here, so a link is checked the same way whatever
is asked of it: ids that cannot exist are the shared 404 without a call, and the API
decides everything else (gone, sign-in needed, not for this address).
"""

from __future__ import annotations

from flask import g

from app import domain
from app.viewer.access import identity
from app.viewer.core import paging, run_kinds
from app.viewer.core.api_client import api
from app.viewer.core.errors import LinkNotFound, RunDataDeleted


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
    version the viewer does not know is a ``run_kinds.UnknownKind``. A run whose data
    retention deleted (``data_deleted_at``) raises ``RunDataDeleted``: every page, export
    and download below it answers the page that says so.
    """
    check_ids(link_id, pipeline_id)
    share = load_share(link_id)
    pipeline = find(share.get("pipelines"), pipeline_id)
    if pipeline.get("data_deleted_at"):
        raise RunDataDeleted(link_id, pipeline, "pipeline")
    return share, pipeline, run_kinds.pipeline_kind(pipeline)


def load_prediction(link_id: str, prediction_id: str) -> dict:
    """Return the prediction ``prediction_id`` of the link (``RunDataDeleted`` if its
    data was deleted under retention)."""
    check_ids(link_id, prediction_id)
    item = find(load_share(link_id).get("predictions"), prediction_id)
    if item.get("data_deleted_at"):
        raise RunDataDeleted(link_id, item, "prediction")
    return item
