"""Reads of the exploration index: its columns (for a worker's frame), search, records.

Whole-set questions are answered in the worker from the columns (``index_frame``); the
store gives them out in the API's order (``position``), finds the results whose id,
external id, sequences or SMILES contain a text (``q=``: the long sequences stay here),
and hands back stored records for a page. Nothing here checks access: the views read the
link through the API first.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import sqlalchemy as sa
from pydantic_core import from_json
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from app.viewer.store.schema import index_frames, indexed_records, indexed_results

R = indexed_results.c
# Every column but the keys and the search text, in a frame's terms.
_FRAME_COLUMNS = [c for c in indexed_results.columns if c.name not in ("pipeline_id",
                                                                       "position")]


def column_chunks(conn: Connection, pipeline_id: str, chunk: int = 10_000
                  ) -> Iterator[dict[str, list]]:
    """Yield the pipeline's value columns ``chunk`` rows at a time, in the API's order.

    In chunks, so that a worker turning 100,000 rows into arrays never holds them all as
    Python objects at once.
    """
    names = [c.name for c in _FRAME_COLUMNS]
    # Primary-key order, which is the API's (its ids grow with time).
    result = conn.execution_options(yield_per=chunk).execute(
        sa.select(*_FRAME_COLUMNS).where(R.pipeline_id == pipeline_id).order_by(R.result_id))
    for rows in result.partitions(chunk):
        yield {name: list(values) for name, values in zip(names, zip(*rows, strict=True),
                                                          strict=True)}


def saved_frame(conn: Connection, pipeline_id: str) -> tuple[int, bytes] | None:
    """Return (version, data) of the index's saved frame, or None."""
    row = conn.execute(sa.select(index_frames.c.version, index_frames.c.data)
                       .where(index_frames.c.pipeline_id == pipeline_id)).first()
    return (row.version, row.data) if row else None


def saved_frame_key(conn: Connection, pipeline_id: str) -> tuple[int, int] | None:
    """Return (version, size in bytes) of the index's saved frame without reading it, or
    None (what names its mapped files on each machine, ``frame_files``)."""
    row = conn.execute(sa.select(index_frames.c.version,
                                 sa.func.length(index_frames.c.data).label("size"))
                       .where(index_frames.c.pipeline_id == pipeline_id)).first()
    return (row.version, row.size) if row else None


def save_frame(conn: Connection, pipeline_id: str, version: int, data: bytes) -> None:
    """Keep ``data`` as the frame of the index at ``version`` (replacing an older one).

    One upsert, not delete-then-insert: two workers that build the same frame at once
    (the first sorted views after a build, on PostgreSQL) both found nothing to delete,
    and the second insert failed on the primary key, a 500. A frame of an older version
    never replaces a newer one.
    """
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(index_frames).values(pipeline_id=pipeline_id,
                                                    version=version, data=data)
    conn.execute(statement.on_conflict_do_update(
        index_elements=[index_frames.c.pipeline_id],
        set_={"version": statement.excluded.version, "data": statement.excluded.data},
        where=index_frames.c.version <= statement.excluded.version))


def search_ids(conn: Connection, pipeline_id: str, text: str) -> set[str]:
    """Return the ids of results whose id, external id, sequences or SMILES hold ``text``."""
    table = indexed_records.c
    return set(conn.execute(
        sa.select(table.result_id).where(table.pipeline_id == pipeline_id)
        .where(table.search.contains(text.lower(), autoescape=True))).scalars())


def record_texts(conn: Connection, pipeline_id: str, ids: list[str]) -> dict[str, str]:
    """Return the stored records of ``ids`` as JSON text, by id (missing ones absent):
    exports parse a whole chunk of them in one call."""
    if not ids:
        return {}
    return dict(conn.execute(
        sa.select(indexed_records.c.result_id, indexed_records.c.record)
        .where(indexed_records.c.pipeline_id == pipeline_id)
        .where(indexed_records.c.result_id.in_(ids))
    ).all())


def ordered_record_texts(conn: Connection, pipeline_id: str, chunk: int = 5_000
                         ) -> Iterator[Sequence[tuple[str, str]]]:
    """Yield the pipeline's stored records as (id, JSON text) rows, ``chunk`` at a time, in
    the API's order (a frame's row order: ``column_chunks``): one scan, no lookup per id
    (the driver's rows as they come: a tuple made of each cost a tenth of the scan)."""
    result = conn.execution_options(yield_per=chunk).execute(
        sa.select(indexed_records.c.result_id, indexed_records.c.record)
        .where(indexed_records.c.pipeline_id == pipeline_id)
        .order_by(indexed_records.c.result_id))
    yield from result.tuples().partitions(chunk)


def records(conn: Connection, pipeline_id: str, ids: list[str]) -> list[dict]:
    """Return the stored records of ``ids``, in that order (missing ones skipped)."""
    found = record_texts(conn, pipeline_id, ids)
    texts = [found[rid] for rid in ids if rid in found]
    # One parse of the page as a JSON array (pydantic-core): several times json.loads's pace.
    return from_json("[" + ",".join(texts) + "]") if texts else []


def first_records(conn: Connection, pipeline_id: str, count: int) -> list[dict]:
    """Return the stored records of the pipeline's first ``count`` results (by id)."""
    ids = list(conn.execute(
        sa.select(indexed_records.c.result_id)
        .where(indexed_records.c.pipeline_id == pipeline_id)
        .order_by(indexed_records.c.result_id).limit(count)).scalars())
    return records(conn, pipeline_id, ids)
