"""Reading pipelines, predictions, their results and artifact files.

Everything here is read-only: creation belongs to the compute engine (and, here, the demo
seeder). Results pages are keyset pages over the ``(pipeline_id, id)`` index; the
artifacts of a whole page come back from one query.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.store import schema
from app.store.catalog import PipelineRow, PredictionRow
from app.store.paging import Page, keyset_page
from app.store.records import field_names, from_row


@dataclass(frozen=True)
class Pipeline:
    """A pipeline: its result kind, status and how many results it holds."""

    id: str
    workspace_id: str
    kind: str
    name: str | None
    status: str
    result_count: int
    created_at: datetime
    # Live or test mode; a test key sees only test-mode (False) rows.
    livemode: bool = True
    # Set when retention deleted its data: a stub without results (``app.jobs.retention``).
    data_deleted_at: datetime | None = None


@dataclass(frozen=True)
class Result:
    """One pipeline result; which fields are set depends on the pipeline's kind."""

    id: str
    pipeline_id: str
    created_at: datetime
    variant: str | None
    entities: Any
    metrics: Any
    warnings: Any
    smiles: str | None
    adme: Any
    external_id: str | None


@dataclass(frozen=True)
class Artifact:
    """A stored file owned by a result or a prediction."""

    id: str
    result_id: str | None
    prediction_id: str | None
    role: str
    filename: str
    content_type: str
    size: int
    sha256: str
    storage_path: str
    created_at: datetime


_TABLES = {"pipeline": schema.pipelines, "prediction": schema.predictions}


def existing_ids(conn: Connection, kind: str, workspace_id: str, ids: list[str], *,
                 livemode: bool) -> set[str]:
    """Return which of ``ids`` are pipelines (``kind="pipeline"``) or predictions of the
    workspace in that mode (live or test), in one query.

    An id of the other mode is not found, exactly like another workspace's: a test key
    cannot share live results, nor a live key synthetic ones. Nor is a stub whose data
    retention deleted: a new link to it would share nothing.
    """
    if not ids:
        return set()
    table = _TABLES[kind]
    return set(
        conn.execute(
            sa.select(table.c.id).where(table.c.workspace_id == workspace_id,
                                        table.c.livemode == livemode,
                                        table.c.data_deleted_at.is_(None),
                                        table.c.id.in_(ids))
        ).scalars()
    )


def _in_order(conn: Connection, table: sa.Table, record: type, workspace_id: str,
              ids: list[str]) -> list:
    """Return the workspace's rows of ``table`` among ``ids``, as ``record``, in ``ids`` order.

    Ids that no longer exist (deleted by retention) or belong elsewhere are skipped.
    ``record`` names table columns only: they are selected in its field order and each
    row is built positionally (a third of the cost of mapping names, ``from_row``).
    """
    if not ids:
        return []
    rows = conn.execute(_in_order_query(table, record),
                        {"workspace_id": workspace_id, "ids": list(ids)})
    found = {row[0]: record(*row) for row in rows}
    return [found[i] for i in ids if i in found]


@cache
def _in_order_query(table: sa.Table, record: type, latest: bool = False) -> sa.Select:
    """Return the select of ``record``'s columns of ``table`` rows in a workspace by id.

    Built once: constructing a select of fifteen columns costs more than SQLite running
    it, on every share read. ``latest`` adds the pipeline's latest result id.
    """
    columns = [table.c[name] for name in field_names(record)]
    if latest:
        columns.append(_latest_result_id(table.c.id))
    return sa.select(*columns).where(table.c.workspace_id == sa.bindparam("workspace_id"),
                                     table.c.id.in_(sa.bindparam("ids", expanding=True)))


def _latest_result_id(pipeline_id: sa.ColumnElement) -> sa.ScalarSelect:
    """Return the scalar subquery of a pipeline's largest result id (null: no results).

    Correlated on purpose: each is one seek at the end of the pipeline's stretch of the
    ``(pipeline_id, id)`` index (SQLite's and PostgreSQL's min/max optimisation), where a
    grouped ``max`` over ``pipeline_id IN (...)`` reads every result of every pipeline.
    """
    r = schema.results
    return (sa.select(sa.func.max(r.c.id)).where(r.c.pipeline_id == pipeline_id)
            .scalar_subquery())


def pipelines_in_order(conn: Connection, workspace_id: str,
                       ids: list[str]) -> list[tuple[PipelineRow, str | None]]:
    """Return the workspace's whole pipeline rows among ``ids`` in the order of ``ids``,
    each with its latest result id (the SDK's ``progress.latest_result_id``), in one query.

    Whole rows: the share read answers each as its full run record. Ids that
    no longer exist (deleted by retention) or belong elsewhere are skipped.
    """
    if not ids:
        return []
    # The row's columns in the dataclass's field order: each row is then built
    # positionally, a third of the cost of mapping names (``from_row``).
    rows = conn.execute(_in_order_query(schema.pipelines, PipelineRow, latest=True),
                        {"workspace_id": workspace_id, "ids": list(ids)})
    found = {row[0]: (PipelineRow(*row[:-1]), row[-1]) for row in rows}
    return [found[i] for i in ids if i in found]


def predictions_in_order(
    conn: Connection, workspace_id: str, ids: list[str]
) -> list[PredictionRow]:
    """Return the workspace's whole prediction rows among ``ids`` in the order of ``ids``."""
    return _in_order(conn, schema.predictions, PredictionRow, workspace_id, ids)


