"""What a small-molecule results page shows of scaffolds and similarity.

``of`` gathers it for one page of a view from the index (``chem_answers``): the query
molecule of ``similar_to`` drawn above the table, each shown row's similarity, the
scaffold groups of ``group=scaffold`` (each shown row's scaffold and how many results of
the view share it) and the view's most common scaffolds with their counts (the facet).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from markupsafe import Markup

from app.viewer.depictions.markup import molecule_html
from app.viewer.explore import answers, chem_answers
from app.viewer.explore.query import ExploreQuery
from app.viewer.explore.selections import diverse
from app.viewer.store.result_index import IndexState

TOP_SCAFFOLDS = 12


@dataclass(frozen=True)
class ChemView:
    """One page's scaffold and similarity facts (see the module docstring).

    ``matched`` is how many rows the view has: the results, or the scaffolds when grouped.
    ``scaffolds`` is None while a large set's scaffolds are not computed yet.
    """

    matched: int
    similar_smiles: str | None = None
    similar_figure: Markup | None = None
    similarity: dict[str, float] = field(default_factory=dict)
    groups: dict[str, tuple[str, int]] = field(default_factory=dict)
    scaffolds: list[tuple[str, int]] | None = None  # None: not computed yet (large set)


def of(link_id: str, state: IndexState, query: ExploreQuery) -> ChemView:
    """Return the scaffold and similarity facts of ``query``'s page (index ready)."""
    data = answers.current_frame(state)
    rows = answers.ordered_rows(state, query)
    keep = np.zeros(data.size, dtype=bool)
    keep[rows] = True
    # A large set's scaffolds are computed when asked for (the facet's button), not on
    # every first page view (chem_answers.scaffolds_known).
    asked = query.scaffold or query.group or chem_answers.scaffolds_known(state, data)
    top = chem_answers.scaffold_counts(state, data, keep, TOP_SCAFFOLDS) if asked else None
    groups: dict[str, tuple[str, int]] = {}
    shown = rows
    if query.group:
        shown, about = chem_answers.groups(state, data, rows)
        groups = {key.decode(): value for key, value in about.items()}
    if query.diverse:  # one row per family: the page's rows are the picks
        shown = diverse.picks(state, query).rows
    start = (query.page - 1) * query.limit
    page_rows = shown[start:start + query.limit]
    out = ChemView(matched=len(shown), groups=groups, scaffolds=top)
    if not query.similar_to:
        return out
    column = chem_answers.similarity_column(state, data, query.similar_to)
    smiles = chem_answers.similar_smiles(data, query.similar_to)
    values = {i: float(v) for i, v in zip(data.id_list(page_rows), column[page_rows],
                                          strict=True) if not np.isnan(v)}
    return ChemView(
        matched=out.matched, similar_smiles=smiles,
        similar_figure=Markup(molecule_html(link_id, smiles, size="large",  # noqa: S704
                                            caption=True)),
        similarity=values, groups=groups, scaffolds=top)
