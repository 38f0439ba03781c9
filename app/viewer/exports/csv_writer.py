"""A pipeline's results as CSV: the table's columns with full values, streamed page by page.

The first columns are ``rank`` (the position in the view, best first: ``ranking``) and
``label`` (the run-wide name, ``explore.labels``), then ``result_id``; the others are the
results table's (``results.table.columns_for``), so a kind's CSV and its table never
disagree; each cell holds the full value (the API's numbers at full precision, computed
chemistry at the precision of ``precision.DECIMALS``, whole SMILES, every entity's
whole sequence, warning codes). The kind's columns never depend on which records a page
holds, so a kind with record variants gets the metrics of all of them
(protein_sequence_redesign: the binder set, which holds every generic metric): one
header for the whole file, the ``variant`` column says which shape a row is, and a
generic row leaves the binder-only metrics empty. Metrics beyond the kind's
(``explore.extra_metrics``: ``ipsae_min``, unknown keys such as ``foo_score``) get columns
named by their keys, after the kind's metrics: those the first page's records carry (the
first page is read before the response starts; a metric that only later records have is
left out of the file; the JSON export keeps every record whole). ``csv_chunks`` turns
pages of records (``sources.record_pages``) into the CSV text of one page at a time, so an
export of any size costs the worker one page of memory.

If the API fails after the first page, the rows already sent cannot be taken back:
``stream.guarded`` then writes ``incomplete_row`` (one marker row that says the
file is incomplete) and raises ``ExportIncomplete`` so that the server aborts the
response (no final chunk), which browsers and HTTP clients report as a failed download.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from app.domain import Kind
from app.viewer.chem import alerts
from app.viewer.explore import extra_metrics, selections
from app.viewer.exports import csv_cells
from app.viewer.exports.csv_cells import alerts_text, cell_text, defuse_formula, entities_text
from app.viewer.exports.stream import incomplete_text
from app.viewer.results.table import Column, columns_for

# The cells' rules are named here too: what a cell holds is part of what this module writes.
__all__ = ["alerts_text", "cells", "csv_chunks", "defuse_formula", "entities_text", "header",
           "incomplete_row", "warm"]

# Where a header differs from the table column's key (the API calls the variant "type").
_HEADER_NAMES = {"type": "variant"}


def header(columns: list[Column]) -> list[str]:
    """Return the CSV header for the table ``columns`` (plus the id and full values)."""
    names = ["rank", "label", "result_id"]
    for column in columns:
        if column.source == "sequence":
            names += ["sequence_length", "chains", "sequence", "entities"]
        elif column.source == "smiles":  # and its InChIKey (chem.identifiers)
            names += ["smiles", "inchikey"]
        elif column.key == "liability_count":  # and oxidation: empty = total provisional
            names += ["liability_count", "liability_oxidation"]
        else:
            names.append(_HEADER_NAMES.get(column.key, column.key.removeprefix("adme.")))
    if any(column.source == "smiles" for column in columns):
        names.append("alerts")  # PAINS / Brenk alert names, ';'-joined (chem.alerts)
    return names


def cells(columns: list[Column], record: dict, computed: dict[str, list] | None = None,
          at: int = 0) -> list[str]:
    """Return one result's CSV cells as text, in the order of ``header(columns)``.

    ``computed`` (a page from the index, ``index_source.IndexPage.computed``) holds the
    computed columns' values of the page's records, this one at ``at``: read, not computed
    again. A whole page is written a column at a time (``csv_cells.columns``).
    """
    one = {key: values[at:at + 1] for key, values in computed.items()} if computed else None
    return [cell_text(values[0]) for values in csv_cells.columns(columns, [], [record], one)]


def warm(pages: Iterable[list[dict]]) -> Iterator[list[dict]]:
    """Yield ``pages``, each after checking its molecules' alerts in one budgeted call."""
    for records in pages:
        smiles = list(dict.fromkeys(r.get("smiles") for r in _bare(records)
                                    if r.get("smiles")))
        if smiles:
            alerts.names_of(smiles)
        yield records


def _bare(records: list[dict]) -> list[dict]:
    """Return a page's records as the cells read them: a page from the index as stored
    (``index_source.IndexPage.bare``: its rank, label and view's numbers kept apart)."""
    return getattr(records, "bare", records)


def _has_key(records: list[dict], key: str) -> bool:
    """Whether the page's first record has ``key`` (the view's numbers included)."""
    has_key = getattr(records, "has_key", None)
    return has_key(key) if has_key is not None else bool(records) and key in records[0]


def _csv_text(rows: Iterable[Iterable]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


def csv_chunks(kind: Kind, pages: Iterable[list[dict]]) -> Iterator[str]:
    """Yield the CSV: the header, then the rows of one page of records per chunk.

    The kind's columns never depend on which records a page holds (module docstring);
    the metrics beyond the kind's are those of the first page.
    """
    pages = warm(pages)  # alerts of a page's molecules in one batch, not one call a row
    first = next(pages, None)
    columns = columns_for(kind, extras=extra_metrics.of_records(kind, _bare(first or [])))
    # The view's own numbers after result_id (``sources`` adds them to records): a
    # similar_to view's similarity, a diverse view's family size.
    added = [key for key in selections.REGISTRY.export_columns()
             if first and _has_key(first, key)]

    def rows(records: list[dict]) -> str:
        if not hasattr(records, "bare"):  # the API's records: rank and label in each
            return csv_cells.csv_text(csv_cells.columns(columns, added, records))
        # A page from the index: the rank, label and view's numbers of the page, the
        # computed columns read from the index's (``index_source.IndexPage``).
        head = [records.ranks, records.labels,
                *(records.view_column(key) for key in added)]
        text = csv_cells.csv_text(csv_cells.columns(columns, added, records.bare,
                                                    records.computed, head))
        records.release()  # its records freed now, not at the next page (``collector``)
        return text

    names = header(columns)
    yield _csv_text([[*names[:3], *added, *names[3:]]])
    if first is None:
        return
    yield rows(first)
    for records in pages:
        yield rows(records)


def incomplete_row(written: int) -> str:
    """Return the marker row that ends a CSV the API broke off (its first cell says so)."""
    return _csv_text([[incomplete_text(written)]])
