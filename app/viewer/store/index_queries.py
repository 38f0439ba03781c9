"""Whole-set questions answered from the exploration index: pages, counts, facets, plots.

Each function takes a validated ``ExploreQuery`` (``app.viewer.explore_query``) and turns
its sort, filters, search and ids into SQL over ``viewer_indexed_results`` of one pipeline.
Order: the query's keys (missing values last, whichever the direction), then the result
id, so every order is total and pages never overlap. Nothing here checks access: the
views read the link through the API first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.viewer.explore_query import ExploreQuery, Filter
from app.viewer.store.schema import indexed_records, indexed_results

R = indexed_results.c
_OPERATORS = {"gte": "__ge__", "gt": "__gt__", "lte": "__le__", "lt": "__lt__", "eq": "__eq__"}
HISTOGRAM_BINS = 20
POINTS_LIMIT = 5000


def column(key: str) -> sa.ColumnElement:
    """Return the index column of a query key (``id`` is the result id)."""
    return R.result_id if key == "id" else R[key]


def _condition(item: Filter) -> sa.ColumnElement:
    return getattr(column(item.key), _OPERATORS[item.op])(item.value)


def conditions(pipeline_id: str, query: ExploreQuery) -> list[sa.ColumnElement]:
    """Return the WHERE conditions of ``query`` on ``pipeline_id``'s rows."""
    where = [R.pipeline_id == pipeline_id, *(_condition(item) for item in query.filters)]
    if query.warnings == "none":
        where.append(R.warning_count == 0)
    elif query.warnings == "any":
        where.append(R.warning_count > 0)
    if query.warning:
        where.append(R.warning_codes.contains(f";{query.warning};", autoescape=True))
    if query.q:
        where.append(R.search.contains(query.q.lower(), autoescape=True))
    if query.ids:
        where.append(R.result_id.in_(query.ids))
    return where


def ordering(query: ExploreQuery) -> list[sa.ColumnElement]:
    """Return the ORDER BY of ``query``: its keys, missing values last, then the id."""
    order = []
    for key, desc in query.sort:
        if key == "id":
            continue  # the tie-breaker below, in the asked direction
        col = column(key)
        order.append((col.desc() if desc else col.asc()).nulls_last())
    id_desc = any(key == "id" and desc for key, desc in query.sort)
    order.append(R.result_id.desc() if id_desc else R.result_id.asc())
    if not query.sort:
        order.insert(0, R.position.asc())  # the API's own order
    return order


def count(conn: Connection, pipeline_id: str, query: ExploreQuery) -> int:
    """Return how many results of the pipeline match ``query``."""
    return conn.execute(sa.select(sa.func.count()).select_from(indexed_results)
                        .where(*conditions(pipeline_id, query))).scalar_one()


def page(conn: Connection, pipeline_id: str, query: ExploreQuery, offset: int, limit: int
         ) -> list[dict]:
    """Return the records of one page of the view, in its order."""
    ids = conn.execute(
        sa.select(R.result_id).where(*conditions(pipeline_id, query))
        .order_by(*ordering(query)).offset(offset).limit(limit)
    ).scalars().all()
    return records(conn, pipeline_id, ids)


def records(conn: Connection, pipeline_id: str, ids: list[str]) -> list[dict]:
    """Return the stored records of ``ids``, in that order (missing ones skipped)."""
    if not ids:
        return []
    found = dict(conn.execute(
        sa.select(indexed_records.c.result_id, indexed_records.c.record)
        .where(indexed_records.c.pipeline_id == pipeline_id)
        .where(indexed_records.c.result_id.in_(ids))
    ).all())
    return [json.loads(found[rid]) for rid in ids if rid in found]


def ordered_ids(conn: Connection, pipeline_id: str, query: ExploreQuery, chunk: int = 200
                ) -> Iterator[list[str]]:
    """Yield the matching result ids in the view's order, ``chunk`` at a time."""
    result = conn.execution_options(yield_per=chunk).execute(
        sa.select(R.result_id).where(*conditions(pipeline_id, query))
        .order_by(*ordering(query)))
    for part in result.partitions(chunk):
        yield [row[0] for row in part]


def facets(conn: Connection, pipeline_id: str, query: ExploreQuery, codes: tuple[str, ...]
           ) -> dict[str, dict[str, int]]:
    """Count the matching results per warning code, variant and solubility class.

    One scan: grouped by (variant, solubility) with one sum per known warning code.
    """
    sums = [sa.func.sum(sa.case((R.warning_codes.contains(f";{code};", autoescape=True), 1),
                                else_=0)) for code in codes]
    rows = conn.execute(
        sa.select(R.variant, R.solubility, sa.func.count(),
                  sa.func.sum(sa.case((R.warning_count == 0, 1), else_=0)), *sums)
        .where(*conditions(pipeline_id, query)).group_by(R.variant, R.solubility)
    ).all()
    out: dict[str, dict[str, int]] = {"warning": {}, "variant": {}, "solubility": {},
                                      "warnings": {"none": 0, "any": 0}}
    for variant, solubility, total, clean, *per_code in rows:
        if variant is not None:
            out["variant"][variant] = out["variant"].get(variant, 0) + total
        if solubility is not None:
            out["solubility"][solubility] = out["solubility"].get(solubility, 0) + total
        out["warnings"]["none"] += int(clean or 0)
        out["warnings"]["any"] += total - int(clean or 0)
        for code, hits in zip(codes, per_code, strict=True):
            if hits:
                out["warning"][code] = out["warning"].get(code, 0) + int(hits)
    return out


def value_ranges(conn: Connection, pipeline_id: str, query: ExploreQuery, keys: list[str]
                 ) -> dict[str, tuple[float | None, float | None]]:
    """Return (min, max) of each numeric key over the matching results, in one scan."""
    parts = [f(column(key)) for key in keys for f in (sa.func.min, sa.func.max)]
    row = conn.execute(sa.select(*parts).where(*conditions(pipeline_id, query))).one()
    return {key: (row[2 * i], row[2 * i + 1]) for i, key in enumerate(keys)}


def histogram(conn: Connection, pipeline_id: str, query: ExploreQuery, key: str,
              low: float, high: float, bins: int = HISTOGRAM_BINS) -> list[int]:
    """Return the counts of ``bins`` equal bins over [low, high] of ``key``'s values."""
    width = (high - low) / bins if high > low else 1.0
    col = column(key)
    bucket = sa.cast((col - low) / width, sa.Integer).label("b")
    rows = conn.execute(
        sa.select(bucket, sa.func.count())
        .where(*conditions(pipeline_id, query), col.is_not(None), col >= low, col <= high)
        .group_by(bucket)
    ).all()
    counts = [0] * bins
    for index, n in rows:
        counts[min(max(int(index), 0), bins - 1)] += n  # the top edge joins the last bin
    return counts


def points(conn: Connection, pipeline_id: str, query: ExploreQuery, x: str, y: str,
           limit: int = POINTS_LIMIT) -> list[tuple[str, float, float]]:
    """Return (id, x, y) of matching results with both values, first ``limit`` in order."""
    cx, cy = column(x), column(y)
    return [tuple(row) for row in conn.execute(
        sa.select(R.result_id, cx, cy)
        .where(*conditions(pipeline_id, query), cx.is_not(None), cy.is_not(None))
        .order_by(*ordering(query)).limit(limit)
    ).all()]
