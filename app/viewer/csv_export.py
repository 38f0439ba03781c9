"""A pipeline's results as CSV: the table's columns with full values, streamed page by page.

The columns are the results table's (``tables.columns_for``), so a kind's CSV and its
table never disagree; each cell holds the full value (numbers at full precision, whole
SMILES, every entity's whole sequence, warning codes). The header is written before the
first page is read, so a kind with record variants gets the metrics of all of them
(protein_sequence_redesign: the binder set, which holds every generic metric): one
header for the whole file, the ``variant`` column says which shape a row is, and a
generic row leaves the binder-only metrics empty. ``stream_rows`` walks the API's
results pages with the ``after_id`` cursor and yields the CSV text of one page at a time,
so an export of any size costs the worker one API page of memory.

If the API fails after the first page, the rows already sent cannot be taken back: the
stream ends with one marker row that says the file is incomplete, then raises
``ExportIncomplete`` so that the server aborts the response (no final chunk), which
browsers and HTTP clients report as a failed download.
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Callable, Iterable, Iterator

from app.domain import Kind
from app.viewer import formatting
from app.viewer.tables import Column, columns_for

log = logging.getLogger(__name__)

# Results asked of the API per page (its maximum). Tests lower it to walk several pages.
EXPORT_PAGE_SIZE = 1000
# First cell of the row that ends an export the API broke off; not a comment ("#"),
# which some readers (pandas ``comment="#"``) would skip silently.
INCOMPLETE_MARKER = "EXPORT INCOMPLETE"
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# Where a header differs from the table column's key (the API calls the variant "type").
_HEADER_NAMES = {"type": "variant"}


class ExportIncomplete(Exception):
    """The API failed midway through an export; raised after the marker row is sent."""


def defuse_formula(text: str) -> str:
    """Keep a spreadsheet from running a cell as a formula (CSV injection).

    Submitter-provided text such as ``external_id`` could start with ``=``; a leading
    apostrophe makes spreadsheets show it as text. Numbers are written as numbers.
    """
    if text[:1] in _FORMULA_STARTS:
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text


def _text(value) -> str:
    """Return a cell's text: empty for none, numbers at full precision, text defused."""
    if value is None:
        return ""
    if isinstance(value, str):
        return defuse_formula(value)
    # repr of a float is the shortest text that reads back to the same number.
    return repr(value) if isinstance(value, float) else str(value)


def entities_text(entities: list[dict] | None) -> str:
    """Return every entity as ``chains:value``, joined by ``;`` (full sequences).

    Proteins read ``A:MKT...``; other types name themselves (``C:ligand_ccd:NAG``) so a
    ligand's code is never mistaken for a three-residue peptide.
    """
    parts = []
    for entity in entities or []:
        chains = ",".join(str(c) for c in entity.get("chain_ids") or []) or "?"
        kind = entity.get("type") or ""
        value = entity.get("value") or ""
        parts.append(f"{chains}:{value}" if kind == "protein" else f"{chains}:{kind}:{value}")
    return ";".join(parts)


def header(columns: list[Column]) -> list[str]:
    """Return the CSV header for the table ``columns`` (plus the id and full values)."""
    names = ["result_id"]
    for column in columns:
        if column.source == "sequence":
            names += ["sequence_length", "chains", "sequence", "entities"]
        else:
            names.append(_HEADER_NAMES.get(column.key, column.key.removeprefix("adme.")))
    return names


def cells(columns: list[Column], record: dict) -> list[str]:
    """Return one result's CSV cells, in the order of ``header(columns)``."""
    row = [_text(record.get("id"))]
    for column in columns:
        source = column.source
        if source == "sequence":
            summary = formatting.entity_summary(record.get("entities"))
            row += [_text(summary["length"]), _text(",".join(summary["chains"])),
                    _text(summary["sequence"]), _text(entities_text(record.get("entities")))]
        elif source == "metric":
            row.append(_text((record.get("metrics") or {}).get(column.key)))
        elif source == "adme":
            row.append(_text((record.get("adme") or {}).get(column.key.split(".", 1)[1])))
        elif source == "warnings":
            codes = [str(w.get("code")) for w in record.get("warnings") or []]
            row.append(_text(";".join(codes)))
        else:  # external_id, smiles, the variant ("type"): plain fields of the record
            row.append(_text(record.get(column.key)))
    return row


def _csv_text(rows: Iterable[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


def stream_rows(kind: Kind, first_page: dict, fetch_after: Callable[[str], dict],
                ) -> Iterator[str]:
    """Yield the CSV: the header, then one chunk of rows per API page.

    ``first_page`` was fetched before the response started (so a failure there is an
    ordinary error page); ``fetch_after(last_id)`` returns the page after ``last_id``.
    """
    columns = columns_for(kind)  # no records: every variant's metrics (module docstring)
    yield _csv_text([header(columns)])
    page, written = first_page, 0
    while True:
        records = page.get("data") or []
        yield _csv_text(cells(columns, record) for record in records)
        written += len(records)
        if not page.get("has_more") or not page.get("last_id"):
            return
        try:
            page = fetch_after(page["last_id"])
        except Exception as error:  # any failure, not only the API's: the file must say so
            log.warning("CSV export broken off after %d rows: %s", written, error)
            yield _csv_text([[f"{INCOMPLETE_MARKER}: the results could not all be read "
                              f"(stopped after {written} rows). Download the file again."]])
            raise ExportIncomplete(f"stopped after {written} rows") from error

