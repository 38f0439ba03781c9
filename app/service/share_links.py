"""Share links: create, retrieve and archive (``/compute/v1/share-links``).

Rules beyond the spec's limits, as documented in the OpenAPI descriptions:

- ``expires_at`` is an ISO 8601 date-time with a timezone, in the future, and at most
  ``MAX_LINK_LIFETIME`` (365 days) ahead.
- ``access_parameters`` omitted means ``{"access_mode": "public"}``.
- Limits count entries as sent; ids are then deduplicated keeping the first occurrence,
  addresses case-insensitively. At least one pipeline or prediction id is required.
- Workspace: an admin key uses ``workspace_id`` (an unarchived workspace of its
  organization) or the default workspace; a workspace key uses its own workspace, and a
  different ``workspace_id`` from it is a 403 (validated, not ignored).
- Test mode: a link made with a test key is a test-mode link and covers only test-mode
  ids (a live id is the same 400 as another workspace's id); keys of one mode cannot
  retrieve or archive links of the other (404). Its viewer pages say they show test data.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from email_validator import EmailNotValidError, validate_email
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from app.domain import MAX_ID_LENGTH
from app.platform import public_url
from app.platform.db import get_conn
from app.platform.timeutil import utcnow
from app.service.api import ApiBlueprint
from app.service.auth import current_key
from app.service.errors import bad_request, forbidden, not_found
from app.service.wire import Timestamp
from app.store import results as results_store
from app.store import share_links as store
from app.store import workspaces as workspace_store

log = logging.getLogger(__name__)

bp = ApiBlueprint("share_links", __name__)

MAX_LINK_LIFETIME = timedelta(days=365)
MAX_IDS = 100
MAX_EMAILS = 100

ResourceId = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]


class PublicAccess(BaseModel):
    """Anyone holding the link id can read."""

    model_config = ConfigDict(extra="forbid")

    access_mode: Literal["public"]


class EmailAccess(BaseModel):
    """Only the listed addresses can read (the reader proves one with a signed JWT)."""

    model_config = ConfigDict(extra="forbid")

    access_mode: Literal["email"]
    allowed_emails: list[str] = Field(
        description="1 to 100 addresses; deduplicated case-insensitively, "
        "syntax-checked (no deliverability check).",
    )

    @field_validator("allowed_emails")
    @classmethod
    def _check_emails(cls, values: list[str]) -> list[str]:
        if not 1 <= len(values) <= MAX_EMAILS:
            raise PydanticCustomError(
                "emails_count", "must hold 1 to 100 addresses (got {count})",
                {"count": len(values)},
            )
        normalized = []
        for value in values:
            try:
                checked = validate_email(value, check_deliverability=False)
            except EmailNotValidError:
                # Lone surrogates would break pydantic's rendering of the message: replace.
                shown = value[:320].encode("utf-8", "replace").decode()
                raise PydanticCustomError(
                    "email", "{value} is not a valid e-mail address", {"value": shown},
                ) from None
            normalized.append(checked.normalized)
        return normalized


def _access_message(error: dict) -> str:
    """Phrase one access_parameters error without the union tag in its location."""
    if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return "access_mode must be 'public' or 'email'"
    if error["type"] == "model_type":
        return "must be an object"
    where = ".".join(str(part) for part in error["loc"][1:])
    message = {"extra_forbidden": "is not a recognised field",
               "missing": "is required"}.get(error["type"], error["msg"])
    return f"{where} {message}" if where else message


AccessParameters = Annotated[PublicAccess | EmailAccess, Field(discriminator="access_mode")]


class ShareLinkCreate(BaseModel):
    """Body of ``POST /share-links``."""

    model_config = ConfigDict(extra="forbid")

    expires_at: str = Field(
        description="ISO 8601 date-time with timezone, in the future, at most 365 days ahead.",
        examples=["2026-12-31T23:59:59Z"],
    )
    access_parameters: AccessParameters | None = Field(
        default=None, description="Omitted means public."
    )
    pipeline_ids: list[ResourceId] = Field(default_factory=list, max_length=MAX_IDS)
    prediction_ids: list[ResourceId] = Field(default_factory=list, max_length=MAX_IDS)
    workspace_id: str | None = Field(
        default=None, min_length=1, max_length=MAX_ID_LENGTH,
        description="Admin keys: target workspace (default workspace when omitted). "
        "Workspace keys: must equal the key's workspace if given (403 otherwise).",
    )

    @field_validator("access_parameters", mode="wrap")
    @classmethod
    def _plain_access_errors(cls, value, handler):
        # The tagged union puts its tag in error locations ("access_parameters.email.x");
        # name the field as the client wrote it instead.
        try:
            return handler(value)
        except ValidationError as error:
            raise PydanticCustomError(
                "access", "{message}", {"message": _access_message(error.errors()[0])}
            ) from None

    @field_validator("expires_at")
    @classmethod
    def _check_expiry(cls, value: str) -> str:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise PydanticCustomError(
                "date", "must be an ISO 8601 date-time such as 2026-12-31T23:59:59Z"
            ) from None
        if parsed.tzinfo is None:
            raise PydanticCustomError("date", "must include a timezone (Z or +hh:mm)")
        now = datetime.now(UTC)
        if parsed <= now:
            raise PydanticCustomError("date", "must be in the future")
        if parsed - now > MAX_LINK_LIFETIME:
            raise PydanticCustomError("date", "must be at most 365 days in the future")
        return value

    @model_validator(mode="after")
    def _something_shared(self):
        if not self.pipeline_ids and not self.prediction_ids:
            raise PydanticCustomError(
                "empty", "pipeline_ids and prediction_ids: at least one id is required"
            )
        return self

    def expires_at_utc(self) -> datetime:
        """Return ``expires_at`` as a naive UTC datetime."""
        return datetime.fromisoformat(self.expires_at).astimezone(UTC).replace(tzinfo=None)


class PublicAccessOut(BaseModel):
    """Anyone holding the link id can read."""

    access_mode: Literal["public"]


class EmailAccessOut(BaseModel):
    """Only the listed addresses can read."""

    access_mode: Literal["email"]
    allowed_emails: list[str]


class ShareLinkOut(BaseModel):
    """A share link. ``id`` and ``url`` are secrets: whoever holds them can read."""

    id: str
    access_parameters: Annotated[PublicAccessOut | EmailAccessOut,
                                 Field(discriminator="access_mode")]
    archived_at: Timestamp | None
    created_at: Timestamp
    expires_at: Timestamp
    pipeline_ids: list[str]
    prediction_ids: list[str]
    workspace_id: str
    url: str

    @classmethod
    def from_record(cls, link: store.ShareLink) -> ShareLinkOut:
        """Build the API view of a stored link; ``url`` is ``share_url(link.id)``."""
        if link.access_mode == "email":
            access = EmailAccessOut(access_mode="email", allowed_emails=link.allowed_emails)
        else:
            access = PublicAccessOut(access_mode="public")
        return cls(id=link.id, access_parameters=access, archived_at=link.archived_at,
                   created_at=link.created_at, expires_at=link.expires_at,
                   pipeline_ids=link.pipeline_ids, prediction_ids=link.prediction_ids,
                   workspace_id=link.workspace_id, url=share_url(link.id))


class ShareLinkArchiveOut(BaseModel):
    """Archive response; ``archived_at`` is the time of the first archive call."""

    id: str
    archived: Literal[True]
    archived_at: Timestamp


def share_url(link_id: str) -> str:
    """Return the visitable URL of a link, never built from an unchecked ``Host``.

    ``FLASK_PUBLIC_URL``, or this request's host when ``FLASK_TRUSTED_HOSTS`` vouches for it
    (``app.platform.public_url``). Without either the URL is root-relative (``/share/<id>``): the
    caller pastes it after the viewer's address it knows, and a request sent with a hostile
    ``Host`` gets back nothing that names that host.
    """
    path = f"/share/{link_id}"
    try:
        return public_url.base_url() + path
    except public_url.PublicUrlMissing as missing:
        log.warning("share url is relative: %s", missing)
        return path


def _resolve_workspace(conn, requested: str | None) -> str:
    """Return the workspace a new link belongs to, per the key kind (see module doc)."""
    key = current_key()
    if key.key_type != "admin":
        if requested is not None and requested != key.workspace_id:
            raise forbidden(
                f"workspace_id: this API key is scoped to workspace {key.workspace_id}"
            )
        return key.workspace_id
    if requested is None:
        workspace = workspace_store.get_default_workspace(conn, key.organization_id)
    else:
        workspace = workspace_store.get_workspace(conn, key.organization_id, requested)
    if workspace is None:
        if requested is None:
            raise bad_request("workspace_id: the organization has no default workspace")
        raise bad_request(f"workspace_id: {requested} is not a workspace of this organization")
    if workspace.archived_at is not None:
        raise bad_request(f"workspace_id: workspace {workspace.id} is archived")
    return workspace.id


def _check_ids(conn, field: str, kind: str, workspace_id: str, ids: list[str]) -> None:
    """Refuse ids that are not in the workspace, naming the first; never say where they are.

    Only ids of the key's mode count: a live id with a test key (or the reverse) is the
    same 400 as another workspace's id.
    """
    found = results_store.existing_ids(conn, kind, workspace_id, ids,
                                       livemode=current_key().livemode)
    for value in ids:
        if value not in found:
            raise bad_request(f"{field}: {value} is not a {kind} of workspace {workspace_id}")


@bp.operation(
    "POST", "/share-links",
    summary="Create a share link", tag="Share links", auth="any",
    body=ShareLinkCreate, response=ShareLinkOut,
    description=__doc__.split("\n\n", 1)[1],
    extra_statuses=(400, 401, 403, 413),
)
def create_share_link(body: ShareLinkCreate) -> ShareLinkOut:
    """Create a link over pipelines and predictions of one workspace."""
    conn = get_conn()
    workspace_id = _resolve_workspace(conn, body.workspace_id)
    pipeline_ids = list(dict.fromkeys(body.pipeline_ids))
    prediction_ids = list(dict.fromkeys(body.prediction_ids))
    _check_ids(conn, "pipeline_ids", "pipeline", workspace_id, pipeline_ids)
    _check_ids(conn, "prediction_ids", "prediction", workspace_id, prediction_ids)
    access = body.access_parameters or PublicAccess(access_mode="public")
    link = store.create_share_link(
        conn,
        organization_id=current_key().organization_id,
        workspace_id=workspace_id,
        access_mode=access.access_mode,
        allowed_emails=getattr(access, "allowed_emails", []),
        pipeline_ids=pipeline_ids,
        prediction_ids=prediction_ids,
        expires_at=body.expires_at_utc(),
        livemode=current_key().livemode,
    )
    return ShareLinkOut.from_record(link)


def _owned_link(link_id: str) -> store.ShareLink:
    """Return the caller's link or the shared 404 (foreign, other workspace, other mode,
    unknown)."""
    key = current_key()
    link = store.get_for_owner(
        get_conn(), link_id,
        organization_id=key.organization_id,
        workspace_id=key.workspace_id if key.key_type != "admin" else None,
        livemode=key.livemode,
    )
    if link is None:
        raise not_found()
    return link


@bp.operation(
    "GET", "/share-links/<link_id>",
    summary="Retrieve a share link", tag="Share links", auth="any",
    response=ShareLinkOut,
    description="Archived and expired links are still returned. A workspace key sees only "
    "its workspace's links; anything else is 404.",
    extra_statuses=(401, 404),
)
def retrieve_share_link(link_id: str) -> ShareLinkOut:
    """Return a link owned by the caller's organization (and workspace, for workspace keys)."""
    return ShareLinkOut.from_record(_owned_link(link_id))


@bp.operation(
    "POST", "/share-links/<link_id>/archive",
    summary="Archive a share link", tag="Share links", auth="any",
    response=ShareLinkArchiveOut,
    description="Idempotent: repeated calls answer 200 with the first archived_at.",
    extra_statuses=(401, 404),
)
def archive_share_link(link_id: str) -> ShareLinkArchiveOut:
    """Archive a link; it stops granting access at once."""
    link = _owned_link(link_id)
    archived_at = store.archive(get_conn(), link, utcnow())
    return ShareLinkArchiveOut(id=link.id, archived=True, archived_at=archived_at)
