"""Workspaces: create, read, list, update and archive, always within one organization."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.platform.ids import new_id
from app.platform.timeutil import utcnow
from app.store import api_keys, schema
from app.store.paging import keyset_page
from app.store.records import Workspace, from_row

_W = schema.workspaces

# Retention of a workspace created without one (the organization's default included).
DEFAULT_RETENTION = ("days", 7)


def create_workspace(
    conn: Connection,
    *,
    organization_id: str,
    name: str,
    retention_unit: str,
    retention_value: int,
    is_default: bool = False,
) -> Workspace:
    """Create a workspace and return it (``is_default`` only with a new organization)."""
    now = utcnow()
    workspace = Workspace(
        id=new_id("ws"),
        organization_id=organization_id,
        name=name,
        is_default=is_default,
        data_retention_unit=retention_unit,
        data_retention_value=retention_value,
        created_at=now,
        updated_at=now,
        archived_at=None,
    )
    conn.execute(_W.insert().values(**workspace.__dict__))
    return workspace


def get_workspace(conn: Connection, organization_id: str, workspace_id: str) -> Workspace | None:
    """Return the organization's workspace with this id, or None (also for other orgs')."""
    row = conn.execute(
        sa.select(_W).where(_W.c.id == workspace_id, _W.c.organization_id == organization_id)
    ).first()
    return from_row(Workspace, row) if row else None


def get_default_workspace(conn: Connection, organization_id: str) -> Workspace | None:
    """Return the organization's default workspace."""
    row = conn.execute(
        sa.select(_W).where(_W.c.organization_id == organization_id, _W.c.is_default.is_(True))
    ).first()
    return from_row(Workspace, row) if row else None


def list_workspaces(
    conn: Connection,
    organization_id: str,
    *,
    limit: int,
    after_id: str | None = None,
    before_id: str | None = None,
) -> tuple[list[Workspace], bool]:
    """Return one id-ordered page of the organization's workspaces and ``has_more``."""
    query = sa.select(_W).where(_W.c.organization_id == organization_id)
    page = keyset_page(conn, query, _W.c.id, limit=limit, after_id=after_id, before_id=before_id)
    return [from_row(Workspace, row) for row in page.rows], page.has_more


def update_workspace(
    conn: Connection,
    workspace: Workspace,
    *,
    name: str | None = None,
    retention: tuple[str, int] | None = None,
) -> Workspace:
    """Change the name and/or data retention of ``workspace``; ``updated_at`` moves on."""
    values: dict = {"updated_at": utcnow()}
    if name is not None:
        values["name"] = name
    if retention is not None:
        values["data_retention_unit"], values["data_retention_value"] = retention
    conn.execute(_W.update().where(_W.c.id == workspace.id).values(**values))
    return get_workspace(conn, workspace.organization_id, workspace.id)


def archive_workspace(conn: Connection, workspace: Workspace) -> Workspace:
    """Archive ``workspace`` and deactivate all its API keys, in the caller's transaction.

    The ``archived_at IS NULL`` condition makes a repeated (or concurrent) archive a no-op
    that keeps the first ``archived_at``.
    """
    now = utcnow()
    conn.execute(
        _W.update()
        .where(_W.c.id == workspace.id, _W.c.archived_at.is_(None))
        .values(archived_at=now, updated_at=now)
    )
    api_keys.deactivate_workspace_keys(conn, workspace.id)
    return get_workspace(conn, workspace.organization_id, workspace.id)


def claim_test_data(conn: Connection, workspace_id: str, now: datetime) -> bool:
    """Mark the workspace's synthetic test-mode data as seeded; True if this call did it.

    A conditional update: of two concurrent first uses, the second waits for the first's
    row lock (PostgreSQL) or write lock (SQLite), then matches no row, so only one seeds.
    """
    result = conn.execute(
        _W.update()
        .where(_W.c.id == workspace_id, _W.c.test_data_seeded_at.is_(None))
        .values(test_data_seeded_at=now)
    )
    return result.rowcount == 1
