"""Finding pipelines and predictions for the authenticated reads of the SDK.

Lists are keyset pages by id within one workspace and one mode (live or test), served by
the ``(workspace_id, livemode, id)`` index of each table; single lookups are scoped to an
organization (through the owning workspace) and, when asked, one workspace. A row of the
other mode, kind or organization is simply not found: the caller answers the shared 404.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.store import schema
from app.store.catalog import PipelineRow, PredictionRow
from app.store.paging import keyset_page
from app.store.records import from_row


def _page(conn: Connection, table: sa.Table, kind_column: sa.Column, record: type,
          workspace_id: str, kinds: Sequence[str], livemode: bool, *, limit: int,
          after_id: str | None, before_id: str | None) -> tuple[list, bool]:
    """Return one id-ordered page of ``table``'s rows of ``kinds`` in one workspace and mode."""
    query = sa.select(table).where(table.c.workspace_id == workspace_id,
                                   table.c.livemode.is_(livemode),
                                   kind_column.in_(list(kinds)))
    page = keyset_page(conn, query, table.c.id, limit=limit, after_id=after_id,
                       before_id=before_id)
    return [from_row(record, row) for row in page.rows], page.has_more


def _find(conn: Connection, table: sa.Table, kind_column: sa.Column, record: type,
          record_id: str, *, organization_id: str, kinds: Sequence[str], livemode: bool,
          workspace_id: str | None) -> Any:
    """Return the organization's row ``record_id`` of ``kinds`` and mode, or None."""
    w = schema.workspaces
    query = (
        sa.select(table)
        .join(w, w.c.id == table.c.workspace_id)
        .where(table.c.id == record_id, w.c.organization_id == organization_id,
               table.c.livemode.is_(livemode), kind_column.in_(list(kinds)))
    )
    if workspace_id is not None:
        query = query.where(table.c.workspace_id == workspace_id)
    row = conn.execute(query).first()
    return from_row(record, row) if row else None


def list_pipelines(conn: Connection, workspace_id: str, kinds: Sequence[str], livemode: bool,
                   *, limit: int, after_id: str | None = None,
                   before_id: str | None = None) -> tuple[list[PipelineRow], bool]:
    """Return one page of the workspace's pipelines of ``kinds`` in one mode, and has_more."""
    p = schema.pipelines
    return _page(conn, p, p.c.kind, PipelineRow, workspace_id, kinds, livemode, limit=limit,
                 after_id=after_id, before_id=before_id)


def find_pipeline(conn: Connection, pipeline_id: str, *, organization_id: str,
                  kinds: Sequence[str], livemode: bool,
                  workspace_id: str | None = None) -> PipelineRow | None:
    """Return the organization's pipeline of ``kinds`` and mode (in ``workspace_id`` if given)."""
    p = schema.pipelines
    return _find(conn, p, p.c.kind, PipelineRow, pipeline_id, organization_id=organization_id,
                 kinds=kinds, livemode=livemode, workspace_id=workspace_id)


def list_predictions(conn: Connection, workspace_id: str, application: str, livemode: bool,
                     *, limit: int, after_id: str | None = None,
                     before_id: str | None = None) -> tuple[list[PredictionRow], bool]:
    """Return one page of the workspace's predictions of ``application`` in one mode."""
    p = schema.predictions
    return _page(conn, p, p.c.application, PredictionRow, workspace_id, (application,),
                 livemode, limit=limit, after_id=after_id, before_id=before_id)


def find_prediction(conn: Connection, prediction_id: str, *, organization_id: str,
                    application: str, livemode: bool,
                    workspace_id: str | None = None) -> PredictionRow | None:
    """Return the organization's prediction of ``application`` and mode, or None."""
    p = schema.predictions
    return _find(conn, p, p.c.application, PredictionRow, prediction_id,
                 organization_id=organization_id, kinds=(application,), livemode=livemode,
                 workspace_id=workspace_id)
