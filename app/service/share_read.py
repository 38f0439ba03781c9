"""Reading through a share link: what it exposes, and the results of one pipeline.

No API key is needed (an ``x-api-key`` that is sent is ignored): the link id is the
credential. Unknown, archived, expired, uncovered, or in an archived workspace: the same
404, byte for byte. A pipeline or prediction whose data retention deleted is still
listed, as its stub record (``data_deleted_at`` set, ``input`` null, see
``app.jobs.retention``): the link is valid and its visitors are told what was deleted; the
results of such a pipeline are an empty page (the run exists, its results do not).
Email-mode links also need ``Authorization: Bearer <JWT>`` signed by the viewer (401
with ``WWW-Authenticate: Bearer`` when missing or invalid) for an address on the link's
list (403 otherwise; compared case-insensitively).

The read answers exactly the SDK's ``ShareLinkReadResponse``: the link's ``id``,
``created_at``, ``expires_at``, ``workspace_id``, and the full records of its pipelines
and predictions in the order they were registered, each the same record its own
retrieve answers (``app.service.run_models``). Result records follow the page shape of
the pipeline's type (``result_records``); optional fields are omitted when a result has
no value, never null.
"""

from __future__ import annotations

from typing import Annotated, Union

from flask import request
from pydantic import BaseModel, Field, field_validator
from pydantic_core import PydanticCustomError

from app.domain import MAX_ID_LENGTH
from app.platform import share_tokens
from app.platform.db import get_conn
from app.service.api import ApiBlueprint
from app.service.errors import PRIVATE_HEADERS, ApiError, forbidden, not_found
from app.service.pagination import Page, ResultsPageQuery
from app.service.result_records import PAGE_MODELS, RESULT_PAGES, pipeline_results
from app.service.run_models import PIPELINE_MODELS, PREDICTION_MODELS, presigned_by_role
from app.service.wire import Serialised, Timestamp
from app.store import results as results_store
from app.store import share_links as links_store

bp = ApiBlueprint("share_read", __name__)

MAX_IDS_FILTER = 200


def live_link_for_reader(link_id: str) -> links_store.ShareLink:
    """Return the live link this request may read, or raise the 404 / 401 / 403."""
    link = links_store.get_live(get_conn(), link_id)
    # Retention keeps stubs covered; a link covering nothing (rows deleted before stubs
    # existed) is a gone link.
    if link is None or not (link.pipeline_ids or link.prediction_ids):
        raise not_found()
    if link.access_mode == "email":
        email = _bearer_email(link.id)
        allowed = {address.lower() for address in link.allowed_emails}
        if email.lower() not in allowed:
            raise forbidden("This share link is not shared with the signed-in address")
    return link


def _bearer_email(link_id: str) -> str:
    """Return the address proven by the request's bearer JWT for ``link_id``."""
    challenge = {"WWW-Authenticate": 'Bearer realm="share-link"'}
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "This share link needs a signed-in address (Bearer token)",
                       challenge)
    try:
        return share_tokens.verify(token.strip(), link_id)
    except share_tokens.InvalidShareToken:
        raise ApiError(401, "The bearer token is invalid or has expired",
                       {"WWW-Authenticate": 'Bearer realm="share-link", error="invalid_token"'}
                       ) from None


# The union members are distinct classes: each record, built by its type's builder, passes
# the union as the instance it is and is serialised by its own model.
RunRecord = Annotated[
    Union[tuple(models.full for models in PIPELINE_MODELS.values())],  # noqa: UP007
    Field(description="A pipeline's full run record, as its retrieve answers it."),
]
PredictionRecord = Annotated[
    Union[tuple(models.full for models in PREDICTION_MODELS.values())],  # noqa: UP007
    Field(description="A prediction's full record, as its retrieve answers it."),
]


class ShareReadOut(BaseModel):
    """What a live link exposes (the SDK's ShareLinkReadResponse), in registration order."""

    id: str
    created_at: Timestamp
    expires_at: Timestamp
    workspace_id: str
    pipelines: list[RunRecord]
    predictions: list[PredictionRecord]


