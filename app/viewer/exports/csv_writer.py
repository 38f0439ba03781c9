"""A pipeline's results as CSV: the table's columns with full values, streamed page by page.

The first columns are ``rank`` (the position in the view, best first: ``ranking``) and
``label`` (the run-wide name, ``results.labels``), then ``result_id``; the others are the
results table's (``results.table.columns_for``), so a kind's CSV and its table never
disagree; each cell holds the full value (the API's numbers at full precision, computed
chemistry at the precision of ``precision.DECIMALS``, whole SMILES, every entity's
whole sequence, warning codes). The kind's columns never depend on which records a page
holds, so a kind with record variants gets the metrics of all of them
(protein_sequence_redesign: the binder set, which holds every generic metric): one
header for the whole file, the ``variant`` column says which shape a row is, and a
generic row leaves the binder-only metrics empty. Metrics beyond the kind's
(``results.extra_metrics``: ``ipsae_min``, unknown keys such as ``foo_score``) get columns
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
import unicodedata
from collections.abc import Iterable, Iterator

from app.domain import Kind
from app.viewer.chem import alerts, identifiers, properties
from app.viewer.core import formatting
from app.viewer.exports.precision import rounded_properties
from app.viewer.exports.stream import incomplete_text
from app.viewer.proteins import columns as protein_columns
from app.viewer.results import extra_metrics
from app.viewer.results.table import Column, columns_for

_FORMULA_STARTS = ("=", "+", "-", "@")
# A leading tab or line break is itself a known injection vector, whatever follows.
_SPACE_STARTS = ("\t", "\r", "\n")

# Where a header differs from the table column's key (the API calls the variant "type").
_HEADER_NAMES = {"type": "variant"}


def defuse_formula(text: str) -> str:
    """Keep a spreadsheet from running a cell as a formula (CSV injection).

    Submitter-provided text such as ``external_id`` could start with ``=``; a leading
    apostrophe makes spreadsheets show it as text. Spreadsheets skip leading spaces and
    read fullwidth signs (U+FF1D, U+FF0B, U+FF0D, U+FF20) as their ASCII forms, so the
    check is on the first non-space character after NFKC normalisation; a leading tab or
    line break is defused whatever follows. Numbers ("-1.5", " +2") are written as numbers.
    """
    start = unicodedata.normalize("NFKC", text).lstrip()
    if text.startswith(_SPACE_STARTS) or start.startswith(_FORMULA_STARTS):
        try:
            float(start)
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
    names = ["rank", "label", "result_id"]
    for column in columns:
        if column.source == "sequence":
            names += ["sequence_length", "chains", "sequence", "entities"]
        elif column.source == "smiles":  # and its InChIKey (chem.identifiers)
            names += ["smiles", "inchikey"]
        else:
            names.append(_HEADER_NAMES.get(column.key, column.key.removeprefix("adme.")))
    if any(column.source == "smiles" for column in columns):
        names.append("alerts")  # PAINS / Brenk alert names, ';'-joined (chem.alerts)
    return names


def cells(columns: list[Column], record: dict, computed: dict[str, list] | None = None,
          at: int = 0) -> list[str]:
    """Return one result's CSV cells, in the order of ``header(columns)``.

    ``computed`` (a page from the index, ``index_source.IndexPage.computed``) holds the
    computed columns' values of the page's records, this one at ``at``: read, not computed
    again.
    """
    row = [_text(record.get("rank")), _text(record.get("label")), _text(record.get("id"))]
    chemistry = None
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
        elif computed is not None and column.key in computed:
            row.append(_text(computed[column.key][at]))
        elif source == "chemistry":  # computed from the SMILES (RDKit), as the table shows
            if chemistry is None:
                chemistry = rounded_properties(properties.compute(record.get("smiles")))
            row.append(_text(chemistry.get(column.key)))
        elif source == "protein":  # the designed chain's (Biopython), as the table shows
            sequence = protein_columns.designed_sequence(record)
            row.append(_text(protein_columns.values(sequence).get(column.key)))
        elif source == "warnings":
            codes = [str(w.get("code")) for w in record.get("warnings") or []]
            row.append(_text(";".join(codes)))
        elif source == "smiles":
            smiles = record.get("smiles")
            row += [_text(smiles), _text(identifiers.inchikey(smiles))]
        else:  # external_id, the variant ("type"): plain fields of the record
            row.append(_text(record.get(column.key)))
    if any(column.source == "smiles" for column in columns):
        row.append(_text(alerts_text(record.get("smiles"))))
    return row


def alerts_text(smiles: str | None) -> str:
    """Return a molecule's alert names joined by ';' ("" none, "unknown" unread/unchecked;
    ``warm`` has checked the page's molecules in one budgeted call)."""
    if not smiles:
        return ""
    names = alerts.names_of([smiles], alerts.PAGE_SECONDS)[0]
    return "unknown" if names is None else ";".join(names)


def warm(pages: Iterable[list[dict]]) -> Iterator[list[dict]]:
    """Yield ``pages``, each after checking its molecules' alerts in one budgeted call."""
    for records in pages:
        smiles = list(dict.fromkeys(r.get("smiles") for r in records if r.get("smiles")))
        if smiles:
            alerts.names_of(smiles)
        yield records


_VIEW_KEYS = ("similarity", "family_size")


def _csv_text(rows: Iterable[list[str]]) -> str:
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
    columns = columns_for(kind, extras=extra_metrics.of_records(kind, first or []))
    # The view's own numbers after result_id (``sources`` adds them to records): a
    # similar_to view's similarity, a diverse view's family size.
    added = [key for key in _VIEW_KEYS if first and key in first[0]]

    def rows(records: list[dict]) -> Iterator[list[str]]:
        computed = getattr(records, "computed", None)  # a page from the index
        for at, record in enumerate(records):
            found = cells(columns, record, computed, at)
            yield [*found[:3], *(_text(record.get(key)) for key in added), *found[3:]]

    names = header(columns)
    yield _csv_text([[*names[:3], *added, *names[3:]]])
    if first is None:
        return
    yield _csv_text(rows(first))
    for records in pages:
        yield _csv_text(rows(records))


def incomplete_row(written: int) -> str:
    """Return the marker row that ends a CSV the API broke off (its first cell says so)."""
    return _csv_text([[incomplete_text(written)]])
