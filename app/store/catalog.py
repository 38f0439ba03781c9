"""Inserting pipelines, predictions, results and their artifact rows.

The compute engine that would normally produce these records is outside this project; the
demo seeder (``app.synthetic.catalog``) and tests are the writers. Every function takes a Connection
(the caller owns the transaction) and inserts many rows with one ``executemany``, so
seeding hundreds of results costs a handful of round trips.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.domain import PIPELINE_KINDS
from app.store import schema


@dataclass(frozen=True)
class PipelineRow:
    """A whole pipeline row: what is inserted (``result_count`` must match the results
    inserted for it) and what the SDK's run reads return (``app.store.pipelines``)."""

    id: str
    workspace_id: str
    kind: str
    name: str | None
    status: str
    input: Any
    result_count: int
    created_at: datetime
    completed_at: datetime | None
    # False for test-mode (synthetic) pipelines, which only test keys see.
    livemode: bool = True
    # The stored part of the SDK's ``progress`` (requested totals, failed counts, phase,
    # rejection_summary); None for rows written without it.
    progress: dict | None = None
    started_at: datetime | None = None
    stopped_at: datetime | None = None
    # {code, message, details?} of a failed run.
    error: dict | None = None
    # When retention deleted its data (the row is a stub, ``app.jobs.retention``); None: not.
    data_deleted_at: datetime | None = None


@dataclass(frozen=True)
class PredictionRow:
    """A whole prediction row, inputs and outputs as JSON-able values: inserted, and read
    back by the SDK's prediction reads (``app.store.pipelines``)."""

    id: str
    workspace_id: str
    application: str
    name: str | None
    status: str
    inputs: Any
    outputs: Any
    created_at: datetime
    completed_at: datetime | None
    livemode: bool = True
    started_at: datetime | None = None
    # {code, message, details?} of a failed prediction.
    error: dict | None = None
    # When retention deleted its inputs, outputs and files (a stub); None: not.
    data_deleted_at: datetime | None = None


@dataclass(frozen=True)
class NewResult:
    """A pipeline result to insert; which fields are set depends on the pipeline kind."""

    id: str
    pipeline_id: str
    created_at: datetime
    metrics: dict
    variant: str | None = None
    entities: list | None = None
    warnings: list | None = None
    smiles: str | None = None
    adme: dict | None = None
    external_id: str | None = None


@dataclass(frozen=True)
class NewArtifact:
    """An artifact row: exactly one of ``result_id`` and ``prediction_id`` is set."""

    id: str
    role: str
    filename: str
    content_type: str
    size: int
    sha256: str
    storage_path: str
    created_at: datetime
    result_id: str | None = None
    prediction_id: str | None = None


def insert_pipelines(conn: Connection, pipelines: Iterable[PipelineRow]) -> int:
    """Insert pipelines and return how many were written.

    Raises ValueError for an unknown kind, before anything is written.
    """
    rows = [_row(p) for p in pipelines]
    for row in rows:
        if row["kind"] not in PIPELINE_KINDS:
            raise ValueError(f"unknown pipeline kind {row['kind']!r}")
    return _insert(conn, schema.pipelines, rows)


def insert_predictions(conn: Connection, predictions: Iterable[PredictionRow]) -> int:
    """Insert predictions and return how many were written."""
    return _insert(conn, schema.predictions, [_row(p) for p in predictions])


def insert_results(conn: Connection, results: Iterable[NewResult]) -> int:
    """Insert results and return how many were written."""
    return _bulk_insert(conn, schema.results, [_row(r) for r in results])


def insert_artifacts(conn: Connection, artifacts: Iterable[NewArtifact]) -> int:
    """Insert artifact rows and return how many were written.

    Raises ValueError when a row has no owner or two owners: the readers find an artifact
    through exactly one of them.
    """
    rows = [_row(a) for a in artifacts]
    for row in rows:
        if (row["result_id"] is None) == (row["prediction_id"] is None):
            raise ValueError(f"artifact {row['id']} needs exactly one of result_id, prediction_id")
    return _bulk_insert(conn, schema.artifacts, rows)


