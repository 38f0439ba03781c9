"""Workspace administration: create, list, retrieve, update, archive (admin keys only).

Decisions the spec leaves open:

- ``name`` defaults to ``"Workspace"``; it is stripped and must then hold 1 to 200 chars.
- ``data_retention`` defaults to 7 days; ``value`` is a positive whole JSON number (``7``,
  not ``7.0`` or ``"7"``) of at most 14 days or 336 hours.
- ``null`` means "the default", as the OpenAPI document says: on create it is the same as
  omitting the field; on update ``"name": null`` resets the name to ``"Workspace"`` and
  ``"data_retention": null`` resets retention to 7 days. An omitted field stays unchanged.
- Archiving is irreversible and deactivates every key of the workspace in the same
  transaction. Archiving again answers the archived workspace unchanged. The default
  workspace cannot be archived (409 Conflict), and an archived workspace cannot be
  updated (409 Conflict): both requests are well-formed but clash with the state.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from app.platform.db import get_conn
from app.platform.ids import is_record_id
from app.service.api import ApiBlueprint
from app.service.auth import current_key
from app.service.errors import ApiError, not_found
from app.service.pagination import Page, PageQuery
from app.service.wire import Timestamp
from app.store import workspaces as store
from app.store.records import Workspace

bp = ApiBlueprint("workspaces", __name__)

DEFAULT_NAME = "Workspace"
DEFAULT_RETENTION = store.DEFAULT_RETENTION
MAX_RETENTION_HOURS = 14 * 24

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class DataRetention(BaseModel):
    """How long result data is kept before automatic deletion (at most 14 days)."""

    model_config = ConfigDict(strict=True, extra="forbid")

    unit: Literal["hours", "days"] = Field(description="Time unit of the retention.")
    value: int = Field(gt=0, description="Whole number of units; at most 14 days / 336 hours.")

    @field_validator("value")
    @classmethod
    def _at_most_14_days(cls, value: int, info: ValidationInfo) -> int:
        hours = value * (24 if info.data.get("unit") == "days" else 1)
        if hours > MAX_RETENTION_HOURS:
            raise PydanticCustomError(
                "retention_too_long", "must be at most 14 days (336 hours)"
            )
        return value


class WorkspaceCreate(BaseModel):
    """Body of workspace creation."""

    model_config = ConfigDict(strict=True, extra="forbid")

    name: Name | None = Field(default=None, description="1-200 characters; omitted or null: "
                              "'Workspace'.")
    data_retention: DataRetention | None = Field(default=None, description="Omitted or null: "
                                                 "7 days.")


class WorkspaceUpdate(WorkspaceCreate):
    """Body of workspace update: given fields change, omitted ones stay, null resets."""

    name: Name | None = Field(default=None, description="1-200 characters; null resets it "
                              "to 'Workspace'; omitted leaves it unchanged.")
    data_retention: DataRetention | None = Field(default=None, description="null resets it "
                                                 "to 7 days; omitted leaves it unchanged.")


class DataRetentionOut(BaseModel):
    """Retention as stored."""

    unit: Literal["hours", "days"]
    value: int


class WorkspaceOut(BaseModel):
    """A workspace record."""

    model_config = ConfigDict(extra="forbid")

    id: str
    archived_at: Timestamp | None = Field(description="When archived; null while active.")
    created_at: Timestamp
    data_retention: DataRetentionOut
    is_default: bool
    name: str
    updated_at: Timestamp

    @classmethod
    def from_record(cls, workspace: Workspace) -> WorkspaceOut:
        """Build the API view of a stored workspace."""
        return cls(
            id=workspace.id, archived_at=workspace.archived_at,
            created_at=workspace.created_at,
            data_retention=DataRetentionOut(unit=workspace.data_retention_unit,
                                            value=workspace.data_retention_value),
            is_default=workspace.is_default, name=workspace.name,
            updated_at=workspace.updated_at,
        )


class WorkspacePage(Page[WorkspaceOut]):
    """One page of workspaces, ordered by id (creation order)."""


def load_workspace(workspace_id: str) -> Workspace:
    """Return the caller's organization's workspace, or raise the shared 404."""
    if not is_record_id(workspace_id, "ws"):
        raise not_found()
    workspace = store.get_workspace(get_conn(), current_key().organization_id, workspace_id)
    if workspace is None:
        raise not_found()
    return workspace


@bp.operation("POST", "/admin/workspaces", summary="Create a workspace", tag="Workspaces",
          auth="admin", body=WorkspaceCreate, response=WorkspaceOut,
          description=__doc__.split("\n\n", 1)[1])
def create_workspace(body: WorkspaceCreate) -> WorkspaceOut:
    """Create a workspace in the caller's organization."""
    retention = body.data_retention
    workspace = store.create_workspace(
        get_conn(),
        organization_id=current_key().organization_id,
        name=body.name or DEFAULT_NAME,
        retention_unit=retention.unit if retention else DEFAULT_RETENTION[0],
        retention_value=retention.value if retention else DEFAULT_RETENTION[1],
    )
    return WorkspaceOut.from_record(workspace)


