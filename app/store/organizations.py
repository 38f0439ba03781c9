"""Organizations: creation with their default workspace and first admin key."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from app.platform.ids import new_id
from app.platform.timeutil import utcnow
from app.store import api_keys, schema, workspaces
from app.store.records import ApiKey, Organization, Workspace


def create_organization(conn: Connection, name: str) -> tuple[Organization, Workspace, ApiKey, str]:
    """Create an organization, its default workspace and an admin key.

    Returns the three records and the full admin key, which is not stored anywhere.
    """
    now = utcnow()
    org = Organization(id=new_id("org"), name=name, created_at=now)
    conn.execute(schema.organizations.insert().values(id=org.id, name=name, created_at=now))
    workspace = workspaces.create_workspace(
        conn, organization_id=org.id, name="Default", is_default=True,
        retention_unit=workspaces.DEFAULT_RETENTION[0],
        retention_value=workspaces.DEFAULT_RETENTION[1],
    )
    key, secret = api_keys.create_api_key(
        conn, organization_id=org.id, workspace_id=None, key_type="admin", name="Admin key"
    )
    return org, workspace, key, secret
