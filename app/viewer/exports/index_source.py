"""An export's records read from a current exploration index, a chunk at a time.

When the pipeline's index is current (``results.freshness``: read to the end and brought
up to what the run record of this request's link read says), the records a CSV, JSON or
FASTA export needs are the index's stored records (the API's records without their
artifact URLs, which these formats never use: the JSON links files through the viewer).
Reading them costs the store, not the API: ``CHUNK`` ids a query, parsed in one call
(pydantic-core) as one JSON array, each record's ``rank`` and ``label`` written in front
of its text so that they come first without a copy of the record, and the rows'
computed values (chemistry, protein properties) taken from the index's columns
(``IndexPage.computed``) instead of being computed again per row.

Each page is an ``IndexPage``: the records in the view's order, plus those columns for
the writers that show them (``csv_writer``). A record whose own fields are named ``rank``
or ``label`` is rebuilt the slow way, so the view's rank and label always win, as in
``ranking.ranked``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from pydantic_core import from_json, to_json

from app.viewer.chem.properties import PROPERTIES
from app.viewer.exports import precision
from app.viewer.results import answers
from app.viewer.results.labels import RunLabels
from app.viewer.results.query import ExploreQuery
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries
from app.viewer.store.result_index import IndexState

CHUNK = 1000
# Computed columns whose values are whole numbers (the index keeps every number as float).
_WHOLE = frozenset({*(key for key, prop in PROPERTIES.items() if prop.integer),
                    "liability_count"})


class IndexPage(list):
    """A page of records from the index, with ``computed[key][i]``: the index's value of
    computed column ``key`` for record ``i`` (None where it has none)."""

    computed: dict[str, list]


def _computed(numbers: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, list]:
    """Return the computed columns of ``rows`` as the writers show them (module doc)."""
    out = {}
    for key, column in numbers.items():
        values = column[rows].tolist()
        if key in _WHOLE:
            out[key] = [None if v != v else round(v) for v in values]  # v != v: NaN
        else:
            out[key] = [None if v != v else precision.rounded(key, v) for v in values]
    return out


def _texts(found: dict[str, str], ids: list[str], first_rank: int, labels: list[str]
           ) -> list[dict]:
    """Return the records of ``ids`` (stored JSON text) with ``rank`` and ``label`` first."""
    parts = []
    plain = True
    for offset, result_id in enumerate(ids):
        text = found[result_id]
        plain = plain and '"rank"' not in text and '"label"' not in text
        parts.append(f'{{"rank":{first_rank + offset},"label":'
                     f'{to_json(labels[offset]).decode()},{text[1:]}')
    if plain:
        return from_json("[" + ",".join(parts) + "]")
    # A record with fields of those names: rebuilt so the view's own rank and label win.
    records = from_json("[" + ",".join(found[i] for i in ids) + "]")
    return [{"rank": first_rank + n, "label": labels[n],
             **{k: v for k, v in record.items() if k not in ("rank", "label")}}
            for n, record in enumerate(records)]


def pages(state: IndexState, query: ExploreQuery, labels: RunLabels, limit: int | None,
          computed_keys: tuple[str, ...] = ()) -> Iterator[IndexPage]:
    """Yield the view's records from the index in its order, ``CHUNK`` at a time, up to
    ``limit``, with the computed columns ``computed_keys`` (module docstring)."""
    data, rows = answers.current_frame(state), answers.view_rows(state, query)
    if limit is not None:
        rows = rows[:limit]
    numbers = {key: data.numbers[key] for key in computed_keys if key in data.numbers}
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        ids_bytes = data.ids[chunk]
        ids = [i.decode() for i in ids_bytes.tolist()]
        with get_engine().connect() as conn:
            found = queries.record_texts(conn, state.pipeline_id, ids)
        if len(found) != len(ids):  # the index's two tables are written together
            raise RuntimeError("the exploration index lacks records of its rows")
        page = IndexPage(_texts(found, ids, start + 1, labels.label_list(ids_bytes)))
        if query.similar_to:  # the view's number, beside the record (CSV column, JSON key)
            values = answers.similarities(state, query, ids)
            page = IndexPage({**r, "similarity": values.get(r["id"])} for r in page)
        if query.diverse:  # each pick's family size (diverse_answers), beside the record
            sizes = answers.diverse(state, query).sizes
            page = IndexPage({**r, "family_size": sizes.get(r["id"].encode())} for r in page)
        page.computed = _computed(numbers, chunk)
        yield page
