"""Exports of a pipeline's view: ``/share/<id>/pipelines/<pipeline_id>/export.<format>``.

CSV, JSON, FASTA (protein kinds), SDF (small-molecule kinds) and ZIP (structure files).
Every format is checked the same way before answering: ``load_pipeline`` first (an
unknown link is the shared 404, an email-mode link without a verified address goes to
sign-in), then the format against the pipeline's family (a 400 page naming the formats
that fit), then ``export_sources.record_pages``, which reads the first page of records
(the API's order, or a sorted or filtered view's from the index), so a bad query
or an API already down is an ordinary error page. Only then does the body stream, one
page of records at a time; ``export_stream.guarded`` breaks it off honestly if anything
fails later. The writers live in ``csv_export``, ``export_formats``, ``sdf_export`` and
``zip_export``; these routes only wire them up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial

from flask import Blueprint, Response, request, stream_with_context

from app import domain
from app.viewer.core import api_client
from app.viewer.core.filenames import safe_filename
from app.viewer.core.loaders import load_pipeline
from app.viewer.exports import csv_writer as csv_export
from app.viewer.exports import sdf_writer as sdf_export
from app.viewer.exports import text_writers as export_formats
from app.viewer.exports.sources import IndexNotReady, is_selection, record_pages
from app.viewer.exports.stream import Walk, guarded, result_file_bytes, result_file_chunks
from app.viewer.exports.zip_writer import zip_chunks
from app.viewer.web.error_pages import html_error_page

bp = Blueprint("exports", __name__)
_BASE = "/share/<link_id>/pipelines/<pipeline_id>/export"


def export_filename(pipeline: dict, kind: domain.Kind, filtered: bool,
                    today: datetime | None = None, extension: str = "csv") -> str:
    """Return ``<pipeline name or kind>[-selection]-<YYYY-MM-DD>.<extension>``; never an id."""
    # "/" would make safe_filename keep only the last path part of the name.
    stem = safe_filename((pipeline.get("name") or "").replace("/", "-"), kind.key)
    day = (today or datetime.now(UTC)).strftime("%Y-%m-%d")
    return f"{stem}{'-selection' if filtered else ''}-{day}.{extension}"


@dataclass
class Source:
    """What a writer is handed: the view's pipeline and kind and its walks of records."""

    link_id: str
    pipeline_id: str
    pipeline: dict
    kind: domain.Kind
    walks: list[Walk]

    @property
    def walk(self) -> Walk:
        """The walk whose first page was read before the response started."""
        return self.walks[0]

    def written(self) -> int:
        """Return how many results the latest walk has written (for the marker and log)."""
        return self.walks[-1].written

    def again(self) -> Walk:
        """Return a second walk of the same records, read only when iterated."""

        def lazily() -> Iterator[list[dict]]:
            api_client.restart_deadline()  # the body has long started: a whole deadline
            yield from record_pages(self.link_id, self.pipeline, self.kind, request.args)

        self.walks.append(Walk(lazily()))
        return self.walks[-1]


@dataclass(frozen=True)
class Format:
    """An export format: its file, which family it fits, its writer and its marker."""

    extension: str
    content_type: str
    write: Callable[[Source], Iterator]
    marker: Callable[[int], object] | None = None
    family: str | None = None  # None: every kind
    wrong_family: str = ""


def _zip(source: Source) -> Iterator[bytes]:
    fetch = partial(result_file_chunks, source.link_id, source.pipeline_id)
    # The manifest needs every row before the first file: the files walk the rows again.
    return zip_chunks(source.kind, source.walk, source.again(), fetch)


def _sdf(source: Source) -> Iterator[str]:
    fetch = partial(result_file_bytes, source.link_id, source.pipeline_id)
    return sdf_export.sdf_chunks(source.walk, lambda record: fetch(record, "ligand_structure"))


FORMATS = {
    "csv": Format("csv", "text/csv; charset=utf-8",
                  lambda s: csv_export.csv_chunks(s.kind, s.walk), csv_export.incomplete_row),
    "json": Format("json", "application/json",
                   lambda s: export_formats.json_chunks(s.pipeline, s.kind, s.walk)),
    "fasta": Format("fasta", "text/x-fasta; charset=utf-8",
                    lambda s: export_formats.fasta_chunks(s.kind, s.walk),
                    export_formats.fasta_incomplete, family="protein",
                    wrong_family="FASTA holds protein sequences, and this pipeline's results "
                                 "are small molecules: download them as SDF or CSV instead."),
    "sdf": Format("sdf", "chemical/x-mdl-sdfile", _sdf, sdf_export.sdf_incomplete,
                  family="small_molecule",
                  wrong_family="SDF holds small molecules, and this pipeline's results are "
                               "proteins: download them as FASTA or CSV instead."),
    "zip": Format("zip", "application/zip", _zip),
}


def export(link_id: str, pipeline_id: str, fmt: Format) -> Response:
    """Check the link, the format and the first page, then stream the export (module doc)."""
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    if fmt.family and kind.family != fmt.family:
        return html_error_page(400, fmt.wrong_family)
    try:
        pages = record_pages(link_id, pipeline, kind, request.args)
    except IndexNotReady as building:
        return html_error_page(503, f"Sorting every result first: {building.indexed:,} of "
                                    f"{building.total:,} are indexed. Try again in a moment.")
    source = Source(link_id, pipeline_id, pipeline, kind, [Walk(pages)])
    chunks = guarded(fmt.write(source), source.written, fmt.extension.upper(), fmt.marker)
    # stream_with_context: minting a token per page reads the visitor's session, and
    # reading files asks the app's API client.
    name = export_filename(pipeline, kind, is_selection(request.args), extension=fmt.extension)
    return Response(stream_with_context(chunks), content_type=fmt.content_type,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get(f"{_BASE}.csv")
def export_csv(link_id: str, pipeline_id: str):
    """Stream the view's results as CSV (the table's columns, full values)."""
    return export(link_id, pipeline_id, FORMATS["csv"])


@bp.get(f"{_BASE}.json")
def export_json(link_id: str, pipeline_id: str):
    """Stream the view's result records as JSON, as the API returned them."""
    return export(link_id, pipeline_id, FORMATS["json"])


@bp.get(f"{_BASE}.fasta")
def export_fasta(link_id: str, pipeline_id: str):
    """Stream the designed chains of a protein pipeline's view as FASTA."""
    return export(link_id, pipeline_id, FORMATS["fasta"])


@bp.get(f"{_BASE}.sdf")
def export_sdf(link_id: str, pipeline_id: str):
    """Stream the molecules of a small-molecule pipeline's view as SDF."""
    return export(link_id, pipeline_id, FORMATS["sdf"])


@bp.get(f"{_BASE}.zip")
def export_zip(link_id: str, pipeline_id: str):
    """Stream the structure files of the view's results as a ZIP."""
    return export(link_id, pipeline_id, FORMATS["zip"])
