"""Frozen dataclasses that store functions return, and the helper that builds them."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, TypeVar

T = TypeVar("T")


@functools.cache
def field_names(cls: type) -> tuple[str, ...]:
    """Return the field names of dataclass ``cls`` (``fields()`` rebuilds them per call)."""
    return tuple(f.name for f in fields(cls))


def from_row(cls: type[T], row: Any) -> T:
    """Build dataclass ``cls`` from a SQLAlchemy row, taking the columns it names."""
    mapping = row._mapping
    return cls(**{name: mapping[name] for name in field_names(cls) if name in mapping})


@dataclass(frozen=True)
class Organization:
    """An organization: the tenant that owns workspaces, keys and share links."""

    id: str
    name: str
    created_at: datetime


@dataclass(frozen=True)
class Workspace:
    """A workspace of an organization; exactly one per organization is the default."""

    id: str
    organization_id: str
    name: str
    is_default: bool
    data_retention_unit: str
    data_retention_value: int
    created_at: datetime
    updated_at: datetime
    archived_at: datetime | None
    # When its synthetic test-mode data was seeded (``app.synthetic.test_mode``); None: not yet.
    test_data_seeded_at: datetime | None = None


@dataclass(frozen=True)
class ApiKey:
    """An API key record without its hash (admin keys have no ``workspace_id``)."""

    id: str
    organization_id: str
    workspace_id: str | None
    key_type: str
    name: str
    key_prefix: str
    allowed_ips: list
    livemode: bool
    is_active: bool
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    # Filled by the authentication lookup (join); None elsewhere.
    workspace_archived_at: datetime | None = None
    workspace_test_data_seeded_at: datetime | None = None
