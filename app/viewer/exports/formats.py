"""The one registry of export formats: ``FORMATS``, file extension -> ``Format``.

A format names its file (extension, content type), the pipeline family it fits (FASTA
proteins, SDF small molecules, the others every kind), the writer that turns a
``Source`` into chunks and the marker ``stream.guarded`` ends a broken-off file with.
The writers themselves are ``csv_writer``, ``text_writers`` (JSON, FASTA), ``sdf_writer``
and ``zip_writer``; this module only adapts each to a ``Source``. The route accepts
exactly the extensions listed here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial

from app import domain
from app.viewer.core import api_client
from app.viewer.exports import csv_writer, fasta_pages, links, ranking, sdf_writer, text_writers
from app.viewer.exports.precision import STATEMENT
from app.viewer.exports.sources import record_pages
from app.viewer.exports.stream import Walk, result_file_chunks, result_file_head
from app.viewer.exports.zip_writer import zip_chunks


@dataclass
class Source:
    """What a writer is handed: the view's pipeline and kind and its walks of records."""

    link_id: str
    pipeline_id: str
    pipeline: dict
    kind: domain.Kind
    args: Mapping[str, str]  # the view's query (ids, sort, filters), to walk it again
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
            # The ZIP's files: their records from the API, with fresh URLs.
            yield from record_pages(self.link_id, self.pipeline, self.kind, self.args,
                                    urls=True)

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
    wrong_family: str = ""  # the 400 page's message for a pipeline of the other family
    # Whether the first walk needs the API's artifact URLs (else a current index serves it).
    urls: bool = False


def _csv(source: Source) -> Iterator[str]:
    return csv_writer.csv_chunks(source.kind, source.walk)


def _json(source: Source) -> Iterator[str]:
    base = links.base_url()  # before the body streams (the request's config and host)
    export = {**ranking.describe(source.args, source.kind), "precision": STATEMENT,
              "artifact_links": "the viewer's download URLs, good for as long as the share "
                                "link" + ("" if base else " (relative to the viewer's address)")}
    artifact_links = partial(links.viewer_artifacts, base, source.link_id, source.pipeline_id)
    return text_writers.json_chunks(source.pipeline, source.kind, source.walk, export,
                                    artifact_links)


def _fasta(source: Source) -> Iterator[str]:
    return fasta_pages.fasta_chunks(source.kind, source.walk)


def _sdf(source: Source) -> Iterator[str]:
    fetch = partial(result_file_head, source.link_id, source.pipeline_id,
                    limit=sdf_writer.LIGAND_RECORD_LIMIT, ends=sdf_writer.RECORD_ENDS)
    return sdf_writer.sdf_chunks(source.walk, lambda record: fetch(record, "ligand_structure"))


def _zip(source: Source) -> Iterator[bytes]:
    fetch = partial(result_file_chunks, source.link_id, source.pipeline_id)
    # The manifest needs every row before the first file: the files walk the rows again.
    return zip_chunks(source.kind, source.walk, source.again(), fetch)


FORMATS: dict[str, Format] = {format_.extension: format_ for format_ in (
    Format("csv", "text/csv; charset=utf-8", _csv, csv_writer.incomplete_row),
    Format("json", "application/json", _json),
    Format("fasta", "text/x-fasta; charset=utf-8", _fasta, text_writers.fasta_incomplete,
           family="protein",
           wrong_family="FASTA holds protein sequences, and this pipeline's results are "
                        "small molecules: download them as SDF or CSV instead."),
    Format("sdf", "chemical/x-mdl-sdfile", _sdf, sdf_writer.sdf_incomplete,
           family="small_molecule", urls=True,
           wrong_family="SDF holds small molecules, and this pipeline's results are "
                        "proteins: download them as FASTA or CSV instead."),
    Format("zip", "application/zip", _zip),
)}
