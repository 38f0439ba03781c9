"""The fields a results view explores: one table of what each sortable, filterable key is.

``FIELDS`` holds, per query key, its label and unit, whether it is a number, which way a
header's first click sorts it, whether the plots draw it, and which results table column
sorts by it. Everything else reads it: the query's known keys (``query``), the index's
numeric columns (``frame``, ``index_rows``), the plots and filters a kind gets
(``plot_keys``, ``filter_keys``), the histograms' labels (``answers``), the table's ADME
and chemistry columns (``table``) and the sortable headers (``sort_key``).

Built from the vocabulary (``app.domain``: the metrics and the ADME fields), the computed
chemistry (``chem.properties``) and the plain fields of a record (``id``, ``created_at``,
``length``, ``variant``, ``external_id``). Metrics beyond a kind's, found in its records
(``extra_metrics``: ``ipsae_min``, or a key the vocabulary does not know), are fields too:
``field`` makes one for any valid metric key, and the functions that list a kind's keys
take the pipeline's ``extras``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from app import domain
from app.viewer.chem import properties
from app.viewer.explore import extra_metrics
from app.viewer.proteins import columns as protein_columns

if TYPE_CHECKING:
    from flask import Flask

Group = Literal["metric", "adme", "chemistry", "record", "protein"]
# What a header says on hover of a metric the vocabulary does not know.
UNKNOWN_METRIC = ("A metric the results report that this viewer does not know: no unit or "
                  "better direction is assumed.")


@dataclass(frozen=True)
class Field:
    """One explorable key of a results view (see the module docstring).

    ``family`` is the kind of results that have the field (None: any kind; a metric
    belongs to the kinds that list it). ``plotted`` fields get a histogram and a scatter
    axis on that family's pages, after the kind's own metrics. ``column`` is the results
    table column whose header sorts by it (None: no such column). ``scale`` is the whole
    range histograms span (the 0-1 confidences, comparable across sets), else None: the
    values' own range.
    """

    key: str
    label: str
    group: Group
    unit: str = ""
    description: str = ""
    numeric: bool = False
    descending_first: bool = False  # best first: higher is better, or longer, or likelier
    family: domain.Family | None = None
    plotted: bool = False
    column: str | None = None
    scale: tuple[float, float] | None = None


def metric_field(m: domain.Metric) -> Field:
    """Return the field of the metric ``m`` (its label, scale, meaning and direction)."""
    return Field(m.key, m.label, "metric", m.scale, m.description, numeric=True,
                 descending_first=m.direction != "lower", column=m.key,
                 scale=(0.0, 1.0) if m.range == domain.UNIT_RANGE else None)


def _adme(key: str, adme: domain.AdmeField) -> Field:
    numeric = key != "solubility"  # a class, not a number
    # Higher permeability is better absorption; lipophilicity has no better direction.
    return Field(key, adme.label, "adme", adme.unit, adme.description, numeric=numeric,
                 descending_first=key == "permeability", family="small_molecule",
                 plotted=numeric, column=f"adme.{key}")


# The computed chemistry the small-molecule tables show and plot (all eight sort and filter).
_CHEMISTRY_SHOWN = ("mol_weight", "clogp", "tpsa", "qed")


def _chemistry(key: str, prop: properties.Property) -> Field:
    shown = key in _CHEMISTRY_SHOWN
    # QED grades (1 is most drug-like); the others describe, smallest first.
    return Field(key, prop.label, "chemistry", prop.unit, prop.description, numeric=True,
                 descending_first=key == "qed", family="small_molecule", plotted=shown,
                 column=key if shown else None)


def _protein(key: str, label: str, unit: str, description: str, desc: bool) -> Field:
    return Field(key, label, "protein", unit, description, numeric=True,
                 descending_first=desc, family="protein", plotted=True, column=key)


FIELDS: dict[str, Field] = {field.key: field for field in (
    *(metric_field(m) for m in domain.METRICS.values()),
    *(_adme(key, adme) for key, adme in domain.ADME_FIELDS.items()),
    # The designed chain's residues: the number the table's Sequence column shows.
    Field("length", "Length (aa)", "record", "aa", numeric=True, descending_first=True,
          family="protein", plotted=True, column="sequence"),
    *(_chemistry(key, prop) for key, prop in properties.PROPERTIES.items()),
    *(_protein(*spec) for spec in protein_columns.FIELD_SPECS),
    Field("id", "Result id", "record"),  # the implicit first column sorts by it itself
    Field("created_at", "Created", "record"),
    Field("variant", "Variant", "record", description=(
        "binder: designed to bind a target (binder metrics); generic: a general redesign "
        "(generic metrics only)."), column="type"),
    Field("external_id", "External ID", "record", description=(
        "Identifier given by the submitter for this library entry."), column="external_id"),
)}

NUMERIC_KEYS = tuple(key for key, field in FIELDS.items() if field.numeric)
KEYS = frozenset(FIELDS)
_SORTED_BY = {field.column: key for key, field in FIELDS.items() if field.column}


def of_group(group: Group) -> tuple[Field, ...]:
    """Return the fields of ``group``, in table order."""
    return tuple(field for field in FIELDS.values() if field.group == group)


def field(key: str) -> Field | None:
    """Return the field of ``key``: the table's, else a metric field for a key that may
    name a metric beyond a kind's (``extra_metrics.is_key``), else None."""
    found = FIELDS.get(key)
    if found is None and extra_metrics.is_key(key):
        metric = domain.metric(key)  # the vocabulary's, or one made from the key
        if not metric.description:
            metric = replace(metric, description=UNKNOWN_METRIC)
        return metric_field(metric)
    return found


