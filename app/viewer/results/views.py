"""The results page's whole-set side: sorted and filtered views, facets, explore.json.

``views.pipeline_results`` hands a query with a sort, filter or search to ``explore_page``
(served from the index) and asks ``panel`` for the facets and plot settings of any page.
``explore.json`` gives the browser the histograms and scatter points of a view, or the
progress of the index build. Every route reads the link through the API with the visitor's
token first (``load_pipeline``): an archived or expired link is the shared 404 before the
index is touched, an email-mode link still needs sign-in.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, jsonify, render_template, request

from app import domain
from app.viewer.core import paging
from app.viewer.core.loaders import load_pipeline
from app.viewer.results import answers as explore
from app.viewer.results import indexer
from app.viewer.results import query as explore_query
from app.viewer.results import table as tables
from app.viewer.results.query import ExploreQuery
from app.viewer.store.result_index import IndexState

bp = Blueprint("explore", __name__)

# Table column -> the query key that sorts it (columns not listed do not sort).
_COLUMN_SORT_KEYS = {"type": "variant", "sequence": "length", "adme.lipophilicity":
                     "lipophilicity", "adme.permeability": "permeability",
                     "adme.solubility": "solubility", "external_id": "external_id"}


@bp.app_context_processor
def _template_helpers() -> dict:
    return {"explore_label": explore.key_label, "explore_unit": explore.key_unit,
            "solubility_classes": domain.SOLUBILITY_CLASSES}


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


def _links(query: ExploreQuery, matched: int) -> paging.PageLinks:
    prev = query.args(page=query.page - 1) if query.page > 1 else None
    more = query.page * query.limit < matched
    return paging.PageLinks(prev, query.args(page=query.page + 1) if more else None)


def explore_page(link_id: str, pipeline: dict, kind: domain.Kind, query: ExploreQuery):
    """Render a sorted, filtered or searched view of the whole set from the index."""
    explore_query.check_kind(query, kind)
    view = panel(link_id, pipeline, kind, query)
    records = explore.table_page(view.state, query) if view.ready else []
    columns = tables.columns_for(kind, records or None)
    return render_template(
        "share/results/page.html", link_id=link_id, pipeline=pipeline, kind=kind,
        page_request=paging.PageRequest(limit=query.limit, ids=query.ids),
        columns=columns, rows=tables.rows_for(records, columns, link_id, query.smarts),
        links=_links(query, view.summary.matched) if view.summary else
        paging.PageLinks(None, None),
        page_sizes=paging.PAGE_SIZES, explore=view, query=query, from_index=True,
        sort_key=sort_key, descending_first=descending_first,
    )


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/explore.json")
def explore_json(link_id: str, pipeline_id: str):
    """Return the view's histograms and scatter points, or the index build's progress."""
    query = explore_query.parse(request.args)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    explore_query.check_kind(query, kind)
    view = panel(link_id, pipeline, kind, query)
    body: dict = {"state": "ready" if view.ready else "building",
                  "indexed": view.indexed, "total": view.total}
    if view.ready and view.summary is not None:
        body.update(matched=view.summary.matched, facets=view.summary.facets,
                    histograms=view.summary.histograms,
                    points=explore.points(view.state, query, view.x, view.y))
    return jsonify(body)
