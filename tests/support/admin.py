"""Helpers shared by the administration tests: the error envelope, keys made in the DB."""

from __future__ import annotations

from datetime import datetime

from app.platform.db import get_engine
from app.store import api_keys
from tests.support.factories import assert_envelope  # noqa: F401  (shared by admin tests)


def make_key(
    app,
    org,
    *,
    workspace_id: str | None = None,
    key_type: str = "workspace",
    allowed_ips: list[str] | None = None,
    expires_at: datetime | None = None,
    livemode: bool = True,
) -> str:
    """Create a key straight in the database and return the full key."""
    with get_engine(app).begin() as conn:
        _record, secret = api_keys.create_api_key(
            conn,
            organization_id=org.organization_id,
            workspace_id=(workspace_id or org.workspace_id) if key_type == "workspace" else None,
            key_type=key_type,
            name="made by a test",
            allowed_ips=allowed_ips,
            expires_at=expires_at,
            livemode=livemode,
        )
    return secret
