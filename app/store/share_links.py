"""Share links: creation, lookup for the owning organization, the live-link gate, archiving.

A link's covered pipelines and predictions live in ``share_link_resources`` and its
allowed addresses in ``share_link_emails``, both with a ``position`` so that they come
back in the order they were registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.platform.ids import new_secret_id
from app.platform.timeutil import to_db_millis, utcnow
from app.store import schema

ACCESS_MODES = ("public", "email")


@dataclass(frozen=True)
class ShareLink:
    """A share link with its covered ids and allowed addresses, in registered order."""

    id: str
    organization_id: str
    workspace_id: str
    access_mode: str
    allowed_emails: list[str]
    pipeline_ids: list[str]
    prediction_ids: list[str]
    created_at: datetime
    expires_at: datetime
    archived_at: datetime | None
    # Created with a test key: covers only test-mode ids.
    livemode: bool = True


def create_share_link(
    conn: Connection,
    *,
    organization_id: str,
    workspace_id: str,
    access_mode: str,
    allowed_emails: list[str],
    pipeline_ids: list[str],
    prediction_ids: list[str],
    expires_at: datetime,
    livemode: bool = True,
) -> ShareLink:
    """Insert a share link and return it.

    The caller has validated everything (ids exist in the workspace and in the link's
    mode, ``livemode``; limits; expiry in the future); this function only deduplicates
    (ids exactly, addresses case-insensitively, first occurrence kept) so that direct
    callers such as the demo seeder cannot store duplicates either. ``expires_at`` is
    naive UTC (an aware value is converted).
    """
    if access_mode not in ACCESS_MODES:
        raise ValueError(f"access_mode must be one of {ACCESS_MODES}")
    emails = _dedupe(allowed_emails, key=str.lower) if access_mode == "email" else []
    pipelines = _dedupe(pipeline_ids)
    predictions = _dedupe(prediction_ids)
    link = ShareLink(
        id=new_secret_id("sl_"),
        organization_id=organization_id,
        workspace_id=workspace_id,
        access_mode=access_mode,
        allowed_emails=emails,
        pipeline_ids=pipelines,
        prediction_ids=predictions,
        created_at=utcnow(),
        expires_at=to_db_millis(expires_at),
        archived_at=None,
        livemode=livemode,
    )
    conn.execute(
        schema.share_links.insert().values(
            id=link.id,
            organization_id=organization_id,
            workspace_id=workspace_id,
            access_mode=access_mode,
            created_at=link.created_at,
            expires_at=link.expires_at,
            archived_at=None,
            livemode=livemode,
        )
    )
    _insert_children(conn, link)
    return link


def _insert_children(conn: Connection, link: ShareLink) -> None:
    """Insert the link's resources and addresses, each list in its given order."""
    resources = [("pipeline", rid) for rid in link.pipeline_ids] + [
        ("prediction", rid) for rid in link.prediction_ids
    ]
    if resources:
        conn.execute(
            schema.share_link_resources.insert(),
            [
                {"share_link_id": link.id, "position": i, "resource_type": kind,
                 "resource_id": rid}
                for i, (kind, rid) in enumerate(resources)
            ],
        )
    if link.allowed_emails:
        conn.execute(
            schema.share_link_emails.insert(),
            [
                {"share_link_id": link.id, "position": i, "email": email,
                 "email_normalized": email.lower()}
                for i, email in enumerate(link.allowed_emails)
            ],
        )


def _dedupe(values: list[str], key=lambda value: value) -> list[str]:
    """Return ``values`` without repeats (by ``key``), keeping first occurrences in order."""
    seen: set[str] = set()
    kept = []
    for value in values:
        if key(value) not in seen:
            seen.add(key(value))
            kept.append(value)
    return kept


def _load(conn: Connection, row) -> ShareLink:
    """Complete a ``share_links`` row with its resources and addresses."""
    r, e = schema.share_link_resources, schema.share_link_emails
    resources = conn.execute(
        sa.select(r.c.resource_type, r.c.resource_id)
        .where(r.c.share_link_id == row.id)
        .order_by(r.c.position)
    ).all()
    emails: list[str] = []
    if row.access_mode == "email":  # a public link has no addresses: skip the round trip
        emails = conn.execute(
            sa.select(e.c.email).where(e.c.share_link_id == row.id).order_by(e.c.position)
        ).scalars().all()
    return ShareLink(
        id=row.id,
        organization_id=row.organization_id,
        workspace_id=row.workspace_id,
        access_mode=row.access_mode,
        allowed_emails=list(emails),
        pipeline_ids=[rid for kind, rid in resources if kind == "pipeline"],
        prediction_ids=[rid for kind, rid in resources if kind == "prediction"],
        created_at=row.created_at,
        expires_at=row.expires_at,
        archived_at=row.archived_at,
        livemode=row.livemode,
    )


def get_for_owner(
    conn: Connection, link_id: str, *, organization_id: str, workspace_id: str | None = None,
    livemode: bool | None = None,
) -> ShareLink | None:
    """Return the link if ``organization_id`` owns it (and it is in ``workspace_id`` and of
    mode ``livemode``, each if given).

    Archived and expired links are returned too: their metadata stays retrievable.
    """
    s = schema.share_links
    query = sa.select(s).where(s.c.id == link_id, s.c.organization_id == organization_id)
    if livemode is not None:
        query = query.where(s.c.livemode == livemode)
    if workspace_id is not None:
        query = query.where(s.c.workspace_id == workspace_id)
    row = conn.execute(query).first()
    return _load(conn, row) if row else None


def get_live(conn: Connection, link_id: str, now: datetime | None = None) -> ShareLink | None:
    """Return the link if it grants access now: not archived, not expired, workspace live."""
    s, w = schema.share_links, schema.workspaces
    now = now or utcnow()
    row = conn.execute(
        sa.select(s)
        .select_from(s.join(w, s.c.workspace_id == w.c.id))
        .where(
            s.c.id == link_id,
            s.c.archived_at.is_(None),
            s.c.expires_at > now,
            w.c.archived_at.is_(None),
        )
    ).first()
    return _load(conn, row) if row else None


def archive(conn: Connection, link: ShareLink, now: datetime | None = None) -> datetime:
    """Archive ``link`` and return its ``archived_at``; the first archive time is kept.

    The update only touches a row whose ``archived_at`` is null, so two concurrent
    archive calls cannot overwrite each other's time.
    """
    s = schema.share_links
    conn.execute(
        s.update()
        .where(s.c.id == link.id, s.c.archived_at.is_(None))
        .values(archived_at=now or utcnow())
    )
    return conn.execute(sa.select(s.c.archived_at).where(s.c.id == link.id)).scalar_one()

