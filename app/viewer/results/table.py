"""Column sets and cell values of the results table, one set per pipeline kind.

Which columns a kind has, how a value is formatted and escaped, and what a header says
on hover are decided here; the template only places ``columns`` and each row's cells, and
the CSV export (``exports.csv_writer``) writes the full values of the same columns.

Kinds whose records come in variants (protein_sequence_redesign: ``binder`` or
``generic``) get the metric columns of the variants on the page: a page of generic
designs shows the generic metrics only, never empty binder columns. A mixed page shows
the union (the binder set, which holds every generic metric), and generic rows show a dash
under the binder-only metrics, which do not apply to them. Without records (the CSV
export, which streams page by page) a kind gets the union of all its variants.

Metrics beyond the kind's that the pipeline's records carry (``extra_metrics``: the
optional ``ipsae_min``, or a key the vocabulary does not know) follow the kind's metric
columns, under their label (``fields.field``), in every kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup, escape

from app import domain
from app.domain import Kind
from app.viewer.chem import properties, verdict
from app.viewer.core import formatting
from app.viewer.depictions.markup import molecule_html
from app.viewer.explore import fields
from app.viewer.explore.fields import FIELDS, Field, of_group
from app.viewer.proteins import columns as protein_columns
from app.viewer.proteins import liabilities
from app.viewer.results import alert_badges


@dataclass(frozen=True)
class Column:
    """A table column: key, header label, unit, hover description, alignment."""

    key: str
    label: str
    unit: str = ""
    description: str = ""
    numeric: bool = False
    source: str = "field"  # field | metric | adme | chemistry | sequence | smiles | ...


@dataclass(frozen=True)
class Context:
    """What cells need beyond the record: the link (depiction URLs), the highlight."""

    link_id: str = ""
    highlight: str | None = None  # the view's substructure query, highlighted in drawings
    alerts: dict | None = None  # SMILES -> its PAINS/Brenk alert names (alert_badges)
    # Result id -> the index's protein columns (``table_source``): shown instead of the
    # values computed from the sequence, which lack the epitope scan's oxidation sites.
    index_values: dict | None = None


@dataclass(frozen=True)
class Row:
    """One result row: its id and its ``<td>`` cells as one piece of markup.

    The cells are built here in one pass (escaped with markupsafe) rather than with
    per-cell template logic: a 100-row table has ~1,400 cells and rendering them is the
    bulk of the page's cost.
    """

    id: str
    cells: Markup


def _td(content: str, raw: object = None, css: str = "", title: str = "") -> str:
    """Return one escaped ``<td>``; ``content`` must already be markup."""
    attrs = f' class="{css}"' if css else ""
    if raw is not None and raw != "":
        attrs += f' data-sort="{escape(raw)}"'
    if title:
        attrs += f' title="{escape(title)}"'
    return f"<td{attrs}>{content}</td>"


def _number_td(value, decimals: int, shade: str = "") -> str:
    """Return a numeric cell; a number's text has nothing to escape."""
    if type(value) in (int, float):
        css = f"num q-{shade}" if shade else "num"
        return f'<td class="{css}" data-sort="{value!r}">' \
            f"{formatting.format_number(value, decimals)}</td>"
    return _td(escape(formatting.format_number(value, decimals)), value, "num")


def _field_column(field: Field, source: str) -> Column:
    """Return the column that shows ``field`` (header: its label, unit or range, meaning)."""
    return Column(field.column or field.key, field.label, field.unit, field.description,
                  field.numeric, source)


def metric_keys(kind: Kind, records: list[dict] | None = None) -> tuple[str, ...]:
    """Return the metric columns of ``kind`` for a page of ``records``, in table order.

    A kind with variants shows the metrics of the variants present (see the module
    docstring); ``records=None`` or an empty page gives the kind's full set.
    """
    if not kind.has_variant or not records:
        return kind.metrics
    return kind.metrics_of(record.get("type") for record in records)