@bp.operation(
    "GET", "/share/<link_id>",
    summary="Read what a share link exposes", tag="Share links", auth="share",
    response=ShareReadOut, headers=PRIVATE_HEADERS, description=__doc__.split("\n\n", 1)[1],
    extra_statuses=(401, 403, 404),
)
def read_share_link(link_id: str) -> ShareReadOut:
    """Return the link's pipelines and predictions (no API key; bearer JWT for email mode).

    Three queries after the link's, whatever it covers: pipelines with their latest
    result ids, predictions, their files.
    """
    link = live_link_for_reader(link_id)
    conn = get_conn()
    pipelines = results_store.pipelines_in_order(conn, link.workspace_id, link.pipeline_ids)
    predictions = results_store.predictions_in_order(conn, link.workspace_id,
                                                     link.prediction_ids)
    # Only structure-and-binding outputs name files; ADME predictions need no query.
    with_files = [p.id for p in predictions
                  if PREDICTION_MODELS[p.application].files_in_output]
    urls = presigned_by_role(with_files)
    return ShareReadOut(
        id=link.id, created_at=link.created_at, expires_at=link.expires_at,
        workspace_id=link.workspace_id,
        pipelines=[PIPELINE_MODELS[p.kind].record(p, full=True, latest_result_id=latest)
                   for p, latest in pipelines],
        predictions=[PREDICTION_MODELS[p.application].record(p, full=True,
                                                             urls=urls.get(p.id, {}))
                     for p in predictions],
    )


class ShareResultsQuery(ResultsPageQuery):
    """Paging of a link's pipeline results, plus the ``ids`` filter."""

    ids: str | None = Field(
        default=None, max_length=MAX_IDS_FILTER * (MAX_ID_LENGTH + 1),
        description=f"Comma-separated result ids (1 to {MAX_IDS_FILTER}); only those are "
        "returned, missing ids are skipped. Applied before pagination. Each id is "
        f"1-{MAX_ID_LENGTH} ASCII letters, digits, '_' or '-'; anything else (or an empty "
        "entry) is a 400.",
    )

    @field_validator("ids")
    @classmethod
    def _check_ids(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = [part.strip() for part in value.split(",")]
        if not parts or any(not part for part in parts):
            raise PydanticCustomError("ids", "must be comma-separated ids without empty entries")
        if len(parts) > MAX_IDS_FILTER:
            raise PydanticCustomError("ids", "at most {limit} ids (got {count})",
                                      {"limit": MAX_IDS_FILTER, "count": len(parts)})
        for part in parts:
            if len(part) > MAX_ID_LENGTH \
                    or not part.replace("_", "").replace("-", "").isalnum() \
                    or not part.isascii():
                raise PydanticCustomError("ids", "{part} is not a result id",
                                          {"part": part[:MAX_ID_LENGTH]})
        return ",".join(parts)

    def id_list(self) -> list[str] | None:
        """Return the filter as a deduplicated list, or None when there is no filter."""
        return list(dict.fromkeys(self.ids.split(","))) if self.ids is not None else None


@bp.operation(
    "GET", "/share/<link_id>/pipelines/<pipeline_id>/results",
    summary="List results of a pipeline exposed by a share link", tag="Share links",
    auth="share", query=ShareResultsQuery, response=RESULT_PAGES, headers=PRIVATE_HEADERS,
    description="Ordered by id. `ids` filters before pagination; `after_id` and `before_id` "
    "together are a 400; `limit` 1-1000 (default 100). The page shape follows the "
    "pipeline's type (its `pipeline`, version, `input` and `progress` in GET "
    "/share/{id}). " + __doc__.split("\n\n", 1)[1],
    extra_statuses=(400, 401, 403, 404),
)
def list_share_results(link_id: str, pipeline_id: str,
                       query: ShareResultsQuery) -> Page | Serialised:
    """Return one page of a covered pipeline's results, shaped by the pipeline's kind."""
    link = live_link_for_reader(link_id)
    if pipeline_id not in link.pipeline_ids:
        raise not_found()
    conn = get_conn()
    pipeline = results_store.get_pipeline(conn, link.workspace_id, pipeline_id)
    if pipeline is None:
        raise not_found()
    if pipeline.data_deleted_at is not None:  # a stub: its results were deleted
        return PAGE_MODELS[pipeline.kind].of([], False)
    return pipeline_results(pipeline.kind, pipeline.id, query)
