"""The streamed response of an export: checked first, then the file page by page.

Every format is checked the same way before answering: ``load_pipeline`` first (an
unknown link is the shared 404, an email-mode link without a verified address goes to
sign-in), then the format against the pipeline's family (a 400 page naming the formats
that fit), then ``sources.record_pages``, which reads the first page of records (the
API's order, or a sorted or filtered view's from the index), so a bad query or an API
already down is an ordinary error page. Only then does the body stream, one page of
records at a time; ``stream.guarded`` breaks it off honestly if anything fails later.
"""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Response, request, stream_with_context

from app import domain
from app.platform.metrics.registry import EXPORTS
from app.viewer.core.errors import BadRequest
from app.viewer.core.filenames import safe_filename
from app.viewer.core.loaders import load_pipeline
from app.viewer.exports import collector
from app.viewer.exports.formats import Format, Source
from app.viewer.exports.sources import FromIndex, is_selection, record_pages
from app.viewer.exports.stream import Walk, guarded
from app.viewer.runtime import work_gate
from app.viewer.web.stalls import drop_when_stalled


def export_filename(pipeline: dict, kind: domain.Kind, filtered: bool,
                    today: datetime | None = None, extension: str = "csv") -> str:
    """Return ``<kind label>[-selection]-<YYYY-MM-DD>.<extension>``; never an id.

    The label is the kind's as recognised from the run record (the wire has no name).
    """
    # "/" would make safe_filename keep only the last path part of the label.
    stem = safe_filename(kind.label.replace("/", "-"), kind.key)
    day = (today or datetime.now(UTC)).strftime("%Y-%m-%d")
    return f"{stem}{'-selection' if filtered else ''}-{day}.{extension}"


def export_response(link_id: str, pipeline_id: str, fmt: Format) -> Response:
    """Check the link, the format and the first page, then stream the export (module doc)."""
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    if fmt.family and kind.family != fmt.family:
        raise BadRequest(fmt.wrong_family)
    # A view whose index is still being built raises IndexNotReady (a 503 to retry).
    pages = record_pages(link_id, pipeline, kind, request.args, urls=fmt.urls)
    source = Source(link_id, pipeline_id, pipeline, kind, request.args, [Walk(pages)])
    # Admitted (or Busy, a 503) before anything streams; held until the download closes.
    release = work_gate.enter("export")
    EXPORTS.labels(fmt.extension).inc()
    chunks = guarded(fmt.write(source), source.written, fmt.extension.upper(), fmt.marker)
    if isinstance(pages, FromIndex):  # CPU-bound chunks of short-lived records
        chunks = collector.chunks_without_pauses(chunks)
    # stream_with_context: minting a token per page reads the visitor's session, and
    # reading files asks the app's API client.
    name = export_filename(pipeline, kind, is_selection(request.args), extension=fmt.extension)
    response = Response(stream_with_context(drop_when_stalled(chunks)),
                        content_type=fmt.content_type,
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})
    response.call_on_close(release)
    return response
