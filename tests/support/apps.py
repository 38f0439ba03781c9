"""Test apps: the composed app on a test database (its viewer behind the SDK double), and an
organization with its admin key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app import create_app
from app.platform.db import get_engine
from app.store.organizations import create_organization
from tests.support.sdk_double import use_api_double


def make_test_app(database_url: str, tmp_path: Path, api_double: bool = True):
    """Create the app on ``database_url`` with its instance and artifacts in ``tmp_path``.

    Its viewer reads the embedded API through the SDK-fields-only double
    (``tests/support/sdk_double.py``: strict validation, declared fields only), as every viewer test
    does; ``api_double=False`` reads the service's answers whole (extension fields).
    """
    application = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "SECRET_KEY": "test-secret",
            "ARTIFACT_DIR": str(tmp_path / "artifacts"),
            "PUBLIC_URL": "http://viewer.test",
            # Flask's test client closes a streamed answer only when a test does: the work
            # gate's slot of an export is held until then (gunicorn always closes).
            # tests/viewer/runtime/test_work_gate.py puts a gate of one slot in place.
            "EXPENSIVE_WORK_SLOTS": 10_000,
            "EXPENSIVE_WORK_PER_CLIENT": 10_000,
            # Off: a protein results page would read every design's structure in a
            # background thread that outlives its test. tests/viewer/epitope turns it on.
            "EPITOPE_SCAN": False,
        },
        instance_path=str(tmp_path / "instance"),
    )
    if api_double:
        use_api_double(application)
    return application


@dataclass(frozen=True)
class OrgFixture:
    """An organization made for a test: its ids and full admin key."""

    organization_id: str
    workspace_id: str
    admin_key: str

    @property
    def headers(self) -> dict[str, str]:
        """Headers that authenticate as the admin key."""
        return {"x-api-key": self.admin_key}


def make_org(app, name: str = "Test Org") -> OrgFixture:
    """Create an organization in ``app``'s database."""
    with get_engine(app).begin() as conn:
        org, workspace, _key, secret = create_organization(conn, name)
    return OrgFixture(org.id, workspace.id, secret)
