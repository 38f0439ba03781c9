"""Column sets and cell values of the results table, one set per pipeline kind.

Templates (and the CSV export) only walk ``columns`` and ``cells``; which columns a kind
has, how a value is formatted and what a header says on hover are decided here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.viewer import formatting, metrics_catalog
from app.viewer.metrics_catalog import Kind


@dataclass(frozen=True)
class Column:
    """A table column: key, header label, unit, hover description, alignment."""

    key: str
    label: str
    unit: str = ""
    description: str = ""
    numeric: bool = False
    source: str = "field"  # field | metric | adme | sequence | warnings | variant
    higher_is_better: bool | None = None


@dataclass(frozen=True)
class Cell:
    """One formatted cell: display text, hover title, raw value (for sort and CSV)."""

    text: str
    raw: object = None
    title: str = ""
    numeric: bool = False
    css: str = ""
    full: str = ""  # the full value when ``text`` is shortened (SMILES, sequences)


@dataclass
class Row:
    """One result: its id, its cells in column order, and its warnings."""

    id: str
    cells: list[Cell]
    warnings: list[dict] = field(default_factory=list)


def _metric_column(key: str) -> Column:
    m = metrics_catalog.metric(key)
    return Column(key, m.label, m.unit, m.description, True, "metric", m.higher_is_better)


def columns_for(kind: Kind) -> list[Column]:
    """Return the columns of a results table of ``kind`` (the id column is implicit)."""
    columns: list[Column] = []
    if kind.has_external_id:
        columns.append(Column("external_id", "External ID", "",
                              "Identifier given by the submitter for this library entry."))
    if kind.has_variant:
        columns.append(Column("type", "Variant", "",
                              "binder: designed to bind a target (binder metrics); "
                              "generic: a general redesign (generic metrics only).",
                              source="variant"))
    if kind.family == "small_molecule":
        columns.append(Column("smiles", "SMILES", "", "The molecule as a SMILES string.",
                              source="smiles"))
    else:
        columns.append(Column("sequence", "Sequence", "aa · chains",
                              "Length of the designed protein and the chains of the complex.",
                              source="sequence"))
    columns.extend(_metric_column(key) for key in kind.metrics)
    if kind.family == "small_molecule":
        for key, (label, unit, description) in metrics_catalog.ADME_FIELDS.items():
            columns.append(Column(f"adme.{key}", label, unit, description,
                                  numeric=key != "solubility", source="adme"))
    columns.append(Column("warnings", "Warnings", "", "Warnings raised for this result.",
                          source="warnings"))
    return columns


def _cell(column: Column, record: dict) -> Cell:
    if column.source == "metric":
        value = (record.get("metrics") or {}).get(column.key)
        return Cell(formatting.format_metric(value, column.key), value, numeric=True)
    if column.source == "adme":
        adme = record.get("adme") or {}
        value = adme.get(column.key.split(".", 1)[1])
        if column.key == "adme.solubility":
            label, css = metrics_catalog.SOLUBILITY_CLASSES.get(value, (value or "\u2013", ""))
            return Cell(label, value, title=value or "", css=f"sol sol-{css}" if css else "")
        return Cell(formatting.format_number(value, 2), value, numeric=True)
    if column.source == "sequence":
        summary = formatting.entity_summary(record.get("entities"))
        length = summary["length"]
        text = f"{length} aa" if length is not None else "\u2013"
        chains = ", ".join(summary["chains"])
        return Cell(text, length, title=f"Chains {chains}: {summary['text']}", numeric=True,
                    full=f"· {chains}" if chains else "")
    if column.source == "smiles":
        smiles = record.get("smiles") or ""
        return Cell(formatting.shorten(smiles, 32), smiles, title=smiles, css="mono",
                    full=smiles)
    if column.source == "variant":
        variant = record.get("type") or ""
        return Cell(variant or "\u2013", variant, css=f"badge badge-{variant}" if variant else "")
    if column.source == "warnings":
        warnings = record.get("warnings") or []
        title = "; ".join(f"{w.get('code')}: {w.get('message')}" for w in warnings)
        return Cell(str(len(warnings)) if warnings else "", len(warnings), title=title,
                    css="warn" if warnings else "")
    value = record.get(column.key)
    return Cell("" if value is None else str(value), value)


def rows_for(records: list[dict], columns: list[Column]) -> list[Row]:
    """Build the table rows of ``records`` in the order the API returned them."""
    return [
        Row(str(record.get("id")), [_cell(c, record) for c in columns],
            list(record.get("warnings") or []))
        for record in records
    ]


def csv_value(column: Column, cell: Cell) -> str:
    """Return the CSV text of a cell: full precision numbers, full SMILES."""
    if column.source == "sequence":
        return str(cell.raw if cell.raw is not None else "")
    if column.source == "warnings":
        return cell.title
    if cell.raw is None:
        return ""
    return str(cell.raw)