def _row(record) -> dict:
    """Return a row dataclass as the column -> value dict an insert takes.

    Shallow on purpose: ``dataclasses.asdict`` deep-copies every metrics and entity dict,
    which would dominate the time of seeding many results (``seed-demo --results``).
    """
    return dict(vars(record))


def _insert(conn: Connection, table, rows: list[dict]) -> int:
    """Insert ``rows`` into ``table`` in one executemany (nothing for an empty list)."""
    if rows:
        conn.execute(table.insert(), rows)
    return len(rows)


def _bulk_insert(conn: Connection, table, rows: list[dict]) -> int:
    """Insert ``rows`` as ``_insert`` does, with the per-row work done once per column.

    SQLAlchemy rebuilds each row's parameters through its generic machinery, a third of
    the CPU of inserting 100,000 results (``seed-demo --results``). This compiles the
    statement once and converts the values with the same bind processors of the
    connection's dialect (JSON, SQLite's datetime text), then hands the driver one
    executemany: the stored values are exactly those of ``conn.execute``.
    """
    if not rows:
        return 0
    keys = list(rows[0])
    compiled = table.insert().compile(dialect=conn.dialect, column_keys=keys)
    processors = [(key, table.c[key].type.dialect_impl(conn.dialect).bind_processor(
        conn.dialect)) for key in keys]
    if compiled.positiontup is not None:  # qmark/format drivers (SQLite): tuples in order
        order = {key: i for i, key in enumerate(compiled.positiontup)}
        processors.sort(key=lambda item: order[item[0]])
        params = [tuple(process(row[key]) if process else row[key]
                        for key, process in processors) for row in rows]
    else:  # named styles (psycopg): dicts
        params = [{key: process(row[key]) if process else row[key]
                   for key, process in processors} for row in rows]
    conn.exec_driver_sql(str(compiled), params)
    return len(rows)


# Column orders of ``insert_serialised``'s rows (the scaled demo's results and artifacts).
RESULT_COLUMNS = ("id", "pipeline_id", "created_at", "variant", "entities", "metrics",
                  "warnings", "smiles", "adme", "external_id")
ARTIFACT_COLUMNS = ("id", "result_id", "prediction_id", "role", "filename", "content_type",
                    "size", "sha256", "storage_path", "created_at")


def insert_serialised(conn: Connection, table_name: str, rows: list[tuple]) -> int:
    """Insert rows of ``results`` or ``artifacts`` given as tuples, fastest way the driver has.

    Each tuple holds the table's ``RESULT_COLUMNS`` / ``ARTIFACT_COLUMNS`` in that order,
    JSON columns already serialised as JSON text (None for SQL NULL). For generated data
    only (``seed-demo --results``): nothing is validated. PostgreSQL gets one ``COPY``
    (several times an executemany's pace); other databases one executemany with the
    dialect's own conversion of the non-JSON columns (SQLite's datetime text).
    """
    if not rows:
        return 0
    table = {"results": schema.results, "artifacts": schema.artifacts}[table_name]
    columns = RESULT_COLUMNS if table_name == "results" else ARTIFACT_COLUMNS
    if conn.dialect.name == "postgresql":
        cursor = conn.connection.driver_connection.cursor()
        # Names come from the two constants above, never from data.
        with cursor, cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        return len(rows)
    compiled = table.insert().compile(dialect=conn.dialect, column_keys=list(columns))
    converters = [(i, process) for i, key in enumerate(columns)
                  if not isinstance(table.c[key].type, sa.JSON)
                  and (process := table.c[key].type.dialect_impl(conn.dialect)
                       .bind_processor(conn.dialect))]
    if converters:
        converted = []
        for row in rows:
            values = list(row)
            for i, process in converters:
                values[i] = process(values[i])
            converted.append(tuple(values))
        rows = converted
    if compiled.positiontup is not None:  # qmark (SQLite): values in the statement's order
        where = [columns.index(key) for key in compiled.positiontup]
        if where != list(range(len(columns))):
            rows = [tuple([row[i] for i in where]) for row in rows]
        conn.exec_driver_sql(str(compiled), rows)
    else:
        conn.exec_driver_sql(str(compiled), [dict(zip(columns, row, strict=True))
                                             for row in rows])
    return len(rows)