@bp.operation("GET", "/admin/workspaces", summary="List workspaces", tag="Workspaces",
          auth="admin", query=PageQuery, response=WorkspacePage,
          description="Ordered by id (creation order); archived workspaces are included.")
def list_workspaces(query: PageQuery) -> WorkspacePage:
    """List the organization's workspaces, one id-cursor page at a time."""
    items, has_more = store.list_workspaces(
        get_conn(), current_key().organization_id,
        limit=query.limit, after_id=query.after_id, before_id=query.before_id,
    )
    return WorkspacePage.of([WorkspaceOut.from_record(w) for w in items], has_more)


@bp.operation("GET", "/admin/workspaces/<workspace_id>", summary="Retrieve a workspace",
          tag="Workspaces", auth="admin", response=WorkspaceOut)
def retrieve_workspace(workspace_id: str) -> WorkspaceOut:
    """Return one workspace of the organization."""
    return WorkspaceOut.from_record(load_workspace(workspace_id))


@bp.operation("POST", "/admin/workspaces/<workspace_id>", summary="Update a workspace",
          tag="Workspaces", auth="admin", body=WorkspaceUpdate, response=WorkspaceOut,
          extra_statuses=(409,),
          description="Changes the given fields. An archived workspace cannot be updated (409).")
def update_workspace(workspace_id: str, body: WorkspaceUpdate) -> WorkspaceOut:
    """Change a workspace's name and/or data retention."""
    workspace = load_workspace(workspace_id)
    if workspace.archived_at is not None:
        raise ApiError(409, "An archived workspace cannot be updated")
    given = body.model_fields_set
    name = body.name
    if name is None and "name" in given:
        name = DEFAULT_NAME
    retention = None
    if body.data_retention is not None:
        retention = (body.data_retention.unit, body.data_retention.value)
    elif "data_retention" in given:
        retention = DEFAULT_RETENTION
    updated = store.update_workspace(get_conn(), workspace, name=name, retention=retention)
    return WorkspaceOut.from_record(updated)


@bp.operation("POST", "/admin/workspaces/<workspace_id>/archive", summary="Archive a workspace",
          tag="Workspaces", auth="admin", response=WorkspaceOut, extra_statuses=(409,),
          description="Irreversible: deactivates every API key of the workspace. Repeating "
                      "it returns the archived workspace unchanged. The default workspace "
                      "cannot be archived (409).")
def archive_workspace(workspace_id: str) -> WorkspaceOut:
    """Archive a workspace and deactivate its keys."""
    workspace = load_workspace(workspace_id)
    if workspace.is_default:
        raise ApiError(409, "The default workspace cannot be archived")
    if workspace.archived_at is None:
        workspace = store.archive_workspace(get_conn(), workspace)
    return WorkspaceOut.from_record(workspace)
