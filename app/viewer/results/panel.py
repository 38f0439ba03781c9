"""What the results page shows of the whole set: index state, facets, plot settings.

``panel`` brings the pipeline's index up to date (or starts that, ``indexer``) and, once
it is ready, summarises the view (``answers``); every results route asks it first. The
header helpers say which query key sorts a column and which way its first click sorts.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask

from app import domain
from app.viewer.results import answers as explore
from app.viewer.results import indexer
from app.viewer.results import query as explore_query
from app.viewer.results import table as tables
from app.viewer.results.query import ExploreQuery
from app.viewer.store.result_index import IndexState

# Table column -> the query key that sorts it (columns not listed do not sort).
_COLUMN_SORT_KEYS = {"type": "variant", "sequence": "length", "adme.lipophilicity":
                     "lipophilicity", "adme.permeability": "permeability",
                     "adme.solubility": "solubility", "external_id": "external_id"}


def sort_key(column: tables.Column) -> str | None:
    """Return the query key that sorts ``column``, or None."""
    if column.source in ("metric", "chemistry"):
        return column.key
    return _COLUMN_SORT_KEYS.get(column.key)


def descending_first(key: str) -> bool:
    """Whether a header's first click sorts descending (best first for a metric)."""
    if key in domain.METRICS:
        return domain.METRICS[key].direction != "lower"
    return key in ("length", "permeability", "qed")


@dataclass(frozen=True)
class Panel:
    """What the page shows of the whole set: index state, facets, plot settings."""

    state: IndexState
    query: ExploreQuery
    kind: domain.Kind
    summary: explore.Summary | None
    x: str
    y: str

    @property
    def ready(self) -> bool:
        """Whether whole-set answers are available."""
        return self.state.ready

    @property
    def indexed(self) -> int:
        """Results read into the index so far."""
        return self.state.indexed

    @property
    def total(self) -> int:
        """Results the index is being brought up to."""
        return self.state.target_count

    @property
    def args(self) -> dict:
        """The view's query values that the axis form keeps (not the axes or page)."""
        kept = self.query.args(page=1)
        return {k: v for k, v in kept.items() if k not in ("x", "y")}

    @property
    def axes(self) -> list[tuple[str, str]]:
        """Plottable keys with their labels."""
        return [(key, explore.key_label(key)) for key in explore.plot_keys(self.kind)]

    @property
    def filter_keys(self) -> list[tuple[str, str]]:
        """Keys of the form's range filters: the plotted ones and, for small molecules,
        every computed property (donors, acceptors, rotatable bonds, Lipinski too)."""
        keys = list(explore.plot_keys(self.kind))
        if self.kind.family == "small_molecule":
            keys += [k for k in explore_query.CHEMISTRY_KEYS if k not in keys]
        return [(key, explore.key_label(key)) for key in keys]

    @property
    def export_args(self) -> dict:
        """The view's query values that exports keep: what is shown, not how it is paged."""
        return {k: v for k, v in self.query.args(page=1).items()
                if k not in ("x", "y", "limit")}

    def with_args(self, **changes) -> dict:
        """Return this view's query (first page) with ``changes`` (None drops a key)."""
        values = {**self.query.args(page=1), **changes}
        return {k: v for k, v in values.items() if v is not None}


def panel(link_id: str, pipeline: dict, kind: domain.Kind, query: ExploreQuery) -> Panel:
    """Bring the index up to date (or start that) and summarise the view if it is ready."""
    state = indexer.ensure(link_id, pipeline)
    x, y = explore.default_axes(kind)
    x, y = query.x or x, query.y or y
    summary = explore.summary(state, query, kind) if state.ready else None
    return Panel(state, query, kind, summary, x, y)


def init_app(app: Flask) -> None:
    """Offer the keys' labels and units and the solubility classes to every template."""
    app.jinja_env.globals.update(explore_label=explore.key_label, explore_unit=explore.key_unit,
                                 solubility_classes=domain.SOLUBILITY_CLASSES)