def columns_for(kind: Kind, records: list[dict] | None = None,
                extras: tuple[str, ...] = ()) -> list[Column]:
    """Return the columns of a results table of ``kind`` (the id column is implicit).

    ``records`` (the page shown) narrows the metric columns to its variants' metrics;
    ``extras`` (metrics beyond the kind's, ``extra_metrics``) come after them.
    """
    columns: list[Column] = []
    if kind.has_external_id:
        columns.append(_field_column(FIELDS["external_id"], "field"))
    if kind.has_variant:
        columns.append(_field_column(FIELDS["variant"], "variant"))
    if kind.family == "small_molecule":
        columns.append(Column("smiles", "Structure", "", "The molecule drawn from its SMILES "
                              "(RDKit), with the SMILES under it.", source="smiles"))
    else:
        columns.append(Column("sequence", "Sequence", "aa · chains",
                              "Length of the designed protein and the chains of the complex.",
                              source="sequence"))
    columns.extend(_field_column(FIELDS[key], "metric") for key in metric_keys(kind, records))
    for key in extras:
        field = fields.field(key)
        if field is not None and key not in kind.metrics:
            columns.append(_field_column(field, "metric"))
    if kind.family == "small_molecule":
        columns.extend(_field_column(field, "chemistry") for field in of_group("chemistry")
                       if field.column)  # the four shown; all eight sort and filter
    if kind.has_adme:
        columns.extend(_field_column(field, "adme") for field in of_group("adme"))
    if kind.family == "protein":  # the designed chain's ProtParam values and liabilities
        columns.extend(_field_column(field, "protein") for field in of_group("protein"))
    columns.append(Column("warnings", "Warnings", "", "Warnings raised for this result.",
                          source="warnings"))
    return columns


KEY_METRICS = 3  # the metric columns a phone shows without scrolling, the primary first


def page_columns(kind: Kind, columns: list[Column]) -> tuple[list[Column], int]:
    """Return the results page's column order and how many key metrics lead it.

    The page shows the key metrics right after the rank and the label: the kind's primary
    metric (what the default view ranks by), then the next metric columns in table order,
    ``KEY_METRICS`` in all. The other columns follow in ``columns_for``'s order; a phone
    hides them until asked (``static/css/viewer.css``). The CSV keeps ``columns_for``'s.
    """
    metrics = [c for c in columns if c.source == "metric"]
    metrics.sort(key=lambda c: c.key != kind.primary_metric)  # stable: the rest keep order
    key = metrics[:KEY_METRICS]
    return key + [c for c in columns if c not in key], len(key)


def _metric_cell(column: Column, _context: Context) -> Callable[[dict], str]:
    definition = domain.metric(column.key)
    key, decimals = column.key, definition.decimals

    def render(record: dict) -> str:
        value = (record.get("metrics") or {}).get(key)
        return _number_td(value, decimals, domain.quality(definition, value))

    return render


def _adme_cell(column: Column, _context: Context) -> Callable[[dict], str]:
    field = column.key.split(".", 1)[1]

    def render_class(record: dict) -> str:
        value = (record.get("adme") or {}).get(field)
        label, css = domain.SOLUBILITY_CLASSES.get(value, (value or "\u2013", ""))
        return _td(escape(label), value, f"sol sol-{css}" if css else "", value or "")

    def render_number(record: dict) -> str:
        return _number_td((record.get("adme") or {}).get(field), 2)

    return render_class if field == "solubility" else render_number


def _sequence_cell(_column: Column, _context: Context) -> Callable[[dict], str]:
    def render(record: dict) -> str:
        summary = formatting.entity_summary(record.get("entities"))
        length = summary["length"]
        chains = ", ".join(summary["chains"])
        text = f"{length} aa" if length is not None else "\u2013"
        shown = escape(f"\u00b7 {chains}" if chains else "")
        content = f'{text} <span class="chains">{shown}</span>'
        return _td(content, length, "num", f"Chains {chains}: {summary['text']}")

    return render


def _smiles_cell(_column: Column, context: Context) -> Callable[[dict], str]:
    def render(record: dict) -> str:
        smiles = record.get("smiles") or ""
        # The SMILES whole, wrapped, under the drawing: in a lead-optimisation series the
        # differences sit mid-string.
        figure = molecule_html(context.link_id, smiles, context.highlight, "row",
                               caption=True)
        badge = alert_badges.badges(verdict.of_record(record,
                                                      (context.alerts or {}).get(smiles)))
        return _td(figure + badge, smiles, "smiles")

    return render


