"""Usage report: billed quantities summed per UTC hour or day (admin keys only).

Decisions the spec leaves open:

- ``starting_at``/``ending_at`` are ISO 8601 date-times with a timezone (naive is a 400);
  the range is ``[starting_at, ending_at)`` and must be non-empty and at most 31 days
  (``HOUR``) or 365 days (``DAY``).
- Buckets are aligned to UTC hours/days. A bucket whose hour/day is only partly inside
  the range is clipped to it, so ``start_time``/``end_time`` always say exactly which
  records were counted and the buckets of a walk add up to the range's total.
- Only buckets holding usage are returned: a missing bucket means zero. (Filling gaps
  would invent a row for every workspace x application x bucket once grouped.)
- Order: ``start_time``, then ``application``, then ``workspace_id``.
- ``limit`` defaults to 100 and may be 1-1000. ``page`` is an opaque cursor, HMAC-signed
  with a key derived from ``SECRET_KEY`` and bound to the organization and every query
  parameter except ``limit``: a forged, altered or foreign cursor is a 400.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from flask import current_app
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from app import domain
from app.platform.db import get_conn
from app.platform.settings import setting
from app.service.api import ApiBlueprint
from app.service.auth import current_key
from app.service.errors import bad_request
from app.service.wire import Timestamp, omitted_if_none
from app.store import usage as store

bp = ApiBlueprint("usage", __name__)

# The applications of app.domain, in the usage API's order (the OpenAPI enum).
Application = Literal[tuple(domain.APPLICATIONS)]
WINDOWS = {"HOUR": 3600, "DAY": 86400}
MAX_RANGE = {"HOUR": timedelta(days=31), "DAY": timedelta(days=365)}
MAX_FILTER_VALUES = 100
# "+00:00" arrives as " 00:00" when a client forgets to percent-encode the plus sign.
_UNENCODED_PLUS = re.compile(r" (\d\d:?\d\d)$")


def parse_aware_datetime(value: object) -> datetime:
    """Parse an ISO 8601 date-time that carries a timezone; raise a pydantic error."""
    if isinstance(value, str):
        for text in (value, _UNENCODED_PLUS.sub(r"+\1", value)):
            try:
                parsed = datetime.fromisoformat(text)
            except ValueError:
                continue
            if parsed.tzinfo is not None:
                try:
                    return parsed.astimezone(UTC)
                except OverflowError:  # e.g. 0001-01-01T00:00:00+01:00 is before year 1 in UTC
                    raise PydanticCustomError("aware_datetime", "is out of range") from None
    raise PydanticCustomError(
        "aware_datetime", "must be an ISO 8601 date-time with a timezone, e.g. 2026-04-08T18:00:00Z"
    )


class UsageQuery(BaseModel):
    """Query of the usage report; ``[]`` parameters take one value or many."""

    model_config = ConfigDict(extra="ignore")

    starting_at: datetime = Field(
        description="Start (inclusive), ISO 8601 with timezone.", examples=["2026-04-01T00:00:00Z"]
    )
    ending_at: datetime = Field(
        description="End (exclusive), ISO 8601 with timezone.", examples=["2026-04-02T00:00:00Z"]
    )
    window_size: Literal["HOUR", "DAY"] = Field(
        description="Bucket size; HOUR covers at most 31 days, DAY at most 365.", examples=["HOUR"]
    )
    applications: list[Application] = Field(
        default_factory=list, alias="applications[]", max_length=MAX_FILTER_VALUES,
        description="Only these applications.",
    )
    workspace_ids: list[Annotated[str, StringConstraints(min_length=1, max_length=64)]] = Field(
        default_factory=list, alias="workspace_ids[]", max_length=MAX_FILTER_VALUES,
        description="Only these workspaces.",
    )
    group_by: list[Literal["workspace_id", "application"]] = Field(
        default_factory=list, alias="group_by[]", max_length=2,
        description="Split buckets by workspace_id and/or application.",
    )
    limit: int = Field(default=100, ge=1, le=1000, description="Buckets per page (1-1000).")
    page: str | None = Field(default=None, max_length=1000,
                             description="Cursor from a previous next_page.")

    @field_validator("starting_at", "ending_at", mode="before")
    @classmethod
    def _aware(cls, value: object) -> datetime:
        return parse_aware_datetime(value)

    @model_validator(mode="after")
    def _valid_range(self):
        if self.ending_at <= self.starting_at:
            raise PydanticCustomError("range", "ending_at must be after starting_at")
        if self.ending_at - self.starting_at > MAX_RANGE[self.window_size]:
            days = MAX_RANGE[self.window_size].days
            raise PydanticCustomError(
                "range", "the range may span at most {days} days with window_size {window}",
                {"days": days, "window": self.window_size},
            )
        return self


class UsageBucket(BaseModel):
    """Summed quantity of one bucket (and group, when grouped)."""

    model_config = ConfigDict(extra="forbid")

    start_time: Timestamp
    end_time: Timestamp
    quantity: int
    application: Application | None = omitted_if_none("When grouped by it.")
    workspace_id: str | None = omitted_if_none("When grouped by it.")

    @classmethod
    def from_row(cls, row: dict, query: UsageQuery) -> UsageBucket:
        """Build a bucket from a store row, clipped to the requested range."""
        start = datetime.fromtimestamp(row["bucket"], UTC)
        end = start + timedelta(seconds=WINDOWS[query.window_size])
        return cls(start_time=max(start, query.starting_at),
                   end_time=min(end, query.ending_at), quantity=row["quantity"],
                   application=row.get("application") if "application" in query.group_by
                   else None,
                   workspace_id=row.get("workspace_id") if "workspace_id" in query.group_by
                   else None)


class UsagePage(BaseModel):
    """One page of buckets; pass ``next_page`` as ``page`` for the next one."""

    model_config = ConfigDict(extra="forbid")

    data: list[UsageBucket]
    has_more: bool
    next_page: str | None


def _cursor_key() -> bytes:
    """Derive the cursor-signing key from SECRET_KEY (never use the secret directly)."""
    secret = str(setting(current_app, "SECRET_KEY")).encode()
    return hmac.new(secret, b"share-viewer/usage-page-cursor/v1", hashlib.sha256).digest()


def _binding(organization_id: str, query: UsageQuery) -> bytes:
    """Everything a cursor is only valid for: the organization and the query."""
    return json.dumps([
        organization_id,
        query.starting_at.isoformat(),
        query.ending_at.isoformat(),
        query.window_size,
        sorted(set(query.applications)),
        sorted(set(query.workspace_ids)),
        sorted(set(query.group_by)),
    ]).encode()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign_cursor(organization_id: str, query: UsageQuery, position: list) -> str:
    """Return the opaque cursor for resuming ``query`` after sort key ``position``."""
    payload = _b64(json.dumps(position, separators=(",", ":")).encode())
    mac = hmac.new(_cursor_key(), _binding(organization_id, query) + b"|" + payload.encode(),
                   hashlib.sha256).digest()
    return f"{payload}.{_b64(mac)}"


def read_cursor(organization_id: str, query: UsageQuery, cursor: str, width: int) -> list:
    """Return the sort key a cursor carries, or raise a 400 if it is not ours for this query."""
    invalid = bad_request("page: not a valid cursor for this query")
    payload, _, mac = cursor.partition(".")
    try:
        expected = hmac.new(_cursor_key(), _binding(organization_id, query) + b"|"
                            + payload.encode(), hashlib.sha256).digest()
        # Compare the canonical text, so that no second spelling of a cursor exists.
        if not hmac.compare_digest(mac.encode(), _b64(expected).encode()):
            raise invalid
        position = json.loads(_unb64(payload))
    except (ValueError, UnicodeError):
        raise invalid from None
    shape_ok = (
        isinstance(position, list) and len(position) == width
        and isinstance(position[0], int) and all(isinstance(v, str) for v in position[1:])
    )
    if not shape_ok:
        raise invalid
    return position


@bp.operation("GET", "/admin/usage", summary="List usage", tag="Usage", auth="admin",
          query=UsageQuery, response=UsagePage,
          description=__doc__.split("\n\n", 1)[1])
def list_usage(query: UsageQuery) -> UsagePage:
    """Return one page of usage buckets."""
    organization_id = current_key().organization_id
    groups = [name for name in store.GROUP_COLUMNS if name in query.group_by]
    after = None
    if query.page:
        after = read_cursor(organization_id, query, query.page, 1 + len(groups))
    size = WINDOWS[query.window_size]
    rows, has_more = store.usage_buckets(
        get_conn(), organization_id,
        # Records carry whole seconds: r >= x and r < y hold exactly when r >= ceil(x), ...
        start=math.ceil(query.starting_at.timestamp()),
        end=math.ceil(query.ending_at.timestamp()),
        bucket_seconds=size,
        group_by=groups,
        applications=query.applications or None,
        workspace_ids=query.workspace_ids or None,
        after=after,
        limit=query.limit,
    )
    next_page = None
    if has_more:
        last = rows[-1]
        next_page = sign_cursor(organization_id, query,
                                [last["bucket"], *(last[name] for name in groups)])
    return UsagePage(data=[UsageBucket.from_row(r, query) for r in rows], has_more=has_more,
                     next_page=next_page)
