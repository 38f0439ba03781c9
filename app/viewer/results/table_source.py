"""A page of the results table from the index: its stored records, and the index's values
of the protein columns its cells show.

The protein columns (ProtParam values and sequence liabilities of the designed chain)
are in the index, where sorting and filtering read them; the epitope scan adds the
exposed-oxidation sites to ``liability_oxidation`` and ``liability_count`` there, which
the sequence alone cannot give. So a page's cells show the index's values
(``TablePage.index_values``), and a view sorted by liabilities reads in the order its
cells say.
"""

from __future__ import annotations

import numpy as np

from app.viewer.explore import answers
from app.viewer.explore.query import ExploreQuery
from app.viewer.proteins import columns as protein_columns
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries
from app.viewer.store.result_index import IndexState


class TablePage(list):
    """A page's stored records, in the view's order, with ``index_values[id][key]``: the
    index's value of protein column ``key`` for the record ``id`` (None: it has none)."""

    index_values: dict[str, dict[str, float | int | None]]


# Site counts are whole numbers (``proteins.columns.values`` gives ints); the frame keeps
# every number as float64: a cell's ``data-sort`` must read "8", not "8.0".
_COUNTS = frozenset({"liability_count", *protein_columns.LIABILITY_COLUMNS.values()})


def _values(numbers: dict[str, np.ndarray], rows: np.ndarray, ids: list[str]
            ) -> dict[str, dict[str, float | int | None]]:
    keys = [key for key in protein_columns.KEYS if key in numbers]
    columns = {key: [None if v != v else round(v) if key in _COUNTS else v  # NaN: none
                     for v in numbers[key][rows].tolist()] for key in keys}
    return {result_id: {key: columns[key][n] for key in keys}
            for n, result_id in enumerate(ids)}


def table_page(state: IndexState, query: ExploreQuery) -> TablePage:
    """Return the stored records of the query's page, in the view's order."""
    start = (query.page - 1) * query.limit
    rows = answers.view_rows(state, query)
    return rows_page(state, rows[start:start + query.limit])


def rows_page(state: IndexState, rows: np.ndarray) -> TablePage:
    """Return the stored records of the frame ``rows``, in their order."""
    data = answers.current_frame(state)
    ids = data.id_list(rows)
    with get_engine().connect() as conn:
        page = TablePage(queries.records(conn, state.pipeline_id, ids))
    page.index_values = _values(data.numbers, rows, ids)
    return page