def _chemistry_cell(column: Column, _context: Context) -> Callable[[dict], str]:
    key, decimals = column.key, properties.PROPERTIES[column.key].decimals

    def render(record: dict) -> str:
        values = properties.compute(record.get("smiles")) or {}
        return _number_td(values.get(key), decimals)

    return render


def _protein_cell(column: Column, context: Context) -> Callable[[dict], str]:
    key = column.key
    decimals = 0 if key in _WHOLE_NUMBERS else 2
    indexed = context.index_values or {}

    def render(record: dict) -> str:  # cached per distinct sequence (proteins.columns)
        values = indexed.get(record.get("id"))
        if values is None or key not in values:
            values = protein_columns.values(protein_columns.designed_sequence(record))
        value = values.get(key)
        if key == "liability_count" and value is not None and \
                values.get(_OXIDATION) is None:  # oxidation not read: provisional
            return _td(f'{value}<abbr class="provisional" title="{_PROVISIONAL}">*</abbr>',
                       value, "num provisional", f"Oxidation not counted: {_PROVISIONAL}")
        return _number_td(value, decimals)

    return render


_OXIDATION = protein_columns.LIABILITY_COLUMNS["oxidation"]
_PROVISIONAL = f"provisional: {liabilities.PROVISIONAL}"


_WHOLE_NUMBERS = ("protein_weight", "extinction_coefficient", "liability_count")


def _variant_cell(_column: Column, _context: Context) -> Callable[[dict], str]:
    def render(record: dict) -> str:
        variant = record.get("type") or ""
        content = (f'<span class="badge badge-{escape(variant)}">{escape(variant)}</span>'
                   if variant else "\u2013")
        return _td(content, variant)

    return render


def _warnings_cell(_column: Column, _context: Context) -> Callable[[dict], str]:
    def render(record: dict) -> str:
        warnings = record.get("warnings") or []
        if not warnings:
            return _td("", 0)
        title = warning_text(warnings)
        # The codes are printed, not only in a tooltip: phones cannot hover.
        codes = "".join(f'<span class="warn-code">{escape(w.get("code"))}</span>'
                        for w in warnings)
        content = (f'<span class="warn-flag"><span aria-hidden="true">\u26a0</span>'
                   f'<span class="visually-hidden">Warnings: {escape(title)}</span></span>'
                   f"{codes}")
        return _td(content, len(warnings), "warn", title)

    return render


def _field_cell(column: Column, _context: Context) -> Callable[[dict], str]:
    def render(record: dict) -> str:
        value = record.get(column.key)
        return _td(escape("" if value is None else str(value)), value)

    return render


# How each kind of column turns a record into its cell; built once per table, then called
# for every row (a 100-row table has ~1,000 cells).
_CELLS: dict[str, Callable[[Column, Context], Callable[[dict], str]]] = {
    "metric": _metric_cell, "adme": _adme_cell, "sequence": _sequence_cell,
    "smiles": _smiles_cell, "chemistry": _chemistry_cell, "protein": _protein_cell,
    "variant": _variant_cell,
    "warnings": _warnings_cell, "field": _field_cell,
}


def warning_text(warnings: list[dict]) -> str:
    """Return warnings as ``code: message; code: message``."""
    return "; ".join(f"{w.get('code')}: {w.get('message')}" for w in warnings)


def rows_for(records: list[dict], columns: list[Column], link_id: str = "",
             highlight: str | None = None) -> list[Row]:
    """Build the table rows of ``records`` in the order the API returned them.

    ``link_id`` signs the depictions' URLs; ``highlight`` (a SMARTS or SMILES) marks the
    matched atoms in them. Records from the index (``table_source.TablePage``) show its
    protein columns.
    """
    page_alerts = (alert_badges.page_alerts(records)
                   if any(c.source == "smiles" for c in columns) else None)
    context = Context(link_id, highlight, page_alerts, getattr(records, "index_values", None))
    cells = [_CELLS[column.source](column, context) for column in columns]
    return [
        Row(str(record.get("id")),
            Markup("".join([cell(record) for cell in cells])))  # noqa: S704 - escaped
        for record in records
    ]
