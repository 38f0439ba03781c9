"""Which workspace an authenticated read of runs covers, and the query models of those reads.

- A workspace key reads its own workspace; a ``workspace_id`` naming another one is a 403
  (validated, not ignored, as share-link creation does).
- An admin key lists the workspace named by ``workspace_id`` (any workspace of its
  organization, archived ones included; anything else is a 400) or, without it, the
  organization's default workspace, as the SDK documents. Retrieving one run (and its
  results) searches the whole organization, or only ``workspace_id`` when it is given.
- A key sees only its own mode: a test key test-mode runs, a live key live ones. A run of
  another mode, workspace, organization or resource is the shared 404.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.domain import MAX_ID_LENGTH
from app.platform.db import get_conn
from app.platform.ids import is_record_id
from app.service.auth import current_key
from app.service.errors import bad_request, forbidden
from app.service.pagination import PageQuery
from app.service.share_read import ShareResultsQuery
from app.store import workspaces as workspace_store

WORKSPACE_ID = Field(
    default=None, min_length=1, max_length=MAX_ID_LENGTH, pattern=r"^[A-Za-z0-9_\-]+$",
    description="Admin keys: the workspace to read (lists default to the default workspace; "
    "retrieval searches the organization). Workspace keys: must be the key's own workspace "
    "if given (403 otherwise).",
)


class RunQuery(BaseModel):
    """``workspace_id`` of a retrieval."""

    model_config = ConfigDict(extra="ignore")

    workspace_id: str | None = WORKSPACE_ID


class RunListQuery(PageQuery):
    """Paging of runs (default limit 20, at most 1000) and ``workspace_id``."""

    workspace_id: str | None = WORKSPACE_ID


class RunResultsQuery(ShareResultsQuery):
    """Paging of a run's results (default limit 100), the ``ids`` filter, ``workspace_id``."""

    workspace_id: str | None = WORKSPACE_ID


def list_workspace(requested: str | None) -> str:
    """Return the workspace a list covers for this key (see the module docstring)."""
    key = current_key()
    if key.key_type != "admin":
        _same_workspace(requested)
        return key.workspace_id
    conn = get_conn()
    if requested is None:
        workspace = workspace_store.get_default_workspace(conn, key.organization_id)
        if workspace is None:
            raise bad_request("workspace_id: the organization has no default workspace")
        return workspace.id
    workspace = None
    if is_record_id(requested, "ws"):
        workspace = workspace_store.get_workspace(conn, key.organization_id, requested)
    if workspace is None:
        raise bad_request("workspace_id: no such workspace")
    return workspace.id


def retrieve_workspace(requested: str | None) -> str | None:
    """Return the workspace a retrieval is limited to, or None for the whole organization."""
    key = current_key()
    if key.key_type != "admin":
        _same_workspace(requested)
        return key.workspace_id
    return requested


def _same_workspace(requested: str | None) -> None:
    """Refuse a workspace key's ``workspace_id`` naming another workspace (403)."""
    key = current_key()
    if requested is not None and requested != key.workspace_id:
        raise forbidden(f"workspace_id: this API key is scoped to workspace {key.workspace_id}")
