"""What the results page shows of the whole set: index state, facets, plot settings.

``panel`` brings the pipeline's index up to date (or starts that, ``indexer``) and, once
it is ready, summarises the view (``answers``); every results route asks it first. Its
``explore_answer`` is what ``explore.json`` says about the view. ``extras`` are the
metrics beyond the kind's that the pipeline's records carry (``extra_metrics``): from the
index once it is ready, else those of the page shown (``with_records``).

A view without ``sort`` is ranked: ``panel`` gives it the kind's primary order
(``labels.primary_sort``), so the table, explore.json, the plot page and every link built
from ``Panel.query`` carry that order explicitly. ``AS_RUN`` (``sort=created_at``) is the
run's own order, which the API answers too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app import domain
from app.viewer.explore import answers, extra_metrics, fields, substructure_counting
from app.viewer.explore.explore_answer import Building, Counting, Ready
from app.viewer.explore.index import indexer
from app.viewer.explore.labels import primary_sort, run_labels
from app.viewer.explore.pasted import NOTHING_PASTED, Pasted, resolve
from app.viewer.explore.query import ExploreQuery
from app.viewer.explore.selections import REGISTRY
from app.viewer.store.result_index import IndexState

# The run's own order: creation order, which is also the API's (ids are time-ordered).
AS_RUN: tuple[tuple[str, bool], ...] = (("created_at", False),)


@dataclass(frozen=True)
class Panel:
    """What the page shows of the whole set: index state, facets, plot settings."""

    state: IndexState
    query: ExploreQuery
    kind: domain.Kind
    summary: answers.Summary | None
    x: str
    y: str
    extras: tuple[str, ...] = ()
    # A broad substructure query still counted: ``substructure_counting.Counting.progress``.
    counting: dict | None = None
    # The view's pasted list read against the run (``pasted``): what it names, what to say.
    pasted: Pasted = NOTHING_PASTED

    def with_records(self, records: list[dict]) -> Panel:
        """Return this panel with the extra metrics of ``records`` (a page shown) too."""
        found = extra_metrics.of_records(self.kind, records)
        return replace(self, extras=extra_metrics.merged(self.kind, self.extras, found))

    def sort_key(self, column_key: str) -> str | None:
        """Return the query key that sorts the table column ``column_key``, or None."""
        return fields.sort_key(column_key, self.extras)

    @property
    def default_sort(self) -> tuple[tuple[str, bool], ...]:
        """The order of a view without ``sort``: the kind's primary metric, best first."""
        return primary_sort(self.kind)

    @property
    def ready(self) -> bool:
        """Whether whole-set answers are available (the index, and the view's count)."""
        return self.state.ready and self.counting is None

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
        return [(key, fields.label(key)) for key in fields.plot_keys(self.kind, self.extras)]

    @property
    def filter_keys(self) -> list[tuple[str, str]]:
        """Keys of the form's range filters: the plotted ones and, for small molecules,
        every computed property (donors, acceptors, rotatable bonds, Lipinski too)."""
        return [(key, fields.label(key))
                for key in fields.filter_keys(self.kind, self.extras)]

    @property
    def export_args(self) -> dict:
        """The view's query values that exports keep: its order, selection and ``limit``
        (an export holds the first ``limit`` results of the view: "the top 10"), not
        the page position or the plot's axes (``exports.ranking``)."""
        return {k: v for k, v in self.query.args(page=1).items() if k not in ("x", "y")}

    def form_carried(self, query: ExploreQuery) -> dict:
        """Return the args of ``query`` (first page) that the filter form carries as
        hidden fields: every key in force that none of its controls shows (the range
        boxes, the variant and solubility lists, the selections' ``form_keys``), so
        that "Apply filters" keeps every filter in force."""
        family = self.kind.family
        shown = {f"{key}__{op}" for key, _label in self.filter_keys for op in ("gte", "lte")}
        shown |= {key for selection in REGISTRY if selection.applies_to(family)
                  for key in selection.form_keys}
        if self.kind.has_variant:
            shown.add("variant__eq")
        if family == "small_molecule":
            shown.add("solubility__eq")
        return {k: v for k, v in query.args(page=1).items() if k not in shown}

    def with_args(self, **changes) -> dict:
        """Return this view's query (first page) with ``changes`` (None drops a key)."""
        values = {**self.query.args(page=1), **changes}
        return {k: v for k, v in values.items() if v is not None}

    def explore_answer(self) -> Building | Counting | Ready:
        """Return what ``explore.json`` answers: the index's progress until it is ready,
        the substructure count's while it goes on, then the view's counts, facets,
        histograms and scatter points."""
        if self.counting is not None:
            return Counting(indexed=self.indexed, total=self.total, **self.counting)
        if self.summary is None:  # computed once the index is ready
            return Building(indexed=self.indexed, total=self.total)
        return Ready(indexed=self.indexed, total=self.total, matched=self.summary.matched,
                     facets=self.summary.facets, histograms=self.summary.histograms,
                     points=answers.points(self.state, self.query, self.x, self.y,
                                           run_labels(self.state, self.kind).label_list))


def panel(link_id: str, pipeline: dict, kind: domain.Kind, query: ExploreQuery) -> Panel:
    """Bring the index up to date (or start that) and summarise the view if it is ready.

    A ``query`` without sort gets the kind's primary order (see the module docstring),
    but for a pasted list (``ids``), which keeps the order of the list.
    Its pasted list (``ids``) is read against the run (``pasted``): labels become ids.

    A ready index also checks the query's metric keys against the metrics its records
    carry (``BadRequest`` for one they lack). A broad substructure query still counted
    gives a panel that is not ready, with the count's progress (``counting``).
    """
    if not query.sort and not query.ids:  # a list without a sort keeps its own order
        query = replace(query, sort=primary_sort(kind))
    state = indexer.ensure(link_id, pipeline)
    x, y = fields.default_axes(kind)
    x, y = query.x or x, query.y or y
    pasted = resolve(query.ids, run_labels(state, kind))
    if not state.ready:
        return Panel(state, query, kind, None, x, y, pasted=pasted)
    query = replace(query, ids=pasted.query_ids)  # labels read: the ids they name
    answers.check_keys(state, query)
    extras = answers.extra_keys(state, kind)
    try:
        summary = answers.summary(state, query, kind)
    except substructure_counting.Counting as counting:
        return Panel(state, query, kind, None, x, y, extras, counting.progress(), pasted)
    return Panel(state, query, kind, summary, x, y, extras, pasted=pasted)

