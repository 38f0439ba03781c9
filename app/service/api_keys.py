"""API-key administration: create, list, revoke (admin keys only).

Keys created here are workspace keys (the SDK expects ``key_type: "workspace"``); the
admin key of an organization comes with the organization (``flask create-org``). The full
key appears once, in the create response; records carry only ``key_prefix``.

Rules: ``name`` 1-200 characters after stripping; ``allowed_ips`` at most 100 IPv4/IPv6
addresses (not networks), normalised (``2001:DB8::0:1`` is stored as ``2001:db8::1``,
``::ffff:10.0.0.1`` as ``10.0.0.1``) and deduplicated; ``expires_in_days`` a whole number
1-3650; ``workspace_id`` an unarchived workspace of the organization (default: the
default workspace). Revoking is idempotent; the organization's last active admin key
cannot be revoked (409), since only an admin key can make keys.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator
from pydantic_core import PydanticCustomError

from app.platform.db import get_conn
from app.platform.ids import is_record_id
from app.platform.timeutil import utcnow
from app.service.api import ApiBlueprint
from app.service.auth import current_key, normalise_ip
from app.service.errors import ApiError, bad_request, not_found
from app.service.pagination import OWN_ID_FILTER, Page, PageQuery
from app.service.wire import Timestamp
from app.store import api_keys as store
from app.store import workspaces as workspace_store
from app.store.records import ApiKey

bp = ApiBlueprint("api_keys", __name__)

MAX_ALLOWED_IPS = 100
MAX_EXPIRES_IN_DAYS = 3650


class ApiKeyCreate(BaseModel):
    """Body of API-key creation."""

    model_config = ConfigDict(strict=True, extra="forbid")

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    allowed_ips: list[str] = Field(
        default_factory=list, max_length=MAX_ALLOWED_IPS,
        description="IPv4/IPv6 addresses allowed to use the key; empty means all.",
    )
    expires_in_days: int | None = Field(
        default=None, ge=1, le=MAX_EXPIRES_IN_DAYS,
        description="Days until the key expires (1-3650); omit for no expiry.",
    )
    mode: Literal["live", "test"] = Field(default="live", description="test keys: livemode false.")
    workspace_id: str | None = Field(default=None, description="Omit for the default workspace.")

    @field_validator("allowed_ips")
    @classmethod
    def _valid_addresses(cls, values: list[str]) -> list[str]:
        normalised: list[str] = []
        for index, value in enumerate(values):
            try:
                address = normalise_ip(value)
            except ValueError:
                raise PydanticCustomError(
                    "ip_address", "entry {index} is not an IPv4 or IPv6 address",
                    {"index": index},
                ) from None
            if address not in normalised:
                normalised.append(address)
        return normalised


class ApiKeyOut(BaseModel):
    """An API key record; the key itself and its hash are never included."""

    model_config = ConfigDict(extra="forbid")

    id: str
    allowed_ips: list[str]
    created_at: Timestamp
    expires_at: Timestamp | None
    is_active: bool
    key_prefix: str = Field(description="First 12 characters of the key.")
    key_type: Literal["admin", "workspace"]
    last_used_at: Timestamp | None = Field(description="Recorded with one-minute resolution.")
    livemode: bool
    name: str
    workspace_id: str | None = Field(description="Null for admin keys.")

    @classmethod
    def from_record(cls, key: ApiKey) -> ApiKeyOut:
        """Build the API view of a stored key."""
        return cls(id=key.id, allowed_ips=key.allowed_ips, created_at=key.created_at,
                   expires_at=key.expires_at, is_active=key.is_active,
                   key_prefix=key.key_prefix, key_type=key.key_type,
                   last_used_at=key.last_used_at, livemode=key.livemode, name=key.name,
                   workspace_id=key.workspace_id)


class ApiKeyCreated(BaseModel):
    """The create response: the full key (shown only here) and its record."""

    model_config = ConfigDict(extra="forbid")

    key: str
    key_details: ApiKeyOut


class ApiKeyListQuery(PageQuery):
    """Paging of API keys, optionally only those of one workspace."""

    workspace_id: str | None = OWN_ID_FILTER


class ApiKeyPage(Page[ApiKeyOut]):
    """One page of API keys, ordered by id (creation order)."""


def _target_workspace(organization_id: str, workspace_id: str | None):
    """Resolve the workspace a new key is scoped to, or raise a 400 naming the field."""
    conn = get_conn()
    if workspace_id is None:
        return workspace_store.get_default_workspace(conn, organization_id)
    workspace = None
    if is_record_id(workspace_id, "ws"):
        workspace = workspace_store.get_workspace(conn, organization_id, workspace_id)
    if workspace is None:
        raise bad_request("workspace_id: no such workspace")
    if workspace.archived_at is not None:
        raise bad_request("workspace_id: the workspace is archived")
    return workspace


@bp.operation("POST", "/admin/api-keys", summary="Create an API key", tag="API keys",
          auth="admin", body=ApiKeyCreate, response=ApiKeyCreated,
          description=__doc__.split("\n\n", 1)[1])
def create_api_key(body: ApiKeyCreate) -> ApiKeyCreated:
    """Create a workspace key and return it once."""
    organization_id = current_key().organization_id
    workspace = _target_workspace(organization_id, body.workspace_id)
    expires_at = None
    if body.expires_in_days is not None:
        expires_at = utcnow() + timedelta(days=body.expires_in_days)
    record, full_key = store.create_api_key(
        get_conn(),
        organization_id=organization_id,
        workspace_id=workspace.id,
        key_type="workspace",
        name=body.name,
        allowed_ips=body.allowed_ips,
        expires_at=expires_at,
        livemode=body.mode == "live",
    )
    return ApiKeyCreated(key=full_key, key_details=ApiKeyOut.from_record(record))


@bp.operation("GET", "/admin/api-keys", summary="List API keys", tag="API keys", auth="admin",
          query=ApiKeyListQuery, response=ApiKeyPage,
          description="Ordered by id. Without workspace_id, keys of every workspace and the "
                      "organization's admin keys are listed.")
def list_api_keys(query: ApiKeyListQuery) -> ApiKeyPage:
    """List the organization's keys, one id-cursor page at a time."""
    items, has_more = store.list_api_keys(
        get_conn(), current_key().organization_id, workspace_id=query.workspace_id,
        limit=query.limit, after_id=query.after_id, before_id=query.before_id,
    )
    return ApiKeyPage.of([ApiKeyOut.from_record(k) for k in items], has_more)


@bp.operation("POST", "/admin/api-keys/<api_key_id>/revoke", summary="Revoke an API key",
          tag="API keys", auth="admin", response=ApiKeyOut, extra_statuses=(409,),
          description="Deactivates the key at once; repeating it is harmless. The "
                      "organization's last active admin key cannot be revoked (409).")
def revoke_api_key(api_key_id: str) -> ApiKeyOut:
    """Deactivate a key of the organization."""
    key = None
    if is_record_id(api_key_id, "key"):
        key = store.get_api_key(get_conn(), current_key().organization_id, api_key_id)
    if key is None:
        raise not_found()
    if (key.key_type == "admin" and key.is_active
            and store.count_active_admin_keys(get_conn(), key.organization_id) <= 1):
        # Keys are only made with an admin key: revoking the last one locks the org out.
        raise ApiError(409, "The organization's last active admin key cannot be revoked")
    return ApiKeyOut.from_record(store.revoke_api_key(get_conn(), key))
