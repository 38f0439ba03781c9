"""The demo link: an organization with realistic pipelines, predictions, files and links.

``seed_demo`` is what ``flask --app app seed-demo`` runs. Every call creates a new
organization (names are not unique), so it is safe on a database already in use. Its runs
are ``app.synthetic.catalog``'s (fixed random seeds: two runs hold the same sequences,
molecules and metrics; ids, keys and times differ), written in one transaction with the
organization, its usage records and two share links (public, and e-mail for
``EMAIL_LINK_ADDRESSES``). ``results=N`` (``seed-demo --results N``) scales the two big
pipelines. Development and evaluation only: production code paths never import
``app.demo``.
"""

from __future__ import annotations

from datetime import UTC, timedelta

from sqlalchemy.engine import Engine

from app import artifact_storage
from app.platform.timeutil import utcnow
from app.store.api_keys import create_api_key
from app.store.organizations import create_organization
from app.store.retention import hold_off_file_sweep
from app.store.share_links import create_share_link
from app.store.usage import add_usage_records
from app.store.workspaces import create_workspace, update_workspace
from app.synthetic.catalog import build_catalog, insert_catalog
from app.synthetic.usage import usage_records

DEFAULT_PUBLIC_URL = "http://127.0.0.1:8000"
ORGANIZATION_NAME = "Helix Therapeutics demo"
EMAIL_LINK_ADDRESSES = ["alice@example.com", "bob@example.org"]
# How long each demo link lives from seeding (``app.demo.upkeep`` renews them for as long).
LINK_LIFE = {"public": timedelta(days=14), "email": timedelta(days=7)}
# The demo workspace keeps data 14 days, the most the API allows (the default is 7): its
# runs are backdated up to 5.6 days, and ``make run`` must not purge them under a visitor.
DEMO_RETENTION = ("days", 14)

def link_url(public_url: str | None, link_id: str) -> str:
    """Return the URL of a demo link for the viewer at ``public_url`` (default
    ``DEFAULT_PUBLIC_URL``): what the summary of ``seed_demo`` lists, never stored."""
    return f"{(public_url or DEFAULT_PUBLIC_URL).rstrip('/')}/share/{link_id}"


def seed_demo(engine: Engine, *, artifact_dir: str | None = None, store=None,
              public_url: str | None = None, results: int | None = None) -> dict:
    """Create the demo organization and return the summary ``seed-demo --json`` prints.

    Artifact files go to ``store`` (``app.artifact_storage.open_store``: disk or S3), else
    to the file store in ``artifact_dir``;
    ``public_url`` is the viewer's base URL for share links (default
    ``http://127.0.0.1:8000``); ``results`` (N >= 1) scales the two big pipelines to N
    results each, None keeps the demo's own sizes.
    """
    if results is not None and results < 1:
        raise ValueError("results must be a positive integer")
    now = utcnow()
    with engine.begin() as conn:
        # The files are saved before the rows commit: no purge may sweep them meanwhile.
        hold_off_file_sweep(conn)
        org, workspace, _admin, admin_key = create_organization(conn, ORGANIZATION_NAME)
        workspace = update_workspace(conn, workspace, retention=DEMO_RETENTION)
        _key, workspace_key = create_api_key(
            conn, organization_id=org.id, workspace_id=workspace.id, key_type="workspace",
            name="Demo workspace key",
        )
        second = create_workspace(conn, organization_id=org.id, name="Assay development",
                                  retention_unit="days", retention_value=14)
        files = store if store is not None else artifact_storage.as_store(artifact_dir)
        data = build_catalog(workspace.id, files, now, results=results)
        insert_catalog(conn, data)
        pipeline_ids, prediction_ids = data.pipeline_ids, data.prediction_ids
        now_s = int(now.replace(tzinfo=UTC).timestamp())
        add_usage_records(conn, usage_records(org.id, {workspace.id: 1.0, second.id: 0.35},
                                              now_s))
        public = create_share_link(
            conn, organization_id=org.id, workspace_id=workspace.id, access_mode="public",
            allowed_emails=[], pipeline_ids=list(pipeline_ids.values()),
            prediction_ids=list(prediction_ids.values()), expires_at=now + LINK_LIFE["public"],
        )
        email = create_share_link(
            conn, organization_id=org.id, workspace_id=workspace.id, access_mode="email",
            allowed_emails=EMAIL_LINK_ADDRESSES,
            pipeline_ids=[pipeline_ids["protein_design"],
                          pipeline_ids["small_molecule_design"],
                          pipeline_ids["small_molecule_library_screen"]],
            prediction_ids=[], expires_at=now + LINK_LIFE["email"],
        )
    return {
        "organization_id": org.id,
        "admin_key": admin_key,
        "workspace_id": workspace.id,
        "workspace_key": workspace_key,
        "pipelines": pipeline_ids,
        "predictions": prediction_ids,
        "share_links": {
            "public": {"id": public.id, "url": link_url(public_url, public.id)},
            "email": {"id": email.id, "url": link_url(public_url, email.id),
                      "allowed_emails": list(email.allowed_emails)},
        },
    }
