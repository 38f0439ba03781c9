"""The whole-pipeline CSV download: ``/share/<id>/pipelines/<pipeline_id>/export.csv``.

The view checks the link, the pipeline and the first API page before answering, so an
unknown link is the shared 404, an email-mode link without a verified address goes to
sign-in, and an API already down is a 502 page. Only then does the CSV stream
(``csv_export.stream_rows``), one API page at a time. A fresh bearer token is minted for
every page, so an export that outlives a token's few minutes keeps reading.
"""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, Response, request, stream_with_context

from app import domain
from app.viewer import api_client, csv_export, identity, paging
from app.viewer.api_client import api
from app.viewer.downloads import safe_filename
from app.viewer.error_pages import html_error_page
from app.viewer.loaders import bearer, load_pipeline

bp = Blueprint("exports", __name__)


def export_filename(pipeline: dict, kind: domain.Kind, filtered: bool,
                    today: datetime | None = None) -> str:
    """Return ``<pipeline name or kind>[-selection]-<YYYY-MM-DD>.csv``; never an id."""
    # "/" would make safe_filename keep only the last path part of the name.
    stem = safe_filename((pipeline.get("name") or "").replace("/", "-"), kind.key)
    day = (today or datetime.now(UTC)).strftime("%Y-%m-%d")
    return f"{stem}{'-selection' if filtered else ''}-{day}.csv"


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/export.csv")
def export_csv(link_id: str, pipeline_id: str):
    """Stream every result of a pipeline (or only the pasted ``ids``) as CSV."""
    try:
        ids = list(paging.parse_ids(request.args.get("ids", "")))
    except paging.InvalidQuery as error:
        return html_error_page(400, str(error))
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    client, size = api(), csv_export.EXPORT_PAGE_SIZE
    first = client.results(link_id, pipeline_id, bearer(link_id), limit=size, ids=ids)

    def fetch_after(last_id: str) -> dict:
        # The body has started: each further page has a whole deadline of its own.
        api_client.restart_deadline()
        return client.results(link_id, pipeline_id, identity.bearer_for(link_id),
                              limit=size, after_id=last_id, ids=ids)

    # stream_with_context: minting a token per page reads the visitor's session.
    body = stream_with_context(csv_export.stream_rows(kind, first, fetch_after))
    name = export_filename(pipeline, kind, filtered=bool(ids))
    return Response(body, content_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