def is_numeric(key: str) -> bool:
    """Whether ``key`` is a number a query may sort, filter and plot by (extras included)."""
    return key in NUMERIC_KEYS or extra_metrics.is_key(key)


def label(key: str) -> str:
    """Return a key's label (a key outside the table reads as its words)."""
    found = field(key)
    return found.label if found else key.replace("_", " ").capitalize()


def unit(key: str) -> str:
    """Return what to print beside a key's values (unit or range), "" if nothing."""
    found = field(key)
    return found.unit if found else ""


def descending_first(key: str) -> bool:
    """Whether a header's first click sorts ``key`` descending (best first)."""
    found = field(key)
    return bool(found and found.descending_first)


def sort_key(column_key: str, extras: tuple[str, ...] = ()) -> str | None:
    """Return the query key that sorts the results table's column ``column_key``, or None.

    ``extras`` are the pipeline's metrics beyond its kind's: each column sorts by itself.
    """
    return _SORTED_BY.get(column_key) or (column_key if column_key in extras else None)


def plot_keys(kind: domain.Kind, extras: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Return the numeric keys a kind's results are plotted by, in table order: the kind's
    metrics, the pipeline's ``extras`` (metrics found in its records), then the family's."""
    return (*kind.metrics, *(key for key in extras if key not in kind.metrics),
            *(key for key, field in FIELDS.items()
              if field.plotted and applies(field, kind)))


def filter_keys(kind: domain.Kind, extras: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Return the keys of a kind's range filters: the plotted ones, then the family's
    other numbers (small molecules: donors, acceptors, rotatable bonds, Lipinski)."""
    plotted = plot_keys(kind, extras)
    return (*plotted, *(key for key, field in FIELDS.items() if field.numeric
                        and applies(field, kind) and key not in plotted))


def applies(field: Field, kind: domain.Kind) -> bool:
    """Whether results of ``kind`` can have ``field`` (its family's; ADME only where the
    kind's records carry it: not small-molecule explore)."""
    return field.family == kind.family and (field.group != "adme" or kind.has_adme)


def default_axes(kind: domain.Kind) -> tuple[str, str]:
    """Return the scatter's default (x, y): the kind's second and first plotted keys."""
    keys = plot_keys(kind)
    return (keys[1] if len(keys) > 1 else keys[0]), keys[0]


def init_app(app: Flask) -> None:
    """Offer the keys' labels and units and the solubility classes to every template."""
    app.jinja_env.globals.update(explore_label=label, explore_unit=unit,
                                 solubility_classes=domain.SOLUBILITY_CLASSES,
                                 solubility_meanings=domain.SOLUBILITY_MEANINGS,
                                 adme_source=domain.adme_source)
