"""Test mode's synthetic data: what a workspace holds the first time a test key uses it.

A test key (``mode: test``, ``livemode: false``) sees only test-mode resources. So that a
developer can list pipelines, share one and open the link at once, the first request
authenticated with a test key seeds its workspace (an admin test key: the organization's
default workspace) with one test-mode pipeline of each of the seven kinds and the two
predictions, built by ``catalog`` (as the demo link is) with ``RESULTS_PER_PIPELINE``
results each and real artifact files. Their inputs, progress and prediction outputs are
the official SDK's shapes, as the demo's; every test-mode run finished (requested as many
as it made, nothing failed).

Cheap when already done: a workspace key's lookup already carries the workspace's
``test_data_seeded_at`` (no query); an admin test key costs one indexed read. Race-safe:
rows are built first (seconds of CPU, no lock held), then the workspace is claimed with a
conditional update (``store.workspaces.claim_test_data``) and only the claimant inserts;
a loser's files stay behind unreferenced, as after an aborted demo seed. Nothing here
records usage: test-mode activity is not billed.
"""

from __future__ import annotations

from app.platform.timeutil import utcnow
from app.store import retention as retention_store
from app.store import workspaces as workspace_store
from app.store.records import ApiKey

# A few results per pipeline: enough to page, sort and share, quick to build.
RESULTS_PER_PIPELINE = 6


def ensure_for_key(conn, key: ApiKey, store) -> bool:
    """Seed the test key's workspace on its first use; return True if this call seeded.

    ``store`` is where its files go: an artifact store (``app.artifact_storage``), or a
    directory for the file store.

    Live keys return at once. ``conn`` is the request's connection: the rows commit (or
    roll back) with the request.
    """
    if key.livemode:
        return False
    if key.workspace_id is not None:
        if key.workspace_test_data_seeded_at is not None:
            return False
        workspace_id = key.workspace_id
    else:
        workspace = workspace_store.get_default_workspace(conn, key.organization_id)
        if workspace is None or workspace.test_data_seeded_at is not None:
            return False
        workspace_id = workspace.id
    return seed_workspace(conn, workspace_id, store)


def seed_workspace(conn, workspace_id: str, store) -> bool:
    """Build and insert the workspace's test-mode data unless it already has it.

    Returns False when another request claimed the workspace first.
    """
    # Imported here: the builders import the chemistry data, which only a test key's
    # first use needs (not every worker at start).
    from app.synthetic.catalog import build_catalog, insert_catalog

    now = utcnow()
    # The files are saved before the rows commit: no purge may sweep them meanwhile.
    retention_store.hold_off_file_sweep(conn)
    data = build_catalog(workspace_id, store, now, livemode=False,
                         count=RESULTS_PER_PIPELINE)
    if not workspace_store.claim_test_data(conn, workspace_id, now):
        return False
    insert_catalog(conn, data)
    return True