def latest_result_ids(conn: Connection, pipeline_ids: Iterable[str]) -> dict[str, str]:
    """Return ``{pipeline id: its largest result id}`` for many pipelines, in one query.

    Result ids grow with creation (and are the results' page order), so the largest is
    the SDK's ``progress.latest_result_id``. A pipeline without results is left out. One
    index seek per pipeline (see ``_latest_result_id``).
    """
    ids = list(dict.fromkeys(pipeline_ids))
    if not ids:
        return {}
    p = schema.pipelines
    query = sa.select(p.c.id, _latest_result_id(p.c.id)).where(p.c.id.in_(ids))
    return {pipeline_id: latest for pipeline_id, latest in conn.execute(query)
            if latest is not None}


def get_pipeline(conn: Connection, workspace_id: str, pipeline_id: str) -> Pipeline | None:
    """Return the pipeline if it belongs to ``workspace_id``."""
    p = schema.pipelines
    row = conn.execute(
        sa.select(p).where(p.c.id == pipeline_id, p.c.workspace_id == workspace_id)
    ).first()
    return from_row(Pipeline, row) if row else None


# The JSON columns of a result as the stored text: a results page is written from them
# without parsing and re-encoding each (``app.service.result_wire``). A cast, not a type
# coercion: psycopg would otherwise parse ``json`` columns itself.
_RAW_RESULT_COLUMNS = tuple(
    sa.cast(column, sa.Text).label(name) if isinstance(column.type, sa.JSON) else column
    for name, column in ((name, schema.results.c[name]) for name in field_names(Result)))


def results_page(
    conn: Connection,
    pipeline_id: str,
    *,
    limit: int,
    after_id: str | None = None,
    before_id: str | None = None,
    ids: list[str] | None = None,
    raw: bool = False,
) -> Page:
    """Return one keyset page of the pipeline's results as ``Result`` records.

    ``ids`` filters in SQL before the page is cut (``id IN (...)`` plus the cursor), so a
    filtered walk pages over matching results only. ``raw``: the JSON fields as the stored
    JSON text (``None`` for SQL NULL), so ``entities``, ``metrics``, ``warnings`` and
    ``adme`` are strings (``app.service.result_wire`` writes a page from them).
    """
    query = sa.select(*_RAW_RESULT_COLUMNS) if raw else sa.select(schema.results)
    return _page(conn, query, pipeline_id, limit=limit, after_id=after_id,
                 before_id=before_id, ids=ids)


def _page(conn: Connection, query: sa.Select, pipeline_id: str, *, limit: int,
          after_id: str | None, before_id: str | None, ids: list[str] | None) -> Page:
    """One keyset page of ``query`` (the result columns, in ``Result``'s field order)."""
    r = schema.results
    query = query.where(r.c.pipeline_id == pipeline_id)
    if ids is not None:
        query = query.where(r.c.id.in_(ids))
    page = keyset_page(conn, query, r.c.id, limit=limit, after_id=after_id,
                       before_id=before_id)
    return Page(rows=[Result(*row) for row in page.rows], has_more=page.has_more)


@dataclass(frozen=True)
class ArtifactFile:
    """What presigning a file needs: its id, where it is stored, its name and type."""

    id: str
    storage_path: str
    filename: str
    content_type: str


def artifact_files_for_results(conn: Connection,
                               result_ids: Iterable[str]) -> dict[str, dict[str, ArtifactFile]]:
    """Return ``{result id: {role: ArtifactFile}}`` for many results, in one query.

    A results page only names each file's role and presigns it: reading just those
    columns, without building whole ``Artifact`` records, cost a sixth of the full rows.
    Should a result hold two files of one role, the later (larger id) is named.
    """
    ids = list(result_ids)
    if not ids:
        return {}
    a = schema.artifacts
    grouped: dict[str, dict[str, ArtifactFile]] = {}
    query = sa.select(a.c.result_id, a.c.role, a.c.id, a.c.storage_path, a.c.filename,
                      a.c.content_type).where(a.c.result_id.in_(ids))
    for result_id, role, *file in conn.execute(query.order_by(a.c.id)):
        grouped.setdefault(result_id, {})[role] = ArtifactFile(*file)
    return grouped


def artifact_files_for_predictions(
    conn: Connection, prediction_ids: Iterable[str]
) -> dict[str, dict[str, ArtifactFile]]:
    """Return ``{prediction id: {role: ArtifactFile}}`` for many predictions, in one query.

    What presigning needs only, as ``artifact_files_for_results`` (half the cost of whole
    ``Artifact`` rows in the share read). Should a prediction hold two files of one role,
    the later (larger id) is named.
    """
    ids = list(prediction_ids)
    if not ids:
        return {}
    a = schema.artifacts
    grouped: dict[str, dict[str, ArtifactFile]] = {}
    query = sa.select(a.c.prediction_id, a.c.role, a.c.id, a.c.storage_path, a.c.filename,
                      a.c.content_type).where(a.c.prediction_id.in_(ids))
    for prediction_id, role, *file in conn.execute(query.order_by(a.c.id)):
        grouped.setdefault(prediction_id, {})[role] = ArtifactFile(*file)
    return grouped


def get_artifact(conn: Connection, artifact_id: str) -> Artifact | None:
    """Return one artifact by id."""
    a = schema.artifacts
    row = conn.execute(sa.select(a).where(a.c.id == artifact_id)).first()
    return from_row(Artifact, row) if row else None
